/**
 * What a workflow step does besides its result: its `$.send.*` calls (carried out after the step),
 * its emits (stored with their deliveries), and its `$.respond()` replies (validated by core).
 */
import type { InvocationResult } from "@hookline/runtime";
import type { Execution, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { commitEmits, screenEmits } from "../emit-pipeline.js";
import { respondReply } from "../http-event.js";
import type { IngressResponse } from "../types.js";
import { sendExternal } from "./send-external.js";

/** Carries out a step's `$.send.*` calls; the first failing external send throws. @internal */
export async function carryOutSends(
  ctx: EngineContext,
  wf: Workflow,
  exe: Execution,
  step: string,
  sends: InvocationResult["sends"],
  log: (level: string, message: string) => void,
): Promise<void> {
  const emits: { event: unknown; meta: Record<string, unknown> }[] = [];
  for (const send of sends) {
    if (send.kind === "emit") {
      const p = (send.payload ?? {}) as Record<string, unknown>;
      const event = p && typeof p === "object" && "raw_event" in p ? p.raw_event : p;
      const meta: Record<string, unknown> = {};
      if (typeof p.name === "string" && p.name !== "") meta.name = p.name;
      if (typeof p.summary === "string") meta.summary = p.summary;
      emits.push({ event, meta });
    } else if (send.kind === "sse") {
      ctx.notify("sse", {
        workspaceId: wf.workspaceId,
        workflowId: wf.id,
        executionId: exe.id,
        step,
        payload: send.payload,
        ts: ctx.clock.now(),
      });
    } else {
      await sendExternal(
        ctx,
        { workspaceId: wf.workspaceId, workflowId: wf.id, executionId: exe.id, step },
        { kind: send.kind, payload: send.payload },
      );
    }
  }
  if (emits.length === 0) return;
  const screened = screenEmits(ctx.limits, emits as never);
  for (const line of screened.lines) log("error", line);
  await emitFromWorkflow(ctx, wf, screened.accepted);
}

/** Stores events emitted by a workflow (with their deliveries, atomically) and tells observers. @internal */
export async function emitFromWorkflow(
  ctx: EngineContext,
  wf: { id: string; workspaceId: string },
  emits: Parameters<typeof commitEmits>[3],
): Promise<void> {
  if (emits.length === 0) return;
  const appended = await commitEmits(ctx, wf, undefined, emits);
  for (const { deliveryIds, ...event } of appended) {
    ctx.notify("emit", { workspaceId: wf.workspaceId, sourceId: wf.id, event, deliveryIds });
  }
  if (appended.some((e) => e.deliveryIds.length > 0)) ctx.wakeWorker();
}

/** The HTTP reply of a `$.respond()` call (`immediate` dropped), or 502 `invalid_respond`. @internal */
export function replyFor(call: unknown, log: (level: string, message: string) => void): IngressResponse {
  const { immediate: _i, ...rest } = (call ?? {}) as Record<string, unknown>;
  const { reply, logs } = respondReply(rest, "$.respond()");
  for (const line of logs) log(line.level, line.message);
  return reply;
}
