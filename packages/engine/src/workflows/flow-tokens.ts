/**
 * The resume and cancel URLs of a paused run (`/v1/flow/{exe_id}/resume|cancel?token=`): the
 * token, hashed, is looked up and used once in one store statement.
 */
import { HooklineError } from "@hookline/core";
import type { EngineContext } from "../context.js";
import { hashToken } from "./durable.js";
import type { Executor } from "./executor.js";
import { wfStores } from "./stores.js";
import type { ExecutionView } from "./types.js";
import { executionView } from "./views.js";

/** Resumes or cancels a paused run by its token (404 `not_found` otherwise). @internal */
export async function useFlowToken(
  ctx: EngineContext,
  executor: Executor,
  kind: "resume" | "cancel",
  executionId: string,
  token: string,
  data: unknown,
): Promise<ExecutionView> {
  const { executions } = wfStores(ctx.store);
  const now = ctx.clock.now();
  const exe =
    typeof token === "string" && token !== ""
      ? await executions.useToken(executionId, kind, hashToken(token), now, data)
      : undefined;
  if (!exe) {
    throw new HooklineError(
      "not_found",
      `No paused run ${executionId} with this ${kind} token (tokens work once, while the run is paused)`,
    );
  }
  if (kind === "resume") executor.wake();
  else if (exe.steps.some((s) => s.status === "pending")) {
    const steps = exe.steps.map((s) => (s.status === "pending" ? { ...s, status: "skipped" as const } : s));
    await executions.update(exe.workspaceId, exe.id, { steps });
    exe.steps = steps;
  }
  ctx.notify("execution", {
    workspaceId: exe.workspaceId,
    workflowId: exe.workflowId,
    executionId: exe.id,
    status: exe.status,
  });
  return executionView(exe);
}
