/**
 * Subscriptions: which webhooks get this source's events (per channel, optionally filtered); add
 * and remove them, and replay stored events to one.
 */
import { useState } from "preact/hooks";
import { type ApiError, api, listAll, seg } from "../api";
import { asApiError, useLoad } from "../hooks";
import type { Subscription, Webhook } from "../types";
import { ErrorNote, Loading, TextField } from "../widgets";
import type { SourceContext } from "./source-context";
import { ReplayForm } from "./subscription-replay";

/** The Subscriptions tab. */
export function SubscriptionsTab({ ctx }: { ctx: SourceContext }) {
  const id = ctx.source.id;
  const data = useLoad(async () => {
    const [subs, webhooks] = await Promise.all([
      listAll<Subscription>("/v1/subscriptions", { emitter_id: id }),
      listAll<Webhook>("/v1/webhooks"),
    ]);
    return { subs, webhooks };
  }, [id]);
  const [webhook, setWebhook] = useState("");
  const [channel, setChannel] = useState("");
  const [filter, setFilter] = useState("");
  const [error, setError] = useState<ApiError | undefined>();
  const byId = new Map((data.data?.webhooks ?? []).map((w) => [w.id, w]));

  return (
    <div>
      <ErrorNote error={data.error} />
      {data.loading && !data.data ? <Loading what="subscriptions" /> : null}
      {data.data && data.data.subs.length === 0 ? (
        <p class="empty">No webhook receives this source's events yet.</p>
      ) : null}
      {data.data && data.data.subs.length > 0 ? (
        <ul class="plain rows">
          {data.data.subs.map((s) => {
            const w = byId.get(s.listener_id);
            const name = w?.name ?? w?.url ?? s.listener_id;
            return (
              <li key={s.id}>
                <div class="row wrap">
                  <a href={`/webhooks/${s.listener_id}`}>{name}</a>
                  <span class="muted">{w?.url}</span>
                  <span class="badge">{s.event_name ?? "default channel"}</span>
                  {s.filter ? (
                    <span class="small-text">
                      only <code>{JSON.stringify(s.filter)}</code>
                    </span>
                  ) : null}
                  <button
                    type="button"
                    class="small danger-text"
                    aria-label={`Unsubscribe ${w?.name ?? s.listener_id}`}
                    onClick={async () => {
                      try {
                        await api("DELETE", `/v1/subscriptions/${seg(s.id)}`);
                        await data.reload();
                      } catch (e) {
                        setError(asApiError(e));
                      }
                    }}
                  >
                    Unsubscribe
                  </button>
                </div>
                <ReplayForm sub={s} webhookName={name} />
              </li>
            );
          })}
        </ul>
      ) : null}
      <h2>Send events to a webhook</h2>
      {data.data && data.data.webhooks.length === 0 ? (
        <p>
          No webhooks yet: <a href="/webhooks">create one</a> first.
        </p>
      ) : (
        <form
          class="row wrap"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(undefined);
            let parsed: unknown = filter.trim() || undefined;
            try {
              parsed = parsed === undefined ? undefined : JSON.parse(filter);
            } catch {
              // Sent as typed: the API names what is wrong with it.
            }
            try {
              await api("POST", "/v1/subscriptions", {
                emitter_id: id,
                listener_id: webhook,
                ...(channel.trim() ? { event_name: channel.trim() } : {}),
                ...(parsed !== undefined ? { filter: parsed } : {}),
              });
              setChannel("");
              setFilter("");
              await data.reload();
            } catch (err) {
              setError(asApiError(err));
            }
          }}
        >
          <div class="field">
            <label for="sub-webhook">Webhook</label>
            <select
              id="sub-webhook"
              required
              value={webhook}
              onChange={(e) => setWebhook(e.currentTarget.value)}
            >
              <option value="">Choose…</option>
              {(data.data?.webhooks ?? []).map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name ? `${w.name} (${w.url})` : w.url}
                </option>
              ))}
            </select>
          </div>
          <TextField
            id="sub-channel"
            label="Channel (optional)"
            placeholder="default"
            value={channel}
            onChange={setChannel}
          />
          <TextField
            id="sub-filter"
            label="Only events matching (JSON filter, optional)"
            placeholder='{"event.total": {"$gte": 100}}'
            value={filter}
            onChange={setFilter}
          />
          <button type="submit">Subscribe</button>
        </form>
      )}
      <ErrorNote error={error} />
      {((error?.details?.problems ?? []) as { path?: string; message?: string }[]).map((p) => (
        <p class="error field-error" key={`${p.path}${p.message}`}>
          {p.path ? `${p.path}: ${p.message}` : p.message}
        </p>
      ))}
    </div>
  );
}
