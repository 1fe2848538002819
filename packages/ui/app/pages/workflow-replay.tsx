/**
 * Replaying a run. A server with `POST /v1/workflows/{id}/executions/{execution_id}/replay` replays
 * it there, from a chosen step and with the event as it was or edited (`{event?, from_step?}`).
 * Without that endpoint (an older server: its OpenAPI document does not list it) the app runs the
 * workflow again with the event (`POST /v1/workflows/{id}/run`), from the first step, and says so.
 */
import { useEffect, useState } from "preact/hooks";
import { type ApiError, api, apiHasMatching, seg } from "../api";
import { asApiError } from "../hooks";
import type { Execution } from "../types";
import { ErrorNote } from "../widgets";

/** The replay route, whatever its parameters are named. */
const REPLAY_ROUTE = /^\/v1\/workflows\/\{[^}]+\}\/executions\/\{[^}]+\}\/replay$/;

/** Whether this server replays executions itself (asked once per page load). */
let hasReplay: Promise<boolean> | undefined;

const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? "null";

/** The replay controls of a finished (or running) execution. */
export function Replay({
  workflowId,
  execution,
  onReplay,
}: {
  workflowId: string;
  execution: Execution;
  onReplay: (exe: Execution) => Promise<void>;
}) {
  const [server, setServer] = useState<boolean | undefined>();
  const [fromStep, setFromStep] = useState("");
  const [event, setEvent] = useState(() => pretty(execution.event));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  useEffect(() => {
    hasReplay ??= apiHasMatching("POST", REPLAY_ROUTE);
    void hasReplay.then(setServer);
  }, []);

  async function replay() {
    setBusy(true);
    setError(undefined);
    try {
      let edited: unknown;
      try {
        edited = JSON.parse(event);
      } catch {
        throw new Error("The event is not valid JSON");
      }
      const changed = JSON.stringify(edited) !== JSON.stringify(execution.event ?? null);
      let exe: Execution;
      if (server) {
        const body = { ...(changed ? { event: edited } : {}), ...(fromStep ? { from_step: fromStep } : {}) };
        const path = `/v1/workflows/${seg(workflowId)}/executions/${seg(execution.id)}/replay`;
        const res = await api<Execution | { execution: Execution }>("POST", path, body);
        exe = "execution" in res ? res.execution : res;
      } else {
        exe = await api<Execution>("POST", `/v1/workflows/${seg(workflowId)}/run`, { event: edited });
      }
      await onReplay(exe);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <details class="replay">
      <summary>Replay…</summary>
      <div class="field">
        <label for="replay-event">Replay event (JSON)</label>
        <textarea
          id="replay-event"
          class="mono"
          rows={4}
          value={event}
          onInput={(e) => setEvent(e.currentTarget.value)}
        />
      </div>
      {server ? (
        <div class="field">
          <label for="replay-from">From step</label>
          <select id="replay-from" value={fromStep} onChange={(e) => setFromStep(e.currentTarget.value)}>
            <option value="">The first step (the whole run)</option>
            {execution.steps.slice(1).map((s) => (
              <option key={s.name} value={s.name}>
                {s.name} (earlier steps keep this run's results)
              </option>
            ))}
          </select>
        </div>
      ) : server === false ? (
        <p class="hint" data-testid="replay-fallback">
          This server has no replay endpoint: the workflow runs again from its first step with this event (RUN
          NOW).
        </p>
      ) : null}
      <ErrorNote error={error} label="Replay failed" />
      <button type="button" disabled={busy || server === undefined} onClick={() => void replay()}>
        {busy ? "Replaying…" : server ? "Replay" : "Replay with this event"}
      </button>
    </details>
  );
}
