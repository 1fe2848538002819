/** Timer schedules in memory (their ticks are claimed from the queue). */
import type { TimerStore } from "../types/index.js";
import { copy } from "./copy.js";
import { inWorkspace, type MemoryState } from "./state.js";

/** The timer schedules of a memory store. */
export function memoryTimers(s: MemoryState): TimerStore {
  return {
    async upsert(input) {
      s.open();
      const row = { componentId: input.componentId, workspaceId: input.workspaceId, nextAt: input.nextAt };
      s.timers.set(row.componentId, row);
      return copy(row);
    },
    async get(workspaceId, componentId) {
      s.open();
      return copy(inWorkspace(s.timers.get(componentId), workspaceId));
    },
    async delete(componentId) {
      s.open();
      return s.timers.delete(componentId);
    },
  };
}
