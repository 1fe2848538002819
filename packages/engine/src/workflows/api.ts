/**
 * `hookline.workflows`: create, read, update (activate and deactivate through `active`), delete and
 * run workflows; their executions and events. And the engine's workflow machinery in one object
 * ({@link createWorkflows}): the step caches, the executor, the triggers' entry points.
 */
import { HooklineError } from "@hookline/core";
import type { Timer, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { searchEvents } from "../event-search.js";
import type { IngressRequest } from "../http-event.js";
import type { IngressResponse } from "../types.js";
import { notFound, prepareWorkflow } from "./definition.js";
import { createEnvApi } from "./env.js";
import { createExecutor, type Executor, queueFull } from "./executor.js";
import { useFlowToken } from "./flow-tokens.js";
import { replayExecution, replayMany } from "./replay.js";
import { checkEventSize } from "./run-size.js";
import { createStepCache, disposeSteps, forgetWorkflow, type StepCache } from "./steps.js";
import { wfStores } from "./stores.js";
import { testRun } from "./test-run.js";
import { createTriggerCache } from "./trigger-cache.js";
import { onSourceEvent, scheduleWorkflowTimer, workflowIngress, workflowTick } from "./triggers.js";
import type { EnvApi, WorkflowsApi } from "./types.js";
import { executionView, workflowView } from "./views.js";

/** The workflow machinery of one engine. @internal */
export interface Workflows {
  api: WorkflowsApi;
  env: EnvApi;
  executor: Executor;
  cache: StepCache;
  /** Answers a request to `wf`'s endpoint (as the engine's endpoint registry resolved it). */
  ingress(wf: Workflow, request: IngressRequest): Promise<IngressResponse>;
  /** A claimed timer tick of a workflow (`p_`); true when it fired. */
  tick(timer: Timer): Promise<boolean>;
  /** Starts the claim loop. */
  start(pollMs: number): void;
  /** Stops it, waits for running executions and frees the sandboxes. */
  close(): Promise<void>;
}

/** Builds the workflow machinery and subscribes it to the engine's emits (source triggers). @internal */
export function createWorkflows(
  ctx: EngineContext,
  leaseMs: number | undefined,
  onEmit: (handler: OnEmit) => void,
): Workflows {
  const cache = createStepCache();
  const executor = createExecutor(ctx, cache, leaseMs);
  const stores = () => wfStores(ctx.store);
  const view = async (w: Workflow) => {
    const v = workflowView(w, ctx.baseUrl);
    const timer = w.trigger.type === "timer" ? await ctx.store.timers.get(w.workspaceId, w.id) : undefined;
    if (timer) v.nextRunAt = timer.nextAt;
    return v;
  };
  const find = async (workspaceId: string, id: string): Promise<Workflow> => {
    const wf = await stores().workflows.get(workspaceId, id);
    if (!wf) throw notFound(id);
    return wf;
  };
  const findExecution = async (workspaceId: string, id: string, executionId: string) => {
    const exe = await stores().executions.get(workspaceId, executionId);
    if (!exe || exe.workflowId !== id) {
      throw new HooklineError("not_found", `No execution ${executionId} of workflow ${id}`);
    }
    return exe;
  };

  const triggers = createTriggerCache(ctx);
  onEmit((workspaceId, sourceId, event) => {
    void onSourceEvent(executor, triggers, workspaceId, sourceId, event).catch(() => undefined);
  });

  const api: WorkflowsApi = {
    async create(workspaceId, definition) {
      const prepared = await prepareWorkflow(ctx, cache, workspaceId, definition);
      const wf = await stores().workflows.create({ workspaceId, ...prepared });
      triggers.forget();
      await scheduleWorkflowTimer(ctx, wf);
      return view(wf);
    },
    async get(workspaceId, id) {
      return view(await find(workspaceId, id));
    },
    async list(workspaceId, options) {
      const page = await stores().workflows.list(workspaceId, options);
      return { ...page, items: await Promise.all(page.items.map(view)) };
    },
    async update(workspaceId, id, update) {
      const previous = await find(workspaceId, id);
      const prepared = await prepareWorkflow(ctx, cache, workspaceId, update, previous);
      const wf = await stores().workflows.update(workspaceId, id, {
        ...prepared,
        endpointId: prepared.endpointId ?? null,
        sourceId: prepared.sourceId ?? null,
        settings: prepared.settings ?? null,
        limits: prepared.limits ?? null,
      });
      triggers.forget();
      ctx.endpoints.forget(id);
      if (!wf) throw notFound(id);
      forgetWorkflow(cache, id);
      await scheduleWorkflowTimer(ctx, wf);
      return view(wf);
    },
    async delete(workspaceId, id) {
      const deleted = await stores().workflows.delete(workspaceId, id);
      triggers.forget();
      ctx.endpoints.forget(id);
      if (!deleted) throw notFound(id);
      forgetWorkflow(cache, id);
      await ctx.store.timers.delete(id);
    },
    async run(workspaceId, id, options = {}) {
      const wf = await find(workspaceId, id);
      checkEventSize(ctx.limits.maxExecutionBytes, options.event ?? {});
      const input = {
        trigger: "manual" as const,
        event: options.event ?? {},
        context: { trigger: "manual" },
      };
      const retryAfter = await queueFull(ctx, wf);
      if (retryAfter !== undefined) {
        throw new HooklineError(
          "rate_limited",
          `This workflow's queue is full (queue_size ${wf.limits?.queueSize})`,
          {
            retry_after: retryAfter,
          },
        );
      }
      const exe = options.async ? await executor.enqueue(wf, input) : await executor.runNow(wf, input);
      return executionView(exe);
    },
    async test(workspaceId, id, options) {
      return executionView(await testRun(ctx, cache, executor, await find(workspaceId, id), options));
    },
    async executions(workspaceId, id, options) {
      await find(workspaceId, id);
      const page = await stores().executions.list(workspaceId, id, options);
      return { ...page, items: page.items.map(executionView) };
    },
    async execution(workspaceId, id, executionId) {
      await find(workspaceId, id);
      return executionView(await findExecution(workspaceId, id, executionId));
    },
    async replay(workspaceId, id, executionId, options) {
      const wf = await find(workspaceId, id);
      const original = await findExecution(workspaceId, id, executionId);
      return executionView(await replayExecution(ctx, executor, wf, original, options));
    },
    async replayMany(workspaceId, id, options) {
      return replayMany(ctx, executor, await find(workspaceId, id), options);
    },
    async events(workspaceId, id, options) {
      await find(workspaceId, id);
      return searchEvents(ctx.store, workspaceId, id, options);
    },
    async deleteEvents(workspaceId, id, ids) {
      await find(workspaceId, id);
      return ctx.store.events.delete(workspaceId, id, ids);
    },
    flow: (kind, executionId, token, data) => useFlowToken(ctx, executor, kind, executionId, token, data),
  };

  return {
    api,
    env: createEnvApi(ctx),
    executor,
    cache,
    async ingress(wf, request) {
      const target = { kind: "workflow", workspaceId: wf.workspaceId, emitterId: wf.id } as const;
      const reply =
        (wf.active && request.admit?.(target)) || (await workflowIngress(ctx, executor, wf, request));
      reply.target = target;
      return reply;
    },
    tick: (timer) => workflowTick(ctx, executor, timer),
    start: (pollMs) => executor.start(pollMs),
    async close() {
      await executor.close();
      disposeSteps(cache);
    },
  };
}

/** A handler of the engine's stored events (`emit`), for source triggers. @internal */
export type OnEmit = (
  workspaceId: string,
  sourceId: string,
  event: import("@hookline/store").StoredEvent,
) => void;
