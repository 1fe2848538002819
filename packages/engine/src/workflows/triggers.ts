/**
 * The triggers of workflows: the HTTP endpoint (`/http/{endpoint_id}`, answered by `$.respond` or
 * `{"success":true,"execution_id"}` once accepted), timers (on the store's timer queue, one tick per
 * node cluster), and sources (every stored event of the listened source and channel).
 */
import {
  channelName,
  type HooklineError,
  nextFireAt,
  planTick,
  type TimerConfig,
  timerEvent,
  WORKFLOW_ERRORS_CHANNEL,
} from "@hookline/core";
import type { StoredEvent, Timer, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { errorReply, type IngressRequest, jsonReply, toHttpEvent } from "../http-event.js";
import type { IngressResponse } from "../types.js";
import { type Executor, queueFull } from "./executor.js";
import { checkEventSize } from "./run-size.js";
import { wfStores } from "./stores.js";
import type { TriggerCache } from "./trigger-cache.js";

/** The timer configuration of a timer trigger. */
function timerConfig(trigger: Record<string, unknown>): TimerConfig {
  const { type: _t, ...config } = trigger;
  return config as TimerConfig;
}

/** Schedules the workflow's timer when it is an active timer workflow, removes it otherwise. @internal */
export async function scheduleWorkflowTimer(ctx: EngineContext, wf: Workflow): Promise<void> {
  if (wf.trigger.type !== "timer" || !wf.active) {
    await ctx.store.timers.delete(wf.id);
    return;
  }
  await ctx.store.timers.upsert({
    componentId: wf.id,
    workspaceId: wf.workspaceId,
    nextAt: nextFireAt(timerConfig(wf.trigger), ctx.clock.now()),
  });
}

/** A claimed timer tick of a workflow: advanced, then queued as an execution; true when it fired. @internal */
export async function workflowTick(ctx: EngineContext, executor: Executor, timer: Timer): Promise<boolean> {
  const wf = await wfStores(ctx.store).workflows.get(timer.workspaceId, timer.componentId);
  if (!wf?.active || wf.trigger.type !== "timer") {
    await ctx.store.timers.delete(timer.componentId);
    return false;
  }
  const config = timerConfig(wf.trigger);
  const plan = planTick(config, timer.nextAt, ctx.clock.now());
  if (!(await ctx.store.queue.timers.advance(wf.id, ctx.nodeId, timer.nextAt, plan.next))) return false;
  if (!plan.fire) return false;
  await executor.enqueue(wf, {
    trigger: "timer",
    event: timerEvent(config, timer.nextAt),
    context: { trigger: "timer", ts: timer.nextAt },
  });
  return true;
}

/** Answers a request to a workflow's endpoint. @internal */
export async function workflowIngress(
  ctx: EngineContext,
  executor: Executor,
  wf: Workflow,
  request: IngressRequest,
): Promise<IngressResponse> {
  if (!wf.active) {
    return errorReply(404, "not_found", "This workflow is inactive: activate it to receive requests");
  }
  const retryAfter = await queueFull(ctx, wf);
  if (retryAfter !== undefined) {
    const message = `This workflow's queue is full (queue_size ${wf.limits?.queueSize})`;
    return errorReply(429, "rate_limited", message, { headers: { "retry-after": String(retryAfter) } });
  }
  const event = toHttpEvent(request);
  try {
    checkEventSize(ctx.limits.maxExecutionBytes, event);
  } catch (error) {
    const { code, message, details } = error as HooklineError;
    return errorReply(413, code, message, { details });
  }
  const context = { trigger: "http", endpoint_id: wf.endpointId, ts: ctx.clock.now() };
  if (wf.trigger.custom_response !== true) {
    const exe = await executor.accept(wf, { trigger: "http", event, context });
    return jsonReply(200, { success: true, execution_id: exe.id });
  }
  return new Promise<IngressResponse>((resolve, reject) => {
    executor.runNow(wf, { trigger: "http", event, context }, { onRespond: resolve }).catch(reject);
  });
}

/**
 * Whether a `$errors` event of a workflow starts the workflows listening to it: not when the failed
 * run was itself started by a workflow's `$errors` (an error handler's failure is still emitted
 * and delivered to webhooks, but starts no further workflow, so that handlers cannot loop).
 */
function startsWorkflows(sourceId: string, event: StoredEvent): boolean {
  if (sourceId.startsWith("dc_")) return true;
  if (!sourceId.startsWith("p_") || event.channel !== WORKFLOW_ERRORS_CHANNEL) return false;
  const context = (event.body as { original_context?: Record<string, unknown> } | null)?.original_context;
  return !(
    context?.name === WORKFLOW_ERRORS_CHANNEL &&
    typeof context.source_id === "string" &&
    context.source_id.startsWith("p_")
  );
}

/**
 * Starts the workflows listening to a source on one of its stored events (this node's own emits:
 * the node that stored an event starts its workflows), or to a workflow's `$errors`. @internal
 */
export async function onSourceEvent(
  executor: Executor,
  triggers: TriggerCache,
  workspaceId: string,
  sourceId: string,
  event: StoredEvent,
): Promise<void> {
  if (!startsWorkflows(sourceId, event)) return;
  for (const wf of await triggers.bySource(workspaceId, sourceId)) {
    if (channelName(wf.trigger.event_name as string | undefined) !== event.channel) continue;
    await executor.enqueue(wf, {
      trigger: "source",
      event: event.body,
      context: {
        trigger: "source",
        source_id: sourceId,
        emit_id: event.id,
        name: event.channel,
        summary: event.summary,
        ts: event.ts,
      },
    });
  }
}
