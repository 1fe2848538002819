/**
 * A source's logs: what its invocations printed and the engine's own lines about it (refused
 * events, missed timer ticks), each kept within `retention.logs` and `retention.logBytes` and announced to observers.
 */
import type { InvocationResult } from "@hookline/runtime";
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
  const stored = await ctx.store.logs.append(workspaceId, sourceId, lines);
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
