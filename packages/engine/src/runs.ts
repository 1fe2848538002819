import type { InvocationResult } from "@hookline/runtime";
import type { DeployedComponent } from "@hookline/store";
import { componentOrThrow, type EngineContext } from "./context.js";
import { type EmitOutcome, storeEmits } from "./emit-pipeline.js";
import { writeLogs } from "./source-logs.js";

/** What started a run. */
export type RunTrigger = "http" | "timer" | "manual";

/** A run's result and what the emit pipeline made of its emits. */
export interface RunOutcome extends EmitOutcome {
  result: InvocationResult;
}

/**
 * Runs a stored source with `event`, in its invocation queue (`source_busy`, 429, when the queue
 * is full): the sandbox's `run`, its logs written, its emits through the pipeline, an `invocation`
 * event for observers. A component error is in `result.error`, not thrown. @internal
 */
export function runSource(
  ctx: EngineContext,
  source: DeployedComponent,
  event: unknown,
  trigger: RunTrigger,
): Promise<RunOutcome> {
  return ctx.mounts.exclusive(source.id, async () => {
    const component = await componentOrThrow(ctx, source.workspaceId, source.savedComponentId);
    const mounted = await ctx.mounts.mounted(source);
    const result = await mounted.run(event);
    await writeLogs(ctx, source.workspaceId, source.id, result.logs);
    const outcome = await storeEmits(ctx, source, component.description, result.emits);
    ctx.notify("invocation", {
      workspaceId: source.workspaceId,
      sourceId: source.id,
      kind: "run",
      trigger,
      durationMs: result.durationMs,
      ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    });
    return { result, ...outcome };
  });
}
