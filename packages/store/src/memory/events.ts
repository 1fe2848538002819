/** Events in memory: reads, deletes and retention. */

import { eventMatches, hasConditions, scanBudget } from "../adapter/event-match.js";
import { clampLimit, pageOf, parseSeqCursor } from "../adapter/paging.js";
import { keptByRetention } from "../adapter/retention.js";
import { utf8Length } from "../adapter/text.js";
import type { EventStore, StoredEvent } from "../types/index.js";
import { copy } from "./copy.js";
import { inWorkspace, type MemoryState } from "./state.js";

/** Reads `values` from the last to the first, mapped (rows newest first, for retention). */
export function* newestFirst<T, U>(values: readonly T[], map: (value: T) => U): Iterable<U> {
  for (let i = values.length - 1; i >= 0; i--) yield map(values[i] as T);
}

/**
 * The UTF-8 size of an event's body as JSON, measured once (on the first trim that needs it). A body
 * JSON cannot hold (the memory store keeps any cloneable value) counts 0.
 */
function bodyBytes(s: MemoryState, id: string): number {
  let bytes = s.eventBytes.get(id);
  if (bytes === undefined) {
    try {
      bytes = utf8Length(JSON.stringify(s.events.get(id)?.body) ?? "");
    } catch {
      bytes = 0;
    }
    s.eventBytes.set(id, bytes);
  }
  return bytes;
}

/** The events of a memory store. */
export function memoryEvents(s: MemoryState): EventStore {
  return {
    async list(workspaceId, emitterId, options = {}) {
      s.open();
      const limit = clampLimit(options.limit, 10, 100);
      const scan = scanBudget(options.scan);
      const before = parseSeqCursor(options.before, "before");
      const after = parseSeqCursor(options.after, "after");
      // The window: the emitter's next `scan` events from the cursor, in page order; one more tells
      // whether the scan could go on.
      const window = [...(s.eventsByEmitter.get(emitterId) ?? [])]
        .map((id) => s.events.get(id) as StoredEvent)
        .filter(
          (row) =>
            row.workspaceId === workspaceId &&
            (before === undefined || row.seq < before) &&
            (after === undefined || row.seq > after),
        )
        .sort((a, b) => (options.order === "asc" ? a.seq - b.seq : b.seq - a.seq))
        .slice(0, scan + 1);
      // With no condition the page fills first (the budget is at least a page), as in SQL.
      const examined = hasConditions(options) ? window.slice(0, scan) : window;
      const kept: StoredEvent[] = [];
      // Events examined up to the page's last item when the page fills, all of the window otherwise.
      let scanned = examined.length;
      for (const [i, row] of examined.entries()) {
        if (options.channel !== undefined && row.channel !== options.channel) continue;
        if (!eventMatches(row, options)) continue;
        kept.push(row);
        if (kept.length === limit) scanned = i + 1;
        if (kept.length > limit) break;
      }
      if (kept.length <= limit) scanned = examined.length;
      const page = pageOf(kept, limit, (row) => String(row.seq));
      const last = examined[examined.length - 1];
      const budgetReached = kept.length <= limit && window.length > examined.length;
      if (budgetReached && last) page.nextCursor = String(last.seq);
      return { ...page, items: copy(page.items), scanned, budgetReached };
    },
    async get(workspaceId, id) {
      s.open();
      return copy(inWorkspace(s.events.get(id), workspaceId));
    },
    async getById(id) {
      s.open();
      return copy(s.events.get(id));
    },
    async delete(workspaceId, emitterId, ids) {
      s.open();
      const wanted = ids ? new Set(ids) : undefined;
      const targets = [...(s.eventsByEmitter.get(emitterId) ?? [])].filter((id) => {
        const row = s.events.get(id);
        return row?.workspaceId === workspaceId && (wanted === undefined || wanted.has(id));
      });
      return s.deleteEvents(targets);
    },
    async trim(emitterId, limits) {
      s.open();
      const ids = [...(s.eventsByEmitter.get(emitterId) ?? [])]; // In seq order: oldest first.
      const kept = keptByRetention(
        newestFirst(ids, (id) => bodyBytes(s, id)),
        limits,
      );
      const waiting = new Set(s.openRows().map((delivery) => delivery.eventId));
      return s.deleteEvents(ids.slice(0, ids.length - kept).filter((id) => !waiting.has(id)));
    },
  };
}
