import type { OptionsArgs } from "@hookline/runtime";
import type { EventPage, LogLine, Page } from "@hookline/store";
import { componentFor } from "./components.js";
import { componentOrThrow, type EngineContext, sourceOrThrow } from "./context.js";
import { type EventSearchOptions, searchEvents } from "./event-search.js";
import { deleteSource, deploySource, updateSource } from "./lifecycle.js";
import { type OptionsTarget, propOptions } from "./props.js";
import { runSource } from "./runs.js";
import { manualTimerEvent } from "./timers.js";
import type { DeployInput, RunSummary, UpdateInput } from "./types.js";
import { type SourceView, sourceView } from "./views.js";

/** Deployed sources (`dc_...`): `hookline.sources`. */
export interface SourcesApi {
  /**
   * Deploys a source from a saved component, a registry key or code: props validated (app props
   * need a connected account unless their app needs none: `account_required`), `deploy()` then
   * `activate()`; all or nothing (docs/engine.md).
   */
  deploy(workspaceId: string, input: DeployInput): Promise<SourceView>;
  /** A source by id or slug (404 `not_found` when absent). */
  get(workspaceId: string, idOrSlug: string): Promise<SourceView>;
  /** The workspace's sources. */
  list(workspaceId: string): Promise<SourceView[]>;
  /** Replaces code and/or props: `deactivate()`, then `activate()` on the new instance; same id. */
  update(workspaceId: string, idOrSlug: string, input: UpdateInput): Promise<SourceView>;
  /** Activates a source (`activate()` hook). */
  activate(workspaceId: string, idOrSlug: string): Promise<SourceView>;
  /** Deactivates a source (`deactivate()` hook): it stops running and its endpoint answers 404. */
  deactivate(workspaceId: string, idOrSlug: string): Promise<SourceView>;
  /** Deletes a source; a `deactivate()` hook that throws is logged and does not stop it. */
  delete(workspaceId: string, idOrSlug: string): Promise<{ warnings: string[] }>;
  /**
   * Runs a source now (a timer source gets a timer event, others `event` or `{}`), after the
   * invocations already queued for it: `source_busy` (429) when `limits.maxQueuedInvocations` wait.
   *
   * @example
   * ```ts
   * const { emitted, error, refused } = await hookline.sources.run(ws.id, "orders", { total: 5 });
   * ```
   */
  run(workspaceId: string, idOrSlug: string, event?: unknown): Promise<RunSummary>;
  /** Stored events, newest first (or oldest first), by channel, time window and filter. */
  events(workspaceId: string, idOrSlug: string, options?: EventSearchOptions): Promise<EventPage>;
  /** Deletes the given events, or all of them; returns how many. */
  deleteEvents(workspaceId: string, idOrSlug: string, ids?: string[]): Promise<number>;
  /** Log lines, oldest first. */
  logs(
    workspaceId: string,
    idOrSlug: string,
    options?: { limit?: number; after?: string },
  ): Promise<Page<LogLine>>;
  /** Async options of a prop, with the configured values so far (saved component or deployed source). */
  options(
    workspaceId: string,
    target: OptionsTarget,
    prop: string,
    args?: OptionsArgs & { props?: Record<string, unknown> },
  ): Promise<{ options: unknown[]; context?: unknown }>;
}

/** The `sources` API of an engine. @internal */
export function createSourcesApi(ctx: EngineContext): SourcesApi {
  // A timer source's view says when it runs next (the store's schedule, set at deploy and each tick).
  const withNextRun = async (v: SourceView): Promise<SourceView> => {
    const timer = await ctx.store.timers.get(v.workspaceId, v.id);
    if (timer) v.nextRunAt = timer.nextAt;
    return v;
  };
  const view = async (source: Awaited<ReturnType<typeof sourceOrThrow>>) =>
    withNextRun(
      sourceView(
        source,
        await componentOrThrow(ctx, source.workspaceId, source.savedComponentId),
        ctx.baseUrl,
      ),
    );
  return {
    deploy: async (workspaceId, input) => withNextRun(await deploySource(ctx, workspaceId, input)),
    async get(workspaceId, idOrSlug) {
      return view(await sourceOrThrow(ctx, workspaceId, idOrSlug));
    },
    async list(workspaceId) {
      return Promise.all((await ctx.store.deployedComponents.list(workspaceId)).map(view));
    },
    update: async (workspaceId, idOrSlug, input) =>
      withNextRun(await updateSource(ctx, workspaceId, idOrSlug, input)),
    activate: async (workspaceId, idOrSlug) =>
      withNextRun(await updateSource(ctx, workspaceId, idOrSlug, { active: true })),
    deactivate: async (workspaceId, idOrSlug) =>
      withNextRun(await updateSource(ctx, workspaceId, idOrSlug, { active: false })),
    delete: (workspaceId, idOrSlug) => deleteSource(ctx, workspaceId, idOrSlug),
    async run(workspaceId, idOrSlug, event) {
      const source = await sourceOrThrow(ctx, workspaceId, idOrSlug);
      const component = await componentOrThrow(ctx, workspaceId, source.savedComponentId);
      const payload = event ?? manualTimerEvent(ctx, source, component.description) ?? {};
      const { result, stored, refused } = await runSource(ctx, source, payload, "manual");
      const summary: RunSummary = { emitted: stored, durationMs: result.durationMs };
      if (result.error) summary.error = result.error;
      if (refused.total > 0) summary.refused = refused;
      return summary;
    },
    async events(workspaceId, idOrSlug, options) {
      const source = await sourceOrThrow(ctx, workspaceId, idOrSlug);
      return searchEvents(ctx.store, workspaceId, source.id, options);
    },
    async deleteEvents(workspaceId, idOrSlug, ids) {
      const source = await sourceOrThrow(ctx, workspaceId, idOrSlug);
      return ctx.store.events.delete(workspaceId, source.id, ids);
    },
    async logs(workspaceId, idOrSlug, options) {
      const source = await sourceOrThrow(ctx, workspaceId, idOrSlug);
      return ctx.store.logs.list(workspaceId, source.id, options);
    },
    options: (workspaceId, target, prop, args) =>
      propOptions(ctx, (ws, ref) => componentFor(ctx, ws, ref), workspaceId, target, prop, args),
  };
}
