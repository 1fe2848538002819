/**
 * The workflows a source's events trigger, read from the store at most {@link SOURCE_CACHE_MS}
 * ago, as the endpoint registry reads endpoints (endpoints.ts). Without it every stored event of
 * every source cost a store query (`listBySource`, most often empty). A change made on this node is
 * seen at once (the workflows API calls `forget`); one made on another node within
 * {@link SOURCE_CACHE_MS}.
 */
import type { Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { SOURCE_CACHE_MS } from "../endpoints.js";

/** Entries kept at most per map; past it the map starts over. */
const MAX_ENTRIES = 10_000;

/** Cached workflow lookups. @internal */
export interface TriggerCache {
  /** The workflows listening to a source's events. */
  bySource(workspaceId: string, sourceId: string): Promise<Workflow[]>;
  /** Forgets everything (a workflow was created, changed or deleted on this node). */
  forget(): void;
}

/** Builds the cache over the context's store. @internal */
export function createTriggerCache(ctx: Pick<EngineContext, "store">): TriggerCache {
  // Promises, so that a burst of events of one source shares one query.
  const sources = new Map<string, { at: number; list: Promise<Workflow[]> }>();
  return {
    bySource(workspaceId, sourceId) {
      const workflows = ctx.store.workflows;
      if (!workflows) return Promise.resolve([]);
      const key = `${workspaceId}/${sourceId}`;
      const now = performance.now();
      const hit = sources.get(key);
      if (hit && now - hit.at < SOURCE_CACHE_MS) return hit.list;
      const list = workflows.listBySource(workspaceId, sourceId);
      if (sources.size >= MAX_ENTRIES) sources.clear();
      const entry = { at: now, list };
      sources.set(key, entry);
      list.catch(() => {
        if (sources.get(key) === entry) sources.delete(key);
      });
      return list;
    },
    forget() {
      sources.clear();
    },
  };
}
