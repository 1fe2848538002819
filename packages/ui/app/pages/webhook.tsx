/**
 * `/webhooks/{wh_id}`: a webhook's settings, its signing secret (revealed on demand, rotated with
 * confirmation), the sources that feed it, and its deliveries.
 */
import { useState } from "preact/hooks";
import { lazy, useLocation, useRoute } from "preact-iso";
import { type ApiError, type ApiWarning, api, apiWarned, listAll, seg } from "../api";
import { asApiError, useLoad, useNotice, usePoll, useTitle } from "../hooks";
import type { Source, Subscription, Webhook } from "../types";
import { takeWarnings, Warnings } from "../warnings";
import { ConfirmDialog, CopyButton, ErrorNote, Loading, Notice, Switch } from "../widgets";
import { Deliveries } from "./webhook-deliveries";
import { HealthBadge, HealthNote, TestEvent } from "./webhook-health";

// The chart is its own chunk, loaded with this page only.
const DeliveryChart = lazy(() => import("../chart").then((m) => m.DeliveryChart));

/** A webhook's page. */
export function WebhookPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id as string;
  const hook = useLoad(() => api<Webhook>("GET", `/v1/webhooks/${seg(id)}`), [id]);
  // Its health (failing, circuit) changes with each attempt, as the deliveries below do.
  usePoll(hook.reload, 5000);
  const [notice, notify] = useNotice();
  const [confirm, setConfirm] = useState(false);
  // What the API warned when this webhook was created here, or its URL last changed.
  const [warnings, setWarnings] = useState<ApiWarning[]>(() => takeWarnings(id));
  const w = hook.data;
  useTitle(w ? (w.name ?? w.url) : "Webhook");
  if (!w) {
    return (
      <section>
        <p class="crumbs">
          <a href="/webhooks">Webhooks</a>
        </p>
        <h1>{hook.error?.code === "not_found" ? "Webhook not found" : "Webhook"}</h1>
        <ErrorNote error={hook.error} />
        {hook.loading ? <Loading what="the webhook" /> : null}
      </section>
    );
  }
  return (
    <section>
      <p class="crumbs">
        <a href="/webhooks">Webhooks</a>
      </p>
      <div class="page-head">
        <div>
          <h1>{w.name ?? w.url}</h1>
          <p class="muted mono small-text">
            {w.id} · {w.url}
          </p>
          {w.description ? <p>{w.description}</p> : null}
          <p>
            <HealthBadge webhook={w} />
          </p>
          {w.disabled_reason ? (
            <p class="error" role="alert">
              Disabled: {w.disabled_reason}
            </p>
          ) : null}
        </div>
        <div class="row wrap">
          <Switch
            checked={w.active}
            label={`Active: ${w.name ?? w.url}`}
            onChange={async (active) => {
              try {
                hook.set(await api<Webhook>("PATCH", `/v1/webhooks/${seg(w.id)}`, { active }));
              } catch (e) {
                notify(`Could not change it: ${(e as Error).message}`);
              }
            }}
          />
          <button type="button" class="danger-text" onClick={() => setConfirm(true)}>
            Delete
          </button>
        </div>
      </div>
      <Warnings warnings={warnings} />
      <HealthNote webhook={w} />
      <TestEvent webhookId={w.id} />
      <Notice text={notice} />
      <EditWebhook
        webhook={w}
        onSaved={(x, warned) => {
          hook.set(x);
          setWarnings(warned);
          notify("Saved.");
        }}
      />
      <Secret id={w.id} notify={notify} />
      <Feeds id={w.id} />
      <DeliveryChart webhookId={w.id} />
      <Deliveries webhookId={w.id} circuitOpenUntil={w.circuit_open_until} notify={notify} />
      <ConfirmDialog
        open={confirm}
        title={`Delete ${w.name ?? w.url}?`}
        confirmLabel="Delete webhook"
        onClose={() => setConfirm(false)}
        onConfirm={async () => {
          await api("DELETE", `/v1/webhooks/${seg(w.id)}`);
          route("/webhooks");
        }}
      >
        <p>Its subscriptions and pending deliveries are deleted too.</p>
      </ConfirmDialog>
    </section>
  );
}

function EditWebhook({
  webhook,
  onSaved,
}: {
  webhook: Webhook;
  onSaved: (w: Webhook, warnings: ApiWarning[]) => void;
}) {
  const [form, setForm] = useState({
    url: webhook.url,
    name: webhook.name ?? "",
    description: webhook.description ?? "",
  });
  const [error, setError] = useState<ApiError | undefined>();
  return (
    <details class="card">
      <summary>Edit settings</summary>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const saved = await apiWarned<Webhook>("PATCH", `/v1/webhooks/${seg(webhook.id)}`, form);
            onSaved(saved.data, saved.warnings);
          } catch (err) {
            setError(asApiError(err));
          }
        }}
      >
        <div class="field">
          <label for="edit-url">URL</label>
          <input
            id="edit-url"
            type="url"
            required
            value={form.url}
            onInput={(e) => setForm({ ...form, url: e.currentTarget.value })}
          />
        </div>
        <div class="row wrap">
          <div class="field grow">
            <label for="edit-name">Name</label>
            <input
              id="edit-name"
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
            />
          </div>
          <div class="field grow">
            <label for="edit-description">Description</label>
            <input
              id="edit-description"
              value={form.description}
              onInput={(e) => setForm({ ...form, description: e.currentTarget.value })}
            />
          </div>
        </div>
        <ErrorNote error={error} />
        <button type="submit">Save</button>
      </form>
    </details>
  );
}

/** The signing secret: hidden until revealed; rotating keeps the old one valid for 24 hours. */
function Secret({ id, notify }: { id: string; notify: (m: string) => void }) {
  const [secret, setSecret] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [rotating, setRotating] = useState(false);
  return (
    <section class="card" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p class="muted small-text">
        Receivers verify the <code>webhook-signature</code> header with it (Standard Webhooks).
      </p>
      <div class="row wrap">
        {secret ? (
          <>
            <code class="secret" data-testid="webhook-secret">
              {secret}
            </code>
            <CopyButton text={secret} label="Copy the signing secret" />
            <button type="button" class="small" onClick={() => setSecret(undefined)}>
              Hide secret
            </button>
          </>
        ) : (
          <button
            type="button"
            onClick={async () => {
              try {
                setSecret((await api<{ secret: string }>("GET", `/v1/webhooks/${seg(id)}/secret`)).secret);
              } catch (e) {
                setError(asApiError(e));
              }
            }}
          >
            Reveal secret
          </button>
        )}
        <button type="button" class="danger-text" onClick={() => setRotating(true)}>
          Rotate secret
        </button>
      </div>
      <ErrorNote error={error} />
      <ConfirmDialog
        open={rotating}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onClose={() => setRotating(false)}
        onConfirm={async () => {
          const res = await api<{ secret: string }>("POST", `/v1/webhooks/${seg(id)}/secret/rotate`);
          setSecret(res.secret);
          notify("Secret rotated. The previous one stays valid for 24 hours.");
        }}
      >
        <p>Deliveries are signed with both secrets for 24 hours, then with the new one only.</p>
      </ConfirmDialog>
    </section>
  );
}

/** The sources whose events this webhook receives. */
function Feeds({ id }: { id: string }) {
  const data = useLoad(async () => {
    const [subs, sources] = await Promise.all([
      listAll<Subscription>("/v1/subscriptions", { listener_id: id }),
      listAll<Source>("/v1/sources"),
    ]);
    return { subs, sources: new Map(sources.map((s) => [s.id, s])) };
  }, [id]);
  return (
    <section class="card" aria-labelledby="feeds-title">
      <h2 id="feeds-title">Subscriptions</h2>
      <ErrorNote error={data.error} />
      {data.data && data.data.subs.length === 0 ? (
        <p class="muted">No source sends events here yet. Subscribe one from its Subscriptions tab.</p>
      ) : null}
      <ul class="plain">
        {(data.data?.subs ?? []).map((s) => (
          <li key={s.id}>
            <a href={`/sources/${s.emitter_id}`}>
              {data.data?.sources.get(s.emitter_id)?.name ?? s.emitter_id}
            </a>
            <span class="muted"> · {s.event_name ?? "default channel"}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
