/** Webhooks in memory, and what enabling, disabling and deleting one does to its deliveries. */
import { newWebhook } from "../adapter/rows.js";
import type { WebhookStore } from "../types/index.js";
import { copy } from "./copy.js";
import { applyPatch, byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/**
 * Moves a webhook's waiting deliveries when it is disabled (`pending` to `paused`) or enabled
 * (`paused` to `pending`, due `now`); returns how many became due.
 */
function moveWaiting(s: MemoryState, webhookId: string, active: boolean, now: number): number {
  let due = 0;
  for (const row of s.openRows()) {
    if (row.webhookId !== webhookId) continue;
    if (!active && row.state === "pending") {
      s.setState(row, "paused");
      row.updatedAt = now;
    } else if (active && row.state === "paused") {
      s.setState(row, "pending");
      row.nextAttemptAt = now;
      row.updatedAt = now;
      s.due.push(row);
      due++;
    }
  }
  return due;
}

/** The webhooks of a memory store. */
export function memoryWebhooks(s: MemoryState): WebhookStore {
  return {
    async create(input) {
      s.open();
      const row = newWebhook(input, s.clock());
      s.webhooks.set(row.id, row);
      return copy(row);
    },
    async get(workspaceId, id) {
      s.open();
      return copy(inWorkspace(s.webhooks.get(id), workspaceId));
    },
    async list(workspaceId) {
      s.open();
      return copy(byWorkspace(s.webhooks, workspaceId));
    },
    async update(workspaceId, id, patch) {
      s.open();
      const row = inWorkspace(s.webhooks.get(id), workspaceId);
      if (!row) return undefined;
      const now = s.clock();
      const wasActive = row.active;
      applyPatch(row, { ...patch, updatedAt: now });
      if (row.active !== wasActive && moveWaiting(s, id, row.active, now) > 0) {
        s.announce({ kind: "deliveries", local: true });
      }
      return copy(row);
    },
    async delete(workspaceId, id) {
      s.open();
      if (!inWorkspace(s.webhooks.get(id), workspaceId)) return false;
      s.webhooks.delete(id);
      for (const sub of [...s.subscriptions.values()]) {
        if (sub.listenerId === id) s.subscriptions.delete(sub.id);
      }
      s.cancelDeliveries((delivery) => delivery.webhookId === id, "webhook_deleted");
      return true;
    },
  };
}
