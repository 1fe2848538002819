/** The component `db` in memory. */
import { compareText } from "../adapter/text.js";
import type { KvStore } from "../types/index.js";
import { copy } from "./copy.js";
import type { MemoryState } from "./state.js";

/** The component db of a memory store. */
export function memoryKv(s: MemoryState): KvStore {
  return {
    async get(componentId, key) {
      s.open();
      return copy(s.kv.get(componentId)?.get(key));
    },
    async set(componentId, key, value) {
      s.open();
      let map = s.kv.get(componentId);
      if (!map) {
        map = new Map();
        s.kv.set(componentId, map);
      }
      map.set(key, copy(value));
    },
    async delete(componentId, key) {
      s.open();
      return s.kv.get(componentId)?.delete(key) ?? false;
    },
    async list(componentId) {
      s.open();
      const map = s.kv.get(componentId);
      if (!map) return [];
      return [...map.entries()]
        .sort(([a], [b]) => compareText(a, b))
        .map(([key, value]) => ({ key, value: copy(value) }));
    },
  };
}
