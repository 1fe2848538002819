/**
 * A run of a stored source, in two stages. The sandbox stage runs in the source's invocation queue
 * (`mounts.exclusive`: one call into a sandbox at a time, and `$.service.db` reads and writes in
 * invocation order). The store stage (the emit pipeline, which writes the logs with the events in
 * one store step; the `invocation` event) runs after
 * the queue has moved on to the next invocation, so that concurrent requests to one source share
 * the store's group commit instead of waiting for each other's transactions. Dedupe needs no queue
 * of its own: the store decides it inside the emit commit, under the lock of the source's dedupe
 * state, on every node alike. See docs/engine.md, "Concurrency".
 */
import type { InvocationResult } from "@hookline/runtime";
import type { DeployedComponent } from "@hookline/store";
import type { EngineContext } from "./context.js";
import { type EmitOutcome, storeEmits } from "./emit-pipeline.js";

/** What started a run (`apphook`: another source's event, through a subscription). */
export type RunTrigger = "http" | "timer" | "manual" | "apphook";

/** A run's result and what the emit pipeline made of its emits. */
export interface RunOutcome extends EmitOutcome {
  result: InvocationResult;
}

/**
 * Runs a stored source with `event`, in its invocation queue (`source_busy`, 429, when the queue
 * is full): the sandbox's `run`, then its logs and emits stored together by the pipeline, an
 * `invocation` event for observers. A component error is in `result.error`, not thrown. @internal
 */
export async function runSource(
  ctx: EngineContext,
  source: DeployedComponent,
  event: unknown,
  trigger: RunTrigger,
): Promise<RunOutcome> {
  const ran = await ctx.mounts.exclusive(source.id, async () => {
    const component = await ctx.mounts.component(source.workspaceId, source.savedComponentId);
    const mounted = await ctx.mounts.mounted(source);
    // The engine's notes about the source's accounts (refreshed, needs reconnect) open the run's logs.
    const ts = ctx.clock.now();
    const notes = ctx.mounts.authNotes(source.id).map((n) => ({ ...n, ts }));
    // The sandbox knows http (its shorter deadline), timer and manual runs; a fed event runs as manual.
    const result = await mounted.run(event, { trigger: trigger === "apphook" ? "manual" : trigger });
    const store = async (): Promise<RunOutcome> => {
      // The run's lines go with its emits: one store step (and round trip) for both.
      const logs = notes.length > 0 ? [...notes, ...result.logs] : result.logs;
      const outcome = await storeEmits(ctx, source, component.description, result.emits, logs);
      ctx.notify("invocation", {
        workspaceId: source.workspaceId,
        sourceId: source.id,
        kind: "run",
        trigger,
        durationMs: result.durationMs,
        ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
      });
      return { result, ...outcome };
    };
    const stored = store();
    stored.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
    return { stored: ctx.mounts.track(source.id, stored) };
  });
  return ran.stored;
}
