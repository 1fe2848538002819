/**
 * Replaying executions: a new execution of the workflow (its current version) with the original
 * event or an edited one, from the first step, or from a chosen step with the earlier steps'
 * recorded results copied (`succeeded`, `replayedFrom`; the runner does not run them again). The
 * new execution's context is the original's with `replay_of`; it is queued for any node to claim.
 * And bulk replay: the failed executions of a time window, a bounded number per call.
 */
import { HooklineError, isId, newId } from "@hookline/core";
import type { Execution, ExecutionStatus, ExecutionStep, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import type { Executor } from "./executor.js";
import { checkEventSize } from "./run-size.js";
import { pendingStep } from "./runner.js";
import { wfStores } from "./stores.js";
import type { BulkReplayOptions, BulkReplayResult, ExecutionReplayOptions } from "./types.js";

/** Most executions one bulk replay queues. */
export const MAX_BULK_REPLAY = 100;

/** `validation_failed` (422) naming one field. @internal */
export function invalid(path: string, message: string): HooklineError {
  return new HooklineError("validation_failed", `Invalid parameters: ${path}: ${message}`, {
    problems: [{ code: "invalid_value", path, message }],
  });
}

/** The step records a replay starts with: copies before `fromStep`, `pending` from it. @internal */
export function replaySteps(
  wf: Workflow,
  original: Execution,
  fromStep: string | undefined,
): ExecutionStep[] {
  const names = wf.steps.map((s) => String(s.name));
  const from = fromStep === undefined ? 0 : names.indexOf(fromStep);
  if (from < 0) {
    throw invalid("from_step", `no step ${fromStep} in workflow ${wf.id} (its steps: ${names.join(", ")})`);
  }
  return names.map((name, i) => {
    if (i >= from) return pendingStep(name);
    const recorded = original.steps.find((s) => s.name === name);
    if (recorded?.status !== "succeeded") {
      throw invalid(
        "from_step",
        `step ${name} did not succeed in ${original.id} (${recorded?.status ?? "absent"}): replay from ${name} or an earlier step`,
      );
    }
    return { ...structuredClone(recorded), replayedFrom: original.id };
  });
}

/** Queues a replay of `original` (an execution of `wf`); resolves with the `queued` execution. @internal */
export async function replayExecution(
  ctx: EngineContext,
  executor: Executor,
  wf: Workflow,
  original: Execution,
  options: ExecutionReplayOptions = {},
): Promise<Execution> {
  const steps = replaySteps(wf, original, options.fromStep);
  const event = options.event !== undefined ? options.event : original.event;
  checkEventSize(ctx.limits.maxExecutionBytes, event);
  const exe = await wfStores(ctx.store).executions.create({
    workspaceId: wf.workspaceId,
    workflowId: wf.id,
    trigger: original.trigger,
    event: event ?? {},
    context: { ...(original.context ?? {}), replay_of: original.id },
    status: "queued",
    steps,
  });
  ctx.notify("execution", {
    workspaceId: wf.workspaceId,
    workflowId: wf.id,
    executionId: exe.id,
    status: "queued",
  });
  executor.wake();
  return exe;
}

/** The `before` cursor of executions created before `until` (ids sort by creation time). */
const beforeTime = (until: number): string => `${newId("exe", until).slice(0, 14)}${"0".repeat(16)}`;

/** Replays the executions of `wf` in `status` (default `failed`) within a window. @internal */
export async function replayMany(
  ctx: EngineContext,
  executor: Executor,
  wf: Workflow,
  options: BulkReplayOptions = {},
): Promise<BulkReplayResult> {
  const status: ExecutionStatus = options.status ?? "failed";
  if (!["failed", "succeeded", "exited"].includes(status)) {
    throw invalid("status", `replay takes executions that ended: failed, succeeded or exited, not ${status}`);
  }
  if (options.after !== undefined && !isId(options.after, "exe")) {
    throw invalid("after", "after must be the next_cursor of a previous call (an exe_... id)");
  }
  const limit = Math.min(Math.max(Math.floor(options.limit ?? 50), 1), MAX_BULK_REPLAY);
  const { executions } = wfStores(ctx.store);
  let before = options.after ?? (options.until !== undefined ? beforeTime(options.until) : undefined);
  const picked: Execution[] = [];
  let more = false;
  scan: for (;;) {
    const page = await executions.list(wf.workspaceId, wf.id, {
      status,
      limit: 100,
      ...(before ? { before } : {}),
    });
    for (const exe of page.items) {
      if (options.since !== undefined && exe.createdAt < options.since) break scan;
      if (picked.length === limit) {
        more = true;
        break scan;
      }
      picked.push(exe);
    }
    if (!page.nextCursor) break;
    before = page.nextCursor;
  }
  const replays: BulkReplayResult["executions"] = [];
  for (const original of picked) {
    const exe = await replayExecution(ctx, executor, wf, original);
    replays.push({ id: exe.id, replayOf: original.id });
  }
  const last = picked[picked.length - 1];
  return { queued: replays.length, executions: replays, ...(more && last ? { nextCursor: last.id } : {}) };
}
