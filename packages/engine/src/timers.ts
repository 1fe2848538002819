/**
 * Timer sources: their schedule in the store (one row per active timer source), the tick that
 * runs what is due (claimed in the store, so each tick runs once across nodes; after downtime one
 * catch-up run and a log line), and the loop that ticks once `start()` ran.
 */
import {
  type ComponentDescription,
  HooklineError,
  nextFireAt,
  planTick,
  type TimerConfig,
  timerEvent,
} from "@hookline/core";
import type { DeployedComponent, Timer } from "@hookline/store";
import { componentOrThrow, type EngineContext } from "./context.js";
import { timerPropOf } from "./interfaces.js";
import { runSource } from "./runs.js";
import { systemLog } from "./source-logs.js";

/** How long a node holds a claimed timer before another node may take it over. */
const CLAIM_MS = 60_000;
/** Timers claimed per tick. */
const CLAIM_BATCH = 100;

/** Schedules a source's next tick, or removes its timer (not a timer source, or inactive). @internal */
export async function scheduleTimer(
  ctx: Pick<EngineContext, "store" | "clock">,
  source: DeployedComponent,
  description: ComponentDescription,
): Promise<void> {
  const name = timerPropOf(description);
  if (!name || !source.active) {
    await ctx.store.timers.delete(source.id);
    return;
  }
  const config = source.props[name] as TimerConfig;
  await ctx.store.timers.upsert({
    componentId: source.id,
    workspaceId: source.workspaceId,
    nextAt: nextFireAt(config, ctx.clock.now()),
  });
}

/** The event of a manual run of a timer source: a timer event for now (else `undefined`). @internal */
export function manualTimerEvent(
  ctx: Pick<EngineContext, "clock">,
  source: DeployedComponent,
  description: ComponentDescription,
): unknown {
  const name = timerPropOf(description);
  return name ? timerEvent(source.props[name] as TimerConfig, ctx.clock.now()) : undefined;
}

/**
 * Runs every timer due now, once each; resolves with how many fired. Timers of workflows (`p_`)
 * go to `workflowTick`. @internal
 */
export async function tick(
  ctx: EngineContext,
  workflowTick?: (timer: Timer) => Promise<boolean>,
): Promise<number> {
  const now = ctx.clock.now();
  const due = await ctx.store.queue.timers.claim({
    now,
    owner: ctx.nodeId,
    leaseMs: CLAIM_MS,
    limit: CLAIM_BATCH,
  });
  let fired = 0;
  for (const timer of due) {
    if (timer.componentId.startsWith("p_") && workflowTick) {
      if (await workflowTick(timer).catch(() => false)) fired++;
      continue;
    }
    const source = await ctx.store.deployedComponents.get(timer.workspaceId, timer.componentId);
    if (!source?.active) {
      await ctx.store.timers.delete(timer.componentId);
      continue;
    }
    const component = await componentOrThrow(ctx, source.workspaceId, source.savedComponentId);
    const name = timerPropOf(component.description);
    if (!name) continue;
    const config = source.props[name] as TimerConfig;
    const plan = planTick(config, timer.nextAt, now);
    if (!(await ctx.store.queue.timers.advance(source.id, ctx.nodeId, timer.nextAt, plan.next))) continue;
    if (!plan.fire) continue;
    if (plan.missed > 0) {
      await systemLog(
        ctx,
        source,
        "warn",
        `timer: ${plan.missed} tick(s) missed while down; one catch-up run`,
      );
    }
    try {
      await runSource(ctx, source, timerEvent(config, timer.nextAt), "timer");
      fired++;
    } catch (error) {
      if (!(error instanceof HooklineError) || error.code !== "source_busy") throw error;
      // Never a burst: this tick is skipped, the next one runs as scheduled.
      await systemLog(ctx, source, "warn", `timer: tick skipped: ${error.message}`);
    }
  }
  return fired;
}

/** The timer loop: {@link tick} every `pollMs` once started, until stopped. @internal */
export function createTimerLoop(runTick: () => Promise<number>, pollMs: number) {
  let handle: NodeJS.Timeout | undefined;
  let stopped = false;
  const loop = () => {
    handle = setTimeout(() => {
      runTick()
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) loop();
        });
    }, pollMs);
    handle.unref?.();
  };
  return {
    start(): void {
      if (handle || stopped) return;
      loop();
    },
    stop(): void {
      stopped = true;
      if (handle) clearTimeout(handle);
    },
  };
}
