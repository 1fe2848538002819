/**
 * A webhook's deliveries: the newest deliveries (refreshed every few seconds) with
 * their attempts (status, duration, response excerpt, error), retry one, and recover a window.
 */
import { useState } from "preact/hooks";
import { type ApiError, api, page, seg } from "../api";
import { asApiError, useLoad, usePoll } from "../hooks";
import type { Delivery } from "../types";
import { ErrorNote, Loading, TextField, Time } from "../widgets";
import { ClockTime } from "./webhook-health";

const STATUSES = ["pending", "paused", "delivering", "succeeded", "failed"] as const;

async function loadDeliveries(webhookId: string, status: string): Promise<Delivery[]> {
  const out: Delivery[] = [];
  let after: string | undefined;
  // The newest 300 are enough for the list.
  for (let i = 0; i < 3; i++) {
    const res = await page<Delivery>(`/v1/webhooks/${seg(webhookId)}/deliveries`, {
      limit: 100,
      ...(status ? { status } : {}),
      ...(after ? { after } : {}),
    });
    out.push(...res.data);
    after = res.pageInfo.end_cursor ?? undefined;
    if (!after) break;
  }
  return out;
}

/** The deliveries section of a webhook's page. */
export function Deliveries({
  webhookId,
  circuitOpenUntil,
  notify,
}: {
  webhookId: string;
  /** Until when the circuit breaker holds the webhook's deliveries (epoch seconds), if open. */
  circuitOpenUntil: number | null;
  notify: (m: string) => void;
}) {
  const [status, setStatus] = useState("");
  const list = useLoad(() => loadDeliveries(webhookId, status), [webhookId, status]);
  usePoll(list.reload, 3000);
  const [open, setOpen] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | undefined>();

  async function retry(d: Delivery) {
    setError(undefined);
    try {
      await api("POST", `/v1/webhooks/${seg(webhookId)}/deliveries/${seg(d.id)}/retry`);
      notify(`Delivery ${d.id} is being sent again.`);
      await list.reload();
    } catch (e) {
      setError(asApiError(e));
    }
  }

  return (
    <section class="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <div class="toolbar">
        <label for="delivery-status">Status</label>
        <select id="delivery-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={list.error} label="Could not load the deliveries" />
      <ErrorNote error={error} label="Could not retry" />
      {list.loading && !list.data ? <Loading what="deliveries" /> : null}
      {list.data && list.data.length === 0 ? (
        <p class="empty">No deliveries{status ? ` ${status}` : ""} yet.</p>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <div class="table-wrap">
          <table class="list deliveries">
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            {list.data.map((d) => (
              <DeliveryRows
                key={d.id}
                delivery={d}
                open={open === d.id}
                circuitOpenUntil={circuitOpenUntil}
                onToggle={() => setOpen(open === d.id ? undefined : d.id)}
                onRetry={() => retry(d)}
              />
            ))}
          </table>
        </div>
      ) : null}
      <Recover webhookId={webhookId} notify={notify} onDone={list.reload} />
    </section>
  );
}

/** Where the delivery's event is shown: its emitter's events, with the event selected. */
function eventHref(d: Delivery): string | undefined {
  const query = `event=${encodeURIComponent(d.event_id)}&at=${d.created_at}`;
  if (d.emitter_id.startsWith("dc_")) return `/sources/${seg(d.emitter_id)}?tab=events&${query}`;
  if (d.emitter_id.startsWith("p_")) return `/workflows/${seg(d.emitter_id)}?${query}`;
  return undefined;
}

/** When a pending delivery goes out: its next attempt, or what holds it once that time has passed. */
function NextAttempt({ d, circuitOpenUntil }: { d: Delivery; circuitOpenUntil: number | null }) {
  if (d.status !== "pending" || !d.next_attempt_at) return null;
  const now = Date.now();
  if (d.next_attempt_at * 1000 > now) {
    return (
      <div class="muted small-text">
        next <Time ms={d.next_attempt_at * 1000} />
      </div>
    );
  }
  if (circuitOpenUntil !== null && circuitOpenUntil * 1000 > now) {
    return (
      <div class="muted small-text">
        held by the circuit breaker until <ClockTime ms={circuitOpenUntil * 1000} />
      </div>
    );
  }
  return <div class="muted small-text">due now</div>;
}

function DeliveryRows({
  delivery: d,
  open,
  circuitOpenUntil,
  onToggle,
  onRetry,
}: {
  delivery: Delivery;
  open: boolean;
  circuitOpenUntil: number | null;
  onToggle: () => void;
  onRetry: () => void;
}) {
  const href = eventHref(d);
  return (
    <tbody data-delivery={d.id} data-status={d.status}>
      <tr>
        <td data-label="Created">
          <Time ms={d.created_at * 1000} />
        </td>
        <td data-label="Event" class="mono small-text">
          {href ? <a href={href}>{d.event_id}</a> : d.event_id}
          {d.event_name !== "default" ? ` · ${d.event_name}` : ""}
        </td>
        <td data-label="Status">
          <span class={`badge status-${d.status}`}>{d.status}</span>
          <NextAttempt d={d} circuitOpenUntil={circuitOpenUntil} />
        </td>
        <td data-label="Attempts">{d.attempts}</td>
        <td data-label="Last answer">
          {d.last_status ??
            (d.last_error ? <span class="error">{d.last_error}</span> : <span class="muted">—</span>)}
        </td>
        <td data-label="Actions" class="row">
          <button
            type="button"
            class="small"
            aria-expanded={open}
            aria-controls={`attempts-${d.id}`}
            onClick={onToggle}
          >
            Attempts
          </button>
          {d.status !== "delivering" ? (
            <button type="button" class="small" onClick={onRetry} aria-label={`Retry delivery ${d.id}`}>
              Retry
            </button>
          ) : null}
        </td>
      </tr>
      {open ? (
        <tr id={`attempts-${d.id}`}>
          <td colSpan={6}>
            {d.attempt_log.length === 0 ? (
              <p class="muted">No attempt yet.</p>
            ) : (
              <table class="attempts">
                <caption class="visually-hidden">Attempts of {d.id}</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Status</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Response</th>
                  </tr>
                </thead>
                <tbody>
                  {d.attempt_log.map((a) => (
                    <tr key={a.id}>
                      <td>{new Date(a.at * 1000).toLocaleString()}</td>
                      <td>{a.status ?? "—"}</td>
                      <td>{Math.round(a.duration_ms)} ms</td>
                      <td>
                        {a.error ? <div class="error">{a.error}</div> : null}
                        {a.response ? <pre class="excerpt">{a.response}</pre> : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </td>
        </tr>
      ) : null}
    </tbody>
  );
}

/** Re-send every delivery that failed in a time window. */
function Recover({
  webhookId,
  notify,
  onDone,
}: {
  webhookId: string;
  notify: (m: string) => void;
  onDone: () => Promise<void>;
}) {
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const [error, setError] = useState<ApiError | undefined>();
  return (
    <form
      class="row wrap recover"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          const res = await api<{ recovered: number }>("POST", `/v1/webhooks/${seg(webhookId)}/recover`, {
            since: new Date(since).toISOString(),
            ...(until ? { until: new Date(until).toISOString() } : {}),
          });
          notify(`Recovered ${res.recovered} failed deliver${res.recovered === 1 ? "y" : "ies"}.`);
          await onDone();
        } catch (err) {
          setError(asApiError(err));
        }
      }}
    >
      <h3 class="grow-full">Recover failed deliveries</h3>
      <TextField
        id="recover-since"
        label="Failed since"
        type="datetime-local"
        required
        value={since}
        onChange={setSince}
      />
      <TextField
        id="recover-until"
        label="Until (optional)"
        type="datetime-local"
        value={until}
        onChange={setUntil}
      />
      <button type="submit">Recover</button>
      <ErrorNote error={error} />
    </form>
  );
}
