/**
 * The test event of the workflow editor: typed as JSON (a request's shape for an HTTP trigger), or
 * picked from the recent ones (the events of the workflow's last runs, or of its source), and
 * whether this test may retry failing steps (test runs never do unless asked).
 */
import { api, listAll, seg } from "../api";
import { useLoad } from "../hooks";
import type { EventSummary, Execution, WorkflowTrigger } from "../types";

/** A trigger's sample event: an HTTP request's fields, else an empty object. */
export function sampleEvent(trigger: WorkflowTrigger): string {
  if (trigger.type === "http")
    return JSON.stringify(
      {
        method: "POST",
        path: "/",
        query: {},
        headers: { "content-type": "application/json" },
        body: { name: "Ada" },
      },
      null,
      2,
    );
  return "{}";
}

/** The event's problem as typed, or undefined. */
export function eventProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return `The test event is not JSON: ${(error as Error).message}`;
  }
}

/** Recent events: the source's (a source trigger), else those of the workflow's last runs. */
function useRecent(workflowId: string | undefined, trigger: WorkflowTrigger, version: number) {
  return useLoad(async (): Promise<{ label: string; event: unknown }[]> => {
    if (trigger.type === "source" && trigger.source_id?.startsWith("dc_")) {
      const events = await api<EventSummary[]>(
        "GET",
        `/v1/sources/${seg(trigger.source_id)}/event_summaries`,
        undefined,
        {
          limit: 10,
          expand: "event",
        },
      );
      return events.map((e) => ({
        label: `${e.metadata?.summary ?? e.id} (${new Date(e.indexed_at_ms).toLocaleString()})`,
        event: e.event,
      }));
    }
    if (!workflowId) return [];
    const runs = await listAll<Execution>(`/v1/workflows/${seg(workflowId)}/executions`, {}, 10);
    return runs.slice(0, 10).map((r) => ({
      label: `${r.id} · ${r.status}${r.started_at_ms ? ` · ${new Date(r.started_at_ms).toLocaleString()}` : ""}`,
      event: r.event,
    }));
  }, [workflowId, trigger.type, trigger.source_id, version]);
}

/** The panel. */
export function TestPanel({
  workflowId,
  trigger,
  event,
  onEvent,
  autoRetry,
  onAutoRetry,
  version,
}: {
  workflowId: string | undefined;
  trigger: WorkflowTrigger;
  event: string;
  onEvent: (text: string) => void;
  autoRetry: boolean;
  onAutoRetry: (on: boolean) => void;
  /** Changes after each test, to read the recent events again. */
  version: number;
}) {
  const recent = useRecent(workflowId, trigger, version);
  const problem = eventProblem(event);
  return (
    <fieldset class="test-panel">
      <legend>Test event</legend>
      {recent.data && recent.data.length > 0 ? (
        <div class="field">
          <label for="recent-event">Use a recent event</label>
          <select
            id="recent-event"
            value=""
            onChange={(e) => {
              const picked = recent.data?.[Number(e.currentTarget.value)];
              if (picked) onEvent(JSON.stringify(picked.event ?? {}, null, 2));
            }}
          >
            <option value="">Choose…</option>
            {recent.data.map((r, i) => (
              <option key={r.label} value={String(i)}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div class="field">
        <label for="test-event">Event (steps.trigger.event, JSON)</label>
        <textarea
          id="test-event"
          class="mono"
          rows={6}
          spellcheck={false}
          value={event}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? "test-event-err" : undefined}
          onInput={(e) => onEvent(e.currentTarget.value)}
        />
        {problem ? (
          <p id="test-event-err" class="error field-error" role="alert">
            {problem}
          </p>
        ) : null}
      </div>
      <label class="choice">
        <input type="checkbox" checked={autoRetry} onChange={(e) => onAutoRetry(e.currentTarget.checked)} />{" "}
        Retry failing steps in this test by the workflow's retry policy (a test run otherwise fails at a
        failing step at once)
      </label>
    </fieldset>
  );
}
