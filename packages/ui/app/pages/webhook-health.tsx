/**
 * How a webhook is doing, in words: disabled (and why), inactive, held by its circuit breaker (and
 * until when), failing (since when) or without failures; and a "Send test event" button that shows what the
 * receiver answered (`POST /v1/webhooks/{id}/test`).
 */
import { useState } from "preact/hooks";
import { type ApiError, api, seg } from "../api";
import { asApiError } from "../hooks";
import type { Webhook } from "../types";
import { ErrorNote, Time } from "../widgets";

/** A time of day (`3:38:39 PM`), with the full date on hover: when a circuit closes. */
export function ClockTime({ ms }: { ms: number }) {
  const date = new Date(ms);
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {date.toLocaleTimeString()}
    </time>
  );
}

/** The webhook's state: one word for the badge, the class that colours it. */
function stateOf(w: Webhook, now = Date.now()): { label: string; tone: string } {
  if (w.disabled_reason) return { label: `disabled: ${w.disabled_reason}`, tone: "failed" };
  if (!w.active) return { label: "inactive", tone: "paused" };
  if (w.circuit_open_until !== null && w.circuit_open_until * 1000 > now)
    return { label: "circuit open", tone: "failed" };
  if (w.failing_since !== null) return { label: "failing", tone: "failed" };
  return { label: "no failures", tone: "succeeded" };
}

/** A badge with the webhook's state, and since or until when. */
export function HealthBadge({ webhook: w }: { webhook: Webhook }) {
  const { label, tone } = stateOf(w);
  const circuit = label === "circuit open" && w.circuit_open_until !== null;
  return (
    <span>
      <span class={`badge status-${tone}`}>{label}</span>
      {circuit ? (
        <span class="muted small-text">
          {" "}
          until <ClockTime ms={(w.circuit_open_until as number) * 1000} />
        </span>
      ) : null}
      {!circuit && w.failing_since !== null && !w.disabled_reason ? (
        <span class="muted small-text">
          {" "}
          since <Time ms={w.failing_since * 1000} />
        </span>
      ) : null}
    </span>
  );
}

/** On the webhook's page: what holds its deliveries, said once above them. */
export function HealthNote({ webhook: w }: { webhook: Webhook }) {
  const now = Date.now();
  if (w.active && w.circuit_open_until !== null && w.circuit_open_until * 1000 > now) {
    return (
      <p class="alert alert-warning" role="status" data-testid="circuit-note">
        The circuit breaker holds this webhook's deliveries until{" "}
        <ClockTime ms={w.circuit_open_until * 1000} /> (<Time ms={w.circuit_open_until * 1000} />
        ): its receiver failed several attempts in a row
        {w.failing_since !== null ? (
          <>
            , failing since <Time ms={w.failing_since * 1000} />
          </>
        ) : null}
        . Then one attempt is tried again; a success closes the circuit and sends the rest.
      </p>
    );
  }
  if (w.active && w.failing_since !== null) {
    return (
      <p class="alert alert-warning" role="status">
        Every attempt since <Time ms={w.failing_since * 1000} /> failed; deliveries are retried on their
        schedule.
      </p>
    );
  }
  return null;
}

/** What a test event found. */
interface TestResult {
  ok: boolean;
  event_id: string;
  status: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
}

/** "Send test event" and what the receiver answered. */
export function TestEvent({ webhookId }: { webhookId: string }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TestResult | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  return (
    <div class="row wrap" data-testid="test-event">
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(undefined);
          setResult(undefined);
          try {
            setResult(await api<TestResult>("POST", `/v1/webhooks/${seg(webhookId)}/test`));
          } catch (e) {
            setError(asApiError(e));
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? "Sending test event…" : "Send test event"}
      </button>
      <p role="status" aria-live="polite" class={result && !result.ok ? "error" : ""}>
        {result?.ok
          ? `Test event ${result.event_id}: the receiver answered ${result.status} in ${result.duration_ms} ms.`
          : null}
        {result && !result.ok
          ? `Test event ${result.event_id} failed: ${result.status === null ? "no answer" : `the receiver answered ${result.status}`} (${result.error}).`
          : null}
      </p>
      <ErrorNote error={error} label="Could not send the test event" />
    </div>
  );
}
