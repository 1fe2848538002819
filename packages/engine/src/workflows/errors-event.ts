/**
 * The event a failed run emits on its workflow's `$errors` channel, in Pipedream's shape:
 * `{ original_event, original_context, error: { name, message, stack }, step }`, with
 * `workflow_id` and `execution_id` beside them. Subscriptions with `event_name=$errors` deliver it,
 * and workflows with a source trigger on `{ source_id: "p_...", event_name: "$errors" }` run on it.
 */
import { WORKFLOW_ERRORS_CHANNEL } from "@hookline/core";
import type { Execution, ExecutionError } from "@hookline/store";

/** The payload of a `$errors` event. */
export interface ErrorsEventBody {
  /** The failed run's trigger event (`steps.trigger.event`). */
  original_event: unknown;
  /** Its trigger context (`steps.trigger.context`). */
  original_context: Record<string, unknown>;
  /** The failing step's error; `stack` starts with `name: message`, then the component's frames. */
  error: { name: string; message: string; stack: string };
  /** The failing step's name (null when the run failed outside a step). */
  step: string | null;
  /** The workflow (`p_...`). */
  workflow_id: string;
  /** The failed execution (`exe_...`). */
  execution_id: string;
}

/**
 * A Node-style stack: `Name: message`, then the component's own frames (the sandbox's prelude
 * frames left out).
 */
function stackOf(name: string, message: string, stack: string | undefined): string {
  const head = `${name}: ${message}`;
  const frames = (stack ?? "")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.includes("hookline:") && !line.includes("(native)"));
  if (frames[0]?.startsWith(head)) frames.shift();
  return [head, ...frames].join("\n");
}

/** The `$errors` event of a failed execution, with its metadata. @internal */
export function errorsEvent(
  wf: { id: string },
  exe: Execution,
  failure: ExecutionError | undefined,
): { event: ErrorsEventBody; meta: { name: string; summary: string } } {
  const failed = exe.steps.find((s) => s.status === "failed");
  const name = failure?.name ?? "Error";
  const message = failure?.message ?? "the run failed";
  return {
    event: {
      original_event: exe.event,
      original_context: exe.context ?? {},
      error: { name, message, stack: stackOf(name, message, failure?.stack) },
      step: failed?.name ?? null,
      workflow_id: wf.id,
      execution_id: exe.id,
    },
    meta: {
      name: WORKFLOW_ERRORS_CHANNEL,
      summary: `${failed?.name ?? "a step"} failed: ${message}`.slice(0, 256),
    },
  };
}
