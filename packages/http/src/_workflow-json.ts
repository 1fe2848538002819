/**
 * The REST API's JSON shapes of workflows, executions and environment variables (snake_case; `*_at`
 * in epoch seconds as everywhere, with each step's `duration_ms` and the execution's
 * `started_at_ms`/`finished_at_ms` for precise timing).
 */
import type { EnvVarView, ExecutionView, WorkflowView } from "@hookline/engine";
import type { ExecutionStep } from "@hookline/store";

const seconds = (ms: number) => Math.floor(ms / 1000);
const secondsOrNull = (ms: number | undefined) => (ms === undefined ? null : seconds(ms));

/** A workflow. */
export function workflowJson(w: WorkflowView) {
  return {
    id: w.id,
    name: w.name,
    trigger: w.trigger,
    steps: w.steps,
    active: w.active,
    next_run_at: secondsOrNull(w.nextRunAt),
    ...(w.retry !== undefined ? { retry: w.retry } : {}),
    ...(w.concurrency !== undefined ? { concurrency: w.concurrency } : {}),
    ...(w.throttle !== undefined ? { throttle: w.throttle } : {}),
    ...(w.queue_size !== undefined ? { queue_size: w.queue_size } : {}),
    created_at: seconds(w.createdAt),
    updated_at: seconds(w.updatedAt),
  };
}

/** One step of an execution. */
function stepJson(s: ExecutionStep) {
  return {
    name: s.name,
    status: s.status,
    return_value: s.returnValue ?? null,
    exports: s.exports ?? {},
    summary: s.summary ?? null,
    logs: s.logs,
    error: s.error ?? null,
    started_at: secondsOrNull(s.startedAt),
    started_at_ms: s.startedAt ?? null,
    duration_ms: s.durationMs ?? null,
    attempts: s.attempts,
    attempt_errors: s.attemptErrors ?? [],
    ...(s.resumeData !== undefined ? { resume_data: s.resumeData } : {}),
    ...(s.pause !== undefined ? { pause: s.pause } : {}),
    replayed_from: s.replayedFrom ?? null,
  };
}

/** An execution with its steps. */
export function executionJson(e: ExecutionView) {
  return {
    id: e.id,
    workflow_id: e.workflowId,
    status: e.status,
    trigger: e.trigger,
    event: e.event ?? null,
    context: e.context ?? null,
    replay_of: typeof e.context?.replay_of === "string" ? e.context.replay_of : null,
    steps: e.steps.map(stepJson),
    exit_reason: e.exitReason ?? null,
    error: e.error ?? null,
    created_at: seconds(e.createdAt),
    started_at: secondsOrNull(e.startedAt),
    started_at_ms: e.startedAt ?? null,
    finished_at: secondsOrNull(e.finishedAt),
    finished_at_ms: e.finishedAt ?? null,
    run_at_ms: e.runAt ?? null,
  };
}

/** An environment variable: its name, never its value. */
export function envJson(v: EnvVarView) {
  return { name: v.name, created_at: seconds(v.createdAt), updated_at: seconds(v.updatedAt) };
}
