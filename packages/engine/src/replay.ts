/**
 * Replay and delivery metrics: sending a subscription's stored events again to its webhook (as new
 * deliveries with the events' own ids, so receivers dedupe on `webhook-id`), in bounded, resumable
 * batches; and the health of a webhook over a window, from its attempt log.
 */
import { type FilterNode, HooklineError } from "@hookline/core";
import type { DeliveryMetrics, Store, Subscription } from "@hookline/store";
import { channelOf, subscriptionFilter } from "@hookline/store/adapter";
import type { Clock } from "./clock.js";
import { type EventSearchOptions, searchEvents, toFilter } from "./event-search.js";

/** Default and maximum number of events one replay call sends. */
export const REPLAY_BATCH = { default: 1_000, max: 10_000 } as const;

/** What to replay. */
export interface ReplayOptions {
  /** Only events stored at or after this time (epoch ms); from the first when absent. */
  since?: number;
  /** Only events stored before this time (epoch ms); up to now when absent. */
  until?: number;
  /** Only events matching this filter too (the subscription's own filter always applies). */
  filter?: EventSearchOptions["filter"];
  /** Resume after this cursor (the `cursor` of the previous call). */
  after?: string;
  /** At most this many events in this call (1,000 by default, at most 10,000). */
  limit?: number;
}

/** The outcome of one replay call. */
export interface ReplayResult {
  /** The subscription replayed. */
  subscriptionId: string;
  /** The webhook the deliveries go to. */
  webhookId: string;
  /** Deliveries made by this call (one per event). */
  replayed: number;
  /** The ids of those deliveries. */
  deliveryIds: string[];
  /** Where the next call resumes (pass it as `after`); null when nothing was replayed yet. */
  cursor: string | null;
  /** Whether the window is exhausted (no call is needed after this one). */
  done: boolean;
}

/** The replay and metrics APIs, over the store. @internal */
export function createReplayApi(store: Store, clock: Clock, wake: () => void) {
  async function subscriptionOrThrow(workspaceId: string, id: string): Promise<Subscription> {
    const found = (await store.subscriptions.list(workspaceId)).find((s) => s.id === id);
    if (!found) throw new HooklineError("not_found", `No subscription ${id} in this workspace`);
    if (!(await store.webhooks.get(workspaceId, found.listenerId))) {
      throw new HooklineError("not_found", `Subscription ${id} has no webhook to replay to`);
    }
    return found;
  }

  return {
    async replay(
      workspaceId: string,
      subscriptionId: string,
      options: ReplayOptions = {},
    ): Promise<ReplayResult> {
      const sub = await subscriptionOrThrow(workspaceId, subscriptionId);
      const limit = Math.min(
        REPLAY_BATCH.max,
        Math.max(1, Math.floor(options.limit ?? REPLAY_BATCH.default)),
      );
      const filters = [subscriptionFilter(sub.filter), options.filter && toFilter(options.filter)].filter(
        (f): f is FilterNode => f !== undefined,
      );
      const filter: FilterNode | undefined =
        filters.length === 0
          ? undefined
          : filters.length === 1
            ? filters[0]
            : { kind: "and", nodes: filters };
      let after = options.after;
      let replayed: string[] = [];
      let done = false;
      while (replayed.length < limit) {
        const page = await searchEvents(store, workspaceId, sub.emitterId, {
          order: "asc",
          limit: Math.min(100, limit - replayed.length),
          channel: channelOf(sub.eventName),
          ...(filter ? { filter } : {}),
          ...(options.since === undefined ? {} : { since: options.since }),
          ...(options.until === undefined ? {} : { until: options.until }),
          ...(after === undefined ? {} : { after }),
        });
        const made = await store.deliveries.enqueue(workspaceId, sub.listenerId, page.items, clock.now());
        replayed = replayed.concat(made.map((d) => d.id));
        const last = page.items[page.items.length - 1];
        if (last) after = String(last.seq);
        if (!page.nextCursor) {
          done = true;
          break;
        }
      }
      if (replayed.length > 0) wake();
      return {
        subscriptionId: sub.id,
        webhookId: sub.listenerId,
        replayed: replayed.length,
        deliveryIds: replayed,
        cursor: after ?? null,
        done,
      };
    },

    async metrics(
      workspaceId: string,
      webhookId: string,
      window: { since?: number; until?: number },
    ): Promise<DeliveryMetrics & { since: number; until: number }> {
      if (!(await store.webhooks.get(workspaceId, webhookId))) {
        throw new HooklineError("not_found", `No webhook ${webhookId} in this workspace`);
      }
      const until = window.until ?? clock.now();
      const since = window.since ?? until - 24 * 60 * 60 * 1000;
      if (since > until) {
        throw new HooklineError("validation_failed", "Invalid parameters: since must not be after until", {
          problems: [{ code: "invalid_value", path: "since", message: "since must not be after until" }],
        });
      }
      return { ...(await store.deliveries.metrics(workspaceId, webhookId, { since, until })), since, until };
    },
  };
}
