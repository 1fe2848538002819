/** Delivery records in memory: reads, retry, recover and purge. */
import { metricsOf } from "../adapter/metrics.js";
import { clampLimit, pageOf, parseIdCursor } from "../adapter/paging.js";
import { newDelivery } from "../adapter/rows.js";
import { compareText } from "../adapter/text.js";
import type { Attempt, Delivery, DeliveryStore } from "../types/index.js";
import { copy } from "./copy.js";
import { byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/**
 * Makes a delivery wait again at `now`: `pending` (queued) when its webhook is enabled, `paused`
 * otherwise. Returns whether it became due.
 */
export function requeue(s: MemoryState, row: Delivery, now: number): boolean {
  // A workflow's request has no webhook: it never waits paused.
  const due = row.request !== undefined || s.webhooks.get(row.webhookId)?.active === true;
  s.setState(row, due ? "pending" : "paused");
  row.nextAttemptAt = now;
  row.updatedAt = now;
  if (due) s.due.push(row);
  return due;
}

/** The delivery records of a memory store. */
export function memoryDeliveries(s: MemoryState): DeliveryStore {
  const announceDue = (): void => s.announce({ kind: "deliveries", local: true });
  return {
    async get(workspaceId, id) {
      s.open();
      const row = inWorkspace(s.deliveries.get(id), workspaceId);
      if (!row) return undefined;
      const event = s.events.get(row.eventId);
      return event ? { ...copy(row), event: copy(event) } : copy(row);
    },
    async list(workspaceId, options = {}) {
      s.open();
      const limit = clampLimit(options.limit, 50, 100);
      const before = parseIdCursor(options.before, "dlv", "before");
      const { webhookId, eventId, state } = options;
      const matching = byWorkspace(s.deliveries, workspaceId)
        .filter(
          (row) =>
            (webhookId === undefined || row.webhookId === webhookId) &&
            (eventId === undefined || row.eventId === eventId) &&
            (state === undefined || row.state === state) &&
            (before === undefined || row.id < before),
        )
        .sort((a, b) => compareText(b.id, a.id));
      const page = pageOf(matching, limit, (row) => row.id);
      return { ...page, items: copy(page.items) };
    },
    async listAttempts(workspaceId, deliveryId) {
      s.open();
      return copy((s.attempts.get(deliveryId) ?? []).filter((row) => row.workspaceId === workspaceId));
    },
    async retry(workspaceId, id, now) {
      s.open();
      const row = inWorkspace(s.deliveries.get(id), workspaceId);
      if (!row || row.state === "delivering") return false;
      if (!row.request && (!s.events.has(row.eventId) || !s.webhooks.has(row.webhookId))) return false;
      if (requeue(s, row, now)) announceDue();
      return true;
    },
    async recover(workspaceId, webhookId, window, now) {
      s.open();
      if (!inWorkspace(s.webhooks.get(webhookId), workspaceId)) return 0;
      let count = 0;
      let due = false;
      for (const row of s.deliveries.values()) {
        if (
          row.workspaceId === workspaceId &&
          row.webhookId === webhookId &&
          row.state === "failed" &&
          row.createdAt >= window.since &&
          (window.until === undefined || row.createdAt < window.until) &&
          s.events.has(row.eventId)
        ) {
          due = requeue(s, row, now) || due;
          count++;
        }
      }
      if (due) announceDue();
      return count;
    },
    async purge(workspaceId, webhookId) {
      s.open();
      let count = 0;
      for (const row of s.openRows()) {
        if (row.workspaceId !== workspaceId || row.webhookId !== webhookId) continue;
        if (row.state !== "pending" && row.state !== "paused") continue;
        s.setState(row, "failed"); // Leaves the indexes; the row itself goes next.
        s.deliveries.delete(row.id);
        s.attempts.delete(row.id);
        count++;
      }
      return count;
    },
    async enqueue(workspaceId, webhookId, events, now) {
      s.open();
      const hook = inWorkspace(s.webhooks.get(webhookId), workspaceId);
      if (!hook) return [];
      const made: Delivery[] = [];
      for (const event of events) {
        const stored = inWorkspace(s.events.get(event.id), workspaceId);
        if (!stored) continue;
        const row = newDelivery(stored, { webhookId, active: hook.active }, now);
        s.deliveries.set(row.id, row);
        s.setState(row, row.state);
        if (row.state === "pending") s.due.push(row);
        made.push(row);
      }
      if (made.some((row) => row.state === "pending")) announceDue();
      return copy(made);
    },
    async metrics(workspaceId, webhookId, window) {
      s.open();
      const attempts: Attempt[] = [];
      for (const row of s.deliveries.values()) {
        if (row.workspaceId !== workspaceId || row.webhookId !== webhookId) continue;
        for (const attempt of s.attempts.get(row.id) ?? []) {
          if (attempt.at >= window.since && (window.until === undefined || attempt.at < window.until)) {
            attempts.push(attempt);
          }
        }
      }
      return metricsOf(attempts);
    },
  };
}
