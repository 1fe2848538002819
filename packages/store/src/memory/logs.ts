/** Component logs in memory. */
import { clampLimit, pageOf, parseSeqCursor } from "../adapter/paging.js";
import { keptByRetention } from "../adapter/retention.js";
import { utf8Length } from "../adapter/text.js";
import type { LogInput, LogLine, LogStore } from "../types/index.js";
import { copy } from "./copy.js";
import { newestFirst } from "./events.js";
import type { MemoryState } from "./state.js";

/**
 * Appends log lines to a component's logs in this synchronous step and returns copies of the stored
 * lines; `undo`, when given, gets the step that takes them back (the emit commit's rollback). The
 * caller announces them (once the step is kept). @internal
 */
export function appendLogLines(
  s: MemoryState,
  workspaceId: string,
  componentId: string,
  lines: LogInput[],
  undo?: (() => void)[],
): LogLine[] {
  if (lines.length === 0) return [];
  let list = s.logs.get(componentId);
  if (!list) {
    list = [];
    s.logs.set(componentId, list);
  }
  const own = list;
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
    own.push(row);
    stored.push(copy(row));
  }
  undo?.push(() => {
    const seqs = new Set(stored.map((line) => line.seq));
    const kept = own.filter((line) => !seqs.has(line.seq));
    own.splice(0, own.length, ...kept);
  });
  return stored;
}

/** Tells observers that `stored` (lines of one component) were appended. @internal */
export function announceLogLines(s: MemoryState, stored: LogLine[]): void {
  const first = stored[0];
  if (!first) return;
  const { workspaceId, componentId } = first;
  s.announce({ kind: "logs", local: true, workspaceId, componentId, seqs: stored.map((l) => l.seq) });
}

/** The logs of a memory store. */
export function memoryLogs(s: MemoryState): LogStore {
  return {
    async append(workspaceId, componentId, lines) {
      s.open();
      const stored = appendLogLines(s, workspaceId, componentId, lines);
      announceLogLines(s, stored);
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
