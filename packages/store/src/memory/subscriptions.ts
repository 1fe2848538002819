/** Subscriptions in memory. */
import { channelName } from "@hookline/core";
import { newSubscription } from "../adapter/rows.js";
import type { SubscriptionStore } from "../types/index.js";
import { copy } from "./copy.js";
import { byWorkspace, type MemoryState } from "./state.js";

/** The subscriptions of a memory store. */
export function memorySubscriptions(s: MemoryState): SubscriptionStore {
  return {
    async create(input) {
      s.open();
      const channel = channelName(input.eventName);
      for (const sub of s.subscriptions.values()) {
        if (
          sub.workspaceId === input.workspaceId &&
          sub.emitterId === input.emitterId &&
          sub.listenerId === input.listenerId &&
          channelName(sub.eventName) === channel
        ) {
          return { ...copy(sub), created: false };
        }
      }
      const row = newSubscription(input, s.clock());
      s.subscriptions.set(row.id, row);
      return { ...copy(row), created: true };
    },
    async list(workspaceId, filter = {}) {
      s.open();
      return copy(
        byWorkspace(s.subscriptions, workspaceId).filter(
          (sub) =>
            (filter.emitterId === undefined || sub.emitterId === filter.emitterId) &&
            (filter.listenerId === undefined || sub.listenerId === filter.listenerId),
        ),
      );
    },
    async delete(workspaceId, match) {
      s.open();
      let count = 0;
      for (const sub of [...s.subscriptions.values()]) {
        if (
          sub.workspaceId === workspaceId &&
          sub.emitterId === match.emitterId &&
          sub.listenerId === match.listenerId &&
          (match.eventName === undefined || channelName(sub.eventName) === channelName(match.eventName))
        ) {
          s.subscriptions.delete(sub.id);
          count++;
        }
      }
      return count;
    },
  };
}
