/**
 * `hookline.workflows`: create, read, update (activate and deactivate through `active`), delete and
 * run workflows; their executions and events. And the engine's workflow machinery in one object
 * ({@link createWorkflows}): the step caches, the executor, the triggers' entry points.
 */
import { HooklineError } from "@hookline/core";
import type { Timer, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import type { IngressRequest } from "../http-event.js";
import type { IngressResponse } from "../types.js";
import { notFound, prepareWorkflow } from "./definition.js";
import { createEnvApi } from "./env.js";
import { createExecutor, type Executor } from "./executor.js";
import { createStepCache, disposeSteps, forgetWorkflow, type StepCache } from "./steps.js";
import { wfStores } from "./stores.js";
import { onSourceEvent, scheduleWorkflowTimer, workflowIngress, workflowTick } from "./triggers.js";
import type { EnvApi, WorkflowsApi } from "./types.js";
import { executionView, workflowView } from "./views.js";

/** How many workflow endpoints a node remembers (then it starts over). */
const MAX_KNOWN_ENDPOINTS = 10_000;

/** The workflow machinery of one engine. @internal */
export interface Workflows {
  api: WorkflowsApi;
  env: EnvApi;
  executor: Executor;
  cache: StepCache;
  /** The workflow listening at `endpointId`, answered; undefined when no workflow listens there. */
  ingress(endpointId: string, request: IngressRequest): Promise<IngressResponse | undefined>;
  /** Whether `endpointId` was a workflow's when last seen on this node (look there first). */
  knowsEndpoint(endpointId: string): boolean;
  /** A claimed timer tick of a workflow (`p_`); true when it fired. */
  tick(timer: Timer): Promise<boolean>;
  /** Starts the claim loop. */
  start(pollMs: number): void;
  /** Stops it, waits for running executions and frees the sandboxes. */
  close(): Promise<void>;
}

/** Builds the workflow machinery and subscribes it to the engine's emits (source triggers). @internal */
export function createWorkflows(ctx: EngineContext, onEmit: (handler: OnEmit) => void): Workflows {
  const cache = createStepCache();
  // Endpoints seen to be workflows': their requests skip the source lookup (the store is still read).
  const endpoints = new Set<string>();
  const executor = createExecutor(ctx, cache);
  const stores = () => wfStores(ctx.store);
  const view = (w: Workflow) => workflowView(w, ctx.baseUrl);
  const find = async (workspaceId: string, id: string): Promise<Workflow> => {
    const wf = await stores().workflows.get(workspaceId, id);
    if (!wf) throw notFound(id);
    return wf;
  };

  onEmit((workspaceId, sourceId, event) => {
    void onSourceEvent(ctx, executor, workspaceId, sourceId, event).catch(() => undefined);
  });

  const api: WorkflowsApi = {
    async create(workspaceId, definition) {
      const prepared = await prepareWorkflow(ctx, cache, workspaceId, definition);
      const wf = await stores().workflows.create({ workspaceId, ...prepared });
      await scheduleWorkflowTimer(ctx, wf);
      return view(wf);
    },
    async get(workspaceId, id) {
      return view(await find(workspaceId, id));
    },
    async list(workspaceId, options) {
      const page = await stores().workflows.list(workspaceId, options);
      return { ...page, items: page.items.map(view) };
    },
    async update(workspaceId, id, update) {
      const previous = await find(workspaceId, id);
      const prepared = await prepareWorkflow(ctx, cache, workspaceId, update, previous);
      const wf = await stores().workflows.update(workspaceId, id, {
        ...prepared,
        endpointId: prepared.endpointId ?? null,
        sourceId: prepared.sourceId ?? null,
      });
      if (!wf) throw notFound(id);
      forgetWorkflow(cache, id);
      await scheduleWorkflowTimer(ctx, wf);
      return view(wf);
    },
    async delete(workspaceId, id) {
      if (!(await stores().workflows.delete(workspaceId, id))) throw notFound(id);
      forgetWorkflow(cache, id);
      await ctx.store.timers.delete(id);
    },
    async run(workspaceId, id, options = {}) {
      const wf = await find(workspaceId, id);
      const input = {
        trigger: "manual" as const,
        event: options.event ?? {},
        context: { trigger: "manual" },
      };
      const exe = options.async ? await executor.enqueue(wf, input) : await executor.runNow(wf, input);
      return executionView(exe);
    },
    async executions(workspaceId, id, options) {
      await find(workspaceId, id);
      const page = await stores().executions.list(workspaceId, id, options);
      return { ...page, items: page.items.map(executionView) };
    },
    async execution(workspaceId, id, executionId) {
      await find(workspaceId, id);
      const exe = await stores().executions.get(workspaceId, executionId);
      if (!exe || exe.workflowId !== id) {
        throw new HooklineError("not_found", `No execution ${executionId} of workflow ${id}`);
      }
      return executionView(exe);
    },
    async events(workspaceId, id, options) {
      await find(workspaceId, id);
      return ctx.store.events.list(workspaceId, id, options);
    },
    async deleteEvents(workspaceId, id, ids) {
      await find(workspaceId, id);
      return ctx.store.events.delete(workspaceId, id, ids);
    },
  };

  return {
    api,
    env: createEnvApi(ctx),
    executor,
    cache,
    async ingress(endpointId, request) {
      const wf = await ctx.store.workflows?.getByEndpoint(endpointId);
      if (!wf) {
        endpoints.delete(endpointId);
        return undefined;
      }
      if (endpoints.size >= MAX_KNOWN_ENDPOINTS) endpoints.clear();
      endpoints.add(endpointId);
      return workflowIngress(ctx, executor, wf, request);
    },
    knowsEndpoint: (endpointId) => endpoints.has(endpointId),
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
