/** The Queue of a memory store: claims of due deliveries and timer ticks. */
import { newRequestDelivery, requestClaim } from "../adapter/requests.js";
import { newAttempt } from "../adapter/rows.js";
import type { ClaimedDelivery, Delivery, DeliveryQueue, Queue, TimerQueue } from "../types/index.js";
import { copy, copyPlain } from "./copy.js";
import { requeue } from "./deliveries.js";
import { memoryQueueDepth } from "./queue-depth.js";
import type { MemoryState } from "./state.js";

/** Webhook ids and how many of their rows are in flight under a live lease. */
function inFlightByWebhook(s: MemoryState, now: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of s.deliveringIds) {
    const row = s.deliveries.get(id);
    if (row && (row.leaseExpiresAt ?? 0) > now)
      counts.set(row.webhookId, (counts.get(row.webhookId) ?? 0) + 1);
  }
  return counts;
}

/**
 * Leases a due row popped from the heap to `owner`: a workflow's request as is; a webhook delivery
 * with its event and webhook, unless either is gone (the row fails) or the webhook is disabled (the
 * row waits paused). Undefined when not leased.
 */
function leaseRow(
  s: MemoryState,
  row: Delivery,
  owner: string,
  now: number,
  leaseMs: number,
): ClaimedDelivery | undefined {
  const lease = (): void => {
    s.setState(row, "delivering");
    row.attempts += 1;
    row.leaseOwner = owner;
    row.leaseExpiresAt = now + leaseMs;
    row.updatedAt = now;
  };
  if (row.request) {
    // A workflow's request: no event or webhook row to check.
    lease();
    return requestClaim(copyPlain(row));
  }
  const event = s.events.get(row.eventId);
  const webhook = s.webhooks.get(row.webhookId);
  if (!event || !webhook) {
    s.setState(row, "failed");
    row.lastError = event ? "webhook_deleted" : "event_deleted";
    row.updatedAt = now;
    return undefined;
  }
  if (!webhook.active) {
    s.setState(row, "paused"); // Its webhook was disabled meanwhile: wait for it.
    row.updatedAt = now;
    return undefined;
  }
  lease();
  const claimed: ClaimedDelivery = {
    ...copyPlain(row),
    event: copyPlain(event),
    webhook: copyPlain(webhook),
  };
  const payload = s.eventTexts.get(event.id);
  if (payload !== undefined) claimed.payload = payload;
  return claimed;
}

function memoryDeliveryQueue(s: MemoryState): DeliveryQueue {
  const announceDue = (): void => s.announce({ kind: "deliveries", local: true });
  const queue: DeliveryQueue = {
    async claim(options) {
      s.open();
      const { owner, now, leaseMs, limit, perWebhookLimit } = options;
      const inFlight = perWebhookLimit === undefined ? undefined : inFlightByWebhook(s, now);
      const excluded = new Set(options.excludeWebhookIds ?? []);
      const claimed: ClaimedDelivery[] = [];
      const max = Math.max(0, limit);
      const lease = (row: Delivery): boolean => {
        if (excluded.has(row.webhookId)) return false;
        // Refused rows stay queued; rows of a gone event or webhook are failed below.
        if (!inFlight) return true;
        if (!row.request && (!s.events.has(row.eventId) || !s.webhooks.has(row.webhookId))) return true;
        const count = inFlight.get(row.webhookId) ?? 0;
        if (count >= (perWebhookLimit as number)) return false;
        inFlight.set(row.webhookId, count + 1);
        return true;
      };
      while (claimed.length < max) {
        const batch = s.due.popDue(now, max - claimed.length, lease);
        if (batch.length === 0) break;
        for (const row of batch) {
          const leased = leaseRow(s, row, owner, now, leaseMs);
          if (leased) claimed.push(leased);
          else if (row.state === "paused")
            inFlight?.set(row.webhookId, (inFlight.get(row.webhookId) ?? 1) - 1);
        }
      }
      return claimed;
    },
    async complete(id, owner, outcome) {
      // Recorded before anything else runs, as the SQL stores write both in one statement group.
      s.open();
      if (outcome.attempt) void queue.recordAttempt(outcome.attempt).catch(() => undefined);
      const row = s.deliveries.get(id);
      if (row?.state !== "delivering" || row.leaseOwner !== owner) return false;
      const at = outcome.at ?? s.clock();
      let due = false;
      if (outcome.state === "pending")
        due = requeue(s, row, outcome.nextAttemptAt ?? at) && row.nextAttemptAt <= at;
      else s.setState(row, outcome.state);
      if (outcome.status !== undefined) row.lastStatus = outcome.status;
      else delete row.lastStatus;
      if (outcome.error !== undefined) row.lastError = outcome.error;
      else delete row.lastError;
      delete row.leaseOwner;
      delete row.leaseExpiresAt;
      row.updatedAt = at;
      if (due) announceDue();
      return true;
    },
    async completeAndTakeNext(id, owner, outcome, leaseMs) {
      const webhookId = s.deliveries.get(id)?.webhookId;
      const completed = await queue.complete(id, owner, outcome);
      if (!completed || webhookId === undefined) return { completed };
      // The finished row's slot passes to the next due row of its webhook: no count to check.
      const now = outcome.at ?? s.clock();
      for (let row = s.due.popDueOf(webhookId, now); row; row = s.due.popDueOf(webhookId, now)) {
        const next = leaseRow(s, row, owner, now, leaseMs);
        if (next) return { completed, next };
      }
      return { completed };
    },
    async enqueue(input) {
      s.open();
      const row = newRequestDelivery(input, input.now ?? s.clock());
      s.deliveries.set(row.id, row);
      s.setState(row, "pending");
      s.due.push(row);
      announceDue();
      return copy(row);
    },
    async recordAttempt(input) {
      s.open();
      const row = newAttempt(input);
      let list = s.attempts.get(input.deliveryId);
      if (!list) {
        list = [];
        s.attempts.set(input.deliveryId, list);
      }
      list.push(row);
      return copy(row);
    },
    async sweep(now) {
      s.open();
      let count = 0;
      for (const id of [...s.deliveringIds]) {
        const row = s.deliveries.get(id) as Delivery;
        if (row.state === "delivering" && (row.leaseExpiresAt ?? 0) <= now) {
          s.setState(row, "pending");
          delete row.leaseOwner;
          delete row.leaseExpiresAt;
          row.updatedAt = now;
          s.due.push(row);
          count++;
        }
      }
      if (count > 0) announceDue();
      return count;
    },
  };
  return queue;
}

function memoryTimerQueue(s: MemoryState): TimerQueue {
  return {
    async claim({ now, owner, leaseMs, limit }) {
      s.open();
      const due = [...s.timers.values()]
        .filter((row) => row.nextAt <= now && (row.leaseExpiresAt === undefined || row.leaseExpiresAt <= now))
        .sort((a, b) => a.nextAt - b.nextAt)
        .slice(0, Math.max(0, limit));
      for (const row of due) {
        row.leaseOwner = owner;
        row.leaseExpiresAt = now + leaseMs;
      }
      return copy(due);
    },
    async advance(componentId, owner, firedAt, nextAt) {
      s.open();
      const row = s.timers.get(componentId);
      if (!row || row.leaseOwner !== owner || row.nextAt !== firedAt) return false;
      row.nextAt = nextAt;
      delete row.leaseOwner;
      delete row.leaseExpiresAt;
      return true;
    },
  };
}

/** The Queue of a memory store. */
export function memoryQueue(s: MemoryState): Queue {
  return {
    deliveries: { ...memoryDeliveryQueue(s), depth: memoryQueueDepth(s) },
    timers: memoryTimerQueue(s),
  };
}
