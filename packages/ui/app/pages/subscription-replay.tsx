/**
 * Replaying a window of a source's stored events to one subscription's webhook: a replay job
 * (`POST /v1/subscriptions/{id}/replay` starts it and runs its first batch, each
 * `POST .../replays/{replay_id}/continue` the next) in bounded batches of 500 events until `done`,
 * with the progress shown and a Stop between calls (a stopped job can be continued later).
 */
import { useRef, useState } from "preact/hooks";
import { type ApiError, api, seg } from "../api";
import { asApiError } from "../hooks";
import type { Subscription } from "../types";
import { ErrorNote } from "../widgets";

/** A replay job as one call leaves it. */
interface ReplayJob {
  id: string;
  status: "running" | "done" | "failed";
  enqueued: number;
  error: string | null;
}

/** Events per call: small enough that Stop answers quickly. */
const BATCH = 500;

/** `datetime-local` text as epoch seconds. */
const seconds = (local: string) => (local ? Math.floor(new Date(local).getTime() / 1000) : undefined);

/** The replay form of one subscription. */
export function ReplayForm({ sub, webhookName }: { sub: Subscription; webhookName: string }) {
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const [filter, setFilter] = useState("");
  const [progress, setProgress] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const stop = useRef(false);
  const key = sub.id;

  async function replay() {
    setBusy(true);
    setError(undefined);
    stop.current = false;
    let total = 0;
    let parsed: unknown = filter.trim() || undefined;
    try {
      parsed = parsed === undefined ? undefined : JSON.parse(filter);
    } catch {
      // Sent as typed: the API names what is wrong with it.
    }
    try {
      let job = await api<ReplayJob>("POST", `/v1/subscriptions/${seg(sub.id)}/replay`, {
        ...(seconds(since) !== undefined ? { since: seconds(since) } : {}),
        ...(seconds(until) !== undefined ? { until: seconds(until) } : {}),
        ...(parsed !== undefined ? { filter: parsed } : {}),
        limit: BATCH,
      });
      for (;;) {
        total = job.enqueued;
        if (job.status === "done") {
          setProgress(`Replayed ${total} event${total === 1 ? "" : "s"} to ${webhookName}.`);
          break;
        }
        if (job.status === "failed") {
          setProgress(`Replay ${job.id} failed after ${total} events: ${job.error ?? "unknown error"}`);
          break;
        }
        if (stop.current) {
          setProgress(`Stopped after ${total} events (replay ${job.id} can be continued).`);
          break;
        }
        setProgress(`Replayed ${total} events so far…`);
        job = await api<ReplayJob>(
          "POST",
          `/v1/subscriptions/${seg(sub.id)}/replays/${seg(job.id)}/continue`,
          { limit: BATCH },
        );
      }
    } catch (e) {
      setError(asApiError(e));
      if (total > 0) setProgress(`Replayed ${total} events before the error.`);
    } finally {
      setBusy(false);
    }
  }

  const problems = (error?.details?.problems ?? []) as { path?: string; message?: string }[];
  return (
    <details class="replay">
      <summary>Replay history to {webhookName}…</summary>
      <p class="hint">
        Stored events of the window become new deliveries, oldest first, with their original ids as webhook-id
        (receivers dedupe them). The subscription's own filter applies too.
      </p>
      <div class="row wrap">
        <div class="field">
          <label for={`replay-since-${key}`}>Stored from (optional)</label>
          <input
            id={`replay-since-${key}`}
            type="datetime-local"
            value={since}
            onInput={(e) => setSince(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for={`replay-until-${key}`}>Stored before (optional)</label>
          <input
            id={`replay-until-${key}`}
            type="datetime-local"
            value={until}
            onInput={(e) => setUntil(e.currentTarget.value)}
          />
        </div>
      </div>
      <div class="field">
        <label for={`replay-filter-${key}`}>Replay only events matching (JSON filter, optional)</label>
        <input
          id={`replay-filter-${key}`}
          class="mono"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
        />
      </div>
      <ErrorNote error={error} label="Replay refused" />
      {problems.length > 0 ? (
        <ul class="error">
          {problems.map((p) => (
            <li key={`${p.path}${p.message}`}>{p.path ? `${p.path}: ${p.message}` : p.message}</li>
          ))}
        </ul>
      ) : null}
      <div class="row">
        <button type="button" disabled={busy} onClick={() => void replay()}>
          {busy ? "Replaying…" : "Replay"}
        </button>
        {busy ? (
          <button
            type="button"
            onClick={() => {
              stop.current = true;
            }}
          >
            Stop
          </button>
        ) : null}
        <span role="status" aria-live="polite">
          {progress}
        </span>
      </div>
    </details>
  );
}
