/** Component logs in memory. */
import { clampLimit, pageOf, parseSeqCursor } from "../adapter/paging.js";
import { keptByRetention } from "../adapter/retention.js";
import { utf8Length } from "../adapter/text.js";
import type { LogLine, LogStore } from "../types/index.js";
import { copy } from "./copy.js";
import { newestFirst } from "./events.js";
import type { MemoryState } from "./state.js";

/** The logs of a memory store. */
export function memoryLogs(s: MemoryState): LogStore {
  return {
    async append(workspaceId, componentId, lines) {
      s.open();
      let list = s.logs.get(componentId);
      if (!list) {
        list = [];
        s.logs.set(componentId, list);
      }
      const stored: LogLine[] = [];
      for (const line of lines) {
        const row: LogLine = {
          seq: s.nextSeq(),
          workspaceId,
          componentId,
          level: line.level,
          message: line.message,
          ts: line.ts,
        };
        list.push(row);
        stored.push(copy(row));
      }
      if (stored.length > 0) {
        s.announce({ kind: "logs", local: true, workspaceId, componentId, seqs: stored.map((l) => l.seq) });
      }
      return stored;
    },
    async list(workspaceId, componentId, options = {}) {
      s.open();
      const limit = clampLimit(options.limit, 100, 1000);
      const after = parseSeqCursor(options.after, "after");
      const matching = (s.logs.get(componentId) ?? []).filter(
        (row) => row.workspaceId === workspaceId && (after === undefined || row.seq > after),
      );
      const page = pageOf(matching, limit, (row) => String(row.seq));
      return { ...page, items: copy(page.items) };
    },
    async trim(componentId, limits) {
      s.open();
      const list = s.logs.get(componentId);
      if (!list) return 0;
      const kept = keptByRetention(
        newestFirst(list, (line) => utf8Length(line.message)),
        limits,
      );
      const removed = list.length - kept;
      list.splice(0, removed);
      return removed;
    },
  };
}
