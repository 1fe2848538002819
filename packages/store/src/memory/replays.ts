/** Replay jobs in memory. */
import { newReplay } from "../adapter/rows.js";
import type { DeliveryStore, ReplayStore } from "../types/index.js";
import { copy } from "./copy.js";
import { byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/** The replays of a memory store; `deliveries` makes each batch's deliveries. */
export function memoryReplays(s: MemoryState, deliveries: DeliveryStore): ReplayStore {
  return {
    async create(input, now) {
      s.open();
      const row = newReplay(input, now);
      s.replays.set(row.id, row);
      return copy(row);
    },
    async get(workspaceId, id) {
      s.open();
      return copy(inWorkspace(s.replays.get(id), workspaceId));
    },
    async list(workspaceId, subscriptionId) {
      s.open();
      return copy(
        byWorkspace(s.replays, workspaceId)
          .filter((r) => r.subscriptionId === subscriptionId)
          .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)),
      );
    },
    async advance(workspaceId, id, step, now) {
      s.open();
      const row = inWorkspace(s.replays.get(id), workspaceId);
      if (row?.status !== "running" || row.cursor !== step.from) return undefined;
      // Moved before the deliveries are made, so that a concurrent step from the same cursor fails.
      row.cursor = step.cursor;
      row.status = step.status;
      row.scanned += step.scanned;
      row.updatedAt = now;
      if (step.error !== undefined) row.error = step.error;
      const made = await deliveries.enqueue(workspaceId, row.webhookId, step.events, now);
      row.enqueued += made.length;
      return { replay: copy(row), deliveries: made };
    },
  };
}
