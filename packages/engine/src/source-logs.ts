/**
 * A source's logs: what its invocations printed and the engine's own lines about it (refused
 * events, missed timer ticks), each kept within `retention.logs` and `retention.logBytes` and announced to observers.
 */
import type { InvocationResult } from "@hookline/runtime";
import type { LogLine } from "@hookline/store";
import type { EngineContext } from "./context.js";

/** What the log writers use of the context. */
type LogContext = Pick<EngineContext, "store" | "retention" | "notify" | "clock">;

/** Appends an invocation's log lines to the source's logs and marks it for retention. @internal */
export async function writeLogs(
  ctx: LogContext,
  workspaceId: string,
  sourceId: string,
  lines: InvocationResult["logs"],
): Promise<void> {
  if (lines.length === 0) return;
  announceLogs(ctx, workspaceId, sourceId, await ctx.store.logs.append(workspaceId, sourceId, lines));
}

/**
 * What follows stored log lines (by {@link writeLogs}, or with a run's emits in the store's
 * `emits.commitRun`): the source marked for retention, observers told. @internal
 */
export function announceLogs(
  ctx: Pick<LogContext, "retention" | "notify">,
  workspaceId: string,
  sourceId: string,
  stored: LogLine[],
): void {
  if (stored.length === 0) return;
  ctx.retention.touch(sourceId); // trimmed later, off this path
  ctx.notify("log", { workspaceId, sourceId, lines: stored });
}

/** Writes one line of the engine's own to the source's logs. @internal */
export function systemLog(
  ctx: LogContext,
  source: { id: string; workspaceId: string },
  level: "info" | "warn" | "error",
  message: string,
): Promise<void> {
  return writeLogs(ctx, source.workspaceId, source.id, [{ level, message, ts: ctx.clock.now() }]);
}
