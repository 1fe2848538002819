/** Dedupe state in memory (written by `emits.commit`). */
import type { DedupeStore } from "../types/index.js";
import { copy } from "./copy.js";
import type { MemoryState } from "./state.js";

/** The dedupe state of a memory store (written by `emits.commit`). */
export function memoryDedupe(s: MemoryState): DedupeStore {
  return {
    async get(componentId) {
      s.open();
      return copy(s.dedupe.get(componentId));
    },
  };
}
