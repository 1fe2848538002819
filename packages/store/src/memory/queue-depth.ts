/** The depth of a memory store's delivery queue, for metrics: a walk over the open rows. */
import type { QueueDepth } from "../types/index.js";
import type { MemoryState } from "./state.js";

/** Counts the open deliveries by state, and the oldest due one. */
export function memoryQueueDepth(s: MemoryState): (now: number) => Promise<QueueDepth> {
  return async (now) => {
    s.open();
    const depth: QueueDepth = { pending: 0, due: 0, delivering: 0, paused: 0 };
    for (const id of s.openDeliveries) {
      const row = s.deliveries.get(id);
      if (!row) continue;
      if (row.state === "delivering") depth.delivering++;
      else if (row.state === "paused") depth.paused++;
      else if (row.state === "pending") {
        depth.pending++;
        if (row.nextAttemptAt <= now) {
          depth.due++;
          if (depth.oldestDueAt === undefined || row.nextAttemptAt < depth.oldestDueAt)
            depth.oldestDueAt = row.nextAttemptAt;
        }
      }
    }
    return depth;
  };
}
