/** The component `db` in memory. */
import { compareText } from "../adapter/text.js";
import type { KvStore, KvWrite } from "../types/index.js";
import { copy } from "./copy.js";
import type { MemoryState } from "./state.js";

/** The component db of a memory store. */
export function memoryKv(s: MemoryState): KvStore {
  const version = (componentId: string): number => s.kvVersions.get(componentId) ?? 0;
  /** Applies the writes in order and moves the version on (none: no change); returns the version. */
  const apply = (componentId: string, writes: readonly KvWrite[]): number => {
    if (writes.length === 0) return version(componentId);
    let map = s.kv.get(componentId);
    if (!map) {
      map = new Map();
      s.kv.set(componentId, map);
    }
    for (const [key, value] of writes) {
      if (value === undefined) map.delete(key);
      else map.set(key, copy(value));
    }
    const next = version(componentId) + 1;
    s.kvVersions.set(componentId, next);
    return next;
  };
  return {
    async get(componentId, key) {
      s.open();
      return copy(s.kv.get(componentId)?.get(key));
    },
    async set(componentId, key, value) {
      s.open();
      apply(componentId, [[key, value]]);
    },
    async delete(componentId, key) {
      s.open();
      const had = s.kv.get(componentId)?.has(key) ?? false;
      if (had) apply(componentId, [[key, undefined]]);
      return had;
    },
    async list(componentId) {
      s.open();
      const map = s.kv.get(componentId);
      if (!map) return [];
      return [...map.entries()]
        .sort(([a], [b]) => compareText(a, b))
        .map(([key, value]) => ({ key, value: copy(value) }));
    },
    async snapshot(componentId, known) {
      s.open();
      const current = version(componentId);
      if (current === known) return { version: current };
      const rows = [...(s.kv.get(componentId) ?? [])].sort(([a], [b]) => compareText(a, b));
      return {
        version: current,
        entries: Object.fromEntries(rows.map(([key, value]) => [key, copy(value)])),
      };
    },
    async write(componentId, writes) {
      s.open();
      return apply(componentId, writes);
    },
  };
}
