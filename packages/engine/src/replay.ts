/**
 * Replay and delivery metrics: sending a subscription's stored events again to its webhook (as new
 * deliveries with the events' own ids, so receivers dedupe on `webhook-id`), in bounded, resumable
 * batches; and the health of a webhook over a window, from its attempt log.
 */
import { channelName, type EventFilterInput, type FilterNode, HooklineError } from "@hookline/core";
import type { DeliveryMetrics, Replay, Store, Subscription } from "@hookline/store";
import { subscriptionFilter } from "@hookline/store/adapter";
import type { Clock } from "./clock.js";
import { searchEvents, toFilter } from "./event-search.js";

/** Default and maximum number of events one replay call sends. */
export const REPLAY_BATCH = { default: 1_000, max: 10_000 } as const;

/** At most this many stored events are examined by one replay call (its pages' scan budgets summed). */
export const REPLAY_SCAN = 100_000;

/** What to replay. */
export interface ReplayOptions {
  /** Only events stored at or after this time (epoch ms); from the first when absent. */
  since?: number;
  /** Only events stored before this time (epoch ms); up to now when absent. */
  until?: number;
  /** Only events matching this filter too (the subscription's own filter always applies). */
  filter?: EventFilterInput | string;
  /** At most this many events in this call (1,000 by default, at most 10,000). */
  limit?: number;
}

/** A replay after a call that ran one batch of it. */
export interface ReplayResult extends Replay {
  /** What this call did. */
  batch: {
    /** Deliveries made by this call (one per event). */
    replayed: number;
    /** The ids of those deliveries. */
    deliveryIds: string[];
    /** Stored events this call examined. */
    scanned: number;
  };
}

const both = (filters: (FilterNode | undefined)[]): FilterNode | undefined => {
  const kept = filters.filter((f): f is FilterNode => f !== undefined);
  return kept.length <= 1 ? kept[0] : { kind: "and", nodes: kept };
};

/** The replay and metrics APIs, over the store. @internal */
export function createReplayApi(store: Store, clock: Clock, wake: () => void) {
  async function subscriptionOrThrow(workspaceId: string, id: string): Promise<Subscription> {
    const found = (await store.subscriptions.list(workspaceId)).find((s) => s.id === id);
    if (!found) throw new HooklineError("not_found", `No subscription ${id} in this workspace`);
    return found;
  }

  async function replayOrThrow(workspaceId: string, subscriptionId: string, id: string): Promise<Replay> {
    const found = await store.replays.get(workspaceId, id);
    if (!found || found.subscriptionId !== subscriptionId) {
      throw new HooklineError("not_found", `No replay ${id} of subscription ${subscriptionId}`);
    }
    return found;
  }

  /**
   * Runs one batch of `job`: pages of the window (each examining at most the default scan budget),
   * each recorded with its deliveries in one store step, until `limit` events are sent, the call
   * examined {@link REPLAY_SCAN} events, or the window is exhausted.
   */
  async function batch(workspaceId: string, job: Replay, limit: number): Promise<ReplayResult> {
    let replay = job;
    const deliveryIds: string[] = [];
    let scanned = 0;
    const sub = (await store.subscriptions.list(workspaceId)).find((s) => s.id === job.subscriptionId);
    const hook = sub && (await store.webhooks.get(workspaceId, sub.listenerId));
    if (!sub || !hook) {
      const error = sub ? "The subscription's webhook was deleted" : "The subscription was deleted";
      const step = {
        from: job.cursor,
        cursor: job.cursor,
        scanned: 0,
        events: [],
        status: "failed" as const,
        error,
      };
      replay = (await store.replays.advance(workspaceId, job.id, step, clock.now()))?.replay ?? job;
      return { ...replay, batch: { replayed: 0, deliveryIds, scanned } };
    }
    const filter = both([subscriptionFilter(sub.filter), job.filter && toFilter(job.filter)]);
    while (replay.status === "running" && deliveryIds.length < limit && scanned < REPLAY_SCAN) {
      const page = await searchEvents(store, workspaceId, sub.emitterId, {
        order: "asc",
        limit: Math.min(100, limit - deliveryIds.length),
        channel: channelName(sub.eventName),
        ...(filter ? { filter } : {}),
        ...(job.since === undefined ? {} : { since: job.since }),
        ...(job.until === undefined ? {} : { until: job.until }),
        ...(replay.cursor === null ? {} : { after: replay.cursor }),
      });
      const last = page.items[page.items.length - 1];
      const step = {
        from: replay.cursor,
        cursor: page.nextCursor ?? (last ? String(last.seq) : replay.cursor),
        scanned: page.scanned,
        events: page.items,
        status: page.nextCursor ? ("running" as const) : ("done" as const),
      };
      const advanced = await store.replays.advance(workspaceId, replay.id, step, clock.now());
      if (!advanced) {
        throw new HooklineError("conflict", `Replay ${replay.id} was continued by another call meanwhile`);
      }
      replay = advanced.replay;
      deliveryIds.push(...advanced.deliveries.map((d) => d.id));
      scanned += page.scanned;
    }
    if (deliveryIds.length > 0) wake();
    return { ...replay, batch: { replayed: deliveryIds.length, deliveryIds, scanned } };
  }

  const limitOf = (limit: number | undefined) =>
    Math.min(REPLAY_BATCH.max, Math.max(1, Math.floor(limit ?? REPLAY_BATCH.default)));

  return {
    async replay(
      workspaceId: string,
      subscriptionId: string,
      options: ReplayOptions = {},
    ): Promise<ReplayResult> {
      const sub = await subscriptionOrThrow(workspaceId, subscriptionId);
      if (!(await store.webhooks.get(workspaceId, sub.listenerId))) {
        throw new HooklineError("not_found", `Subscription ${subscriptionId} has no webhook to replay to`);
      }
      // Checked first (422 naming the problem) so that nothing is recorded for a bad filter.
      if (options.filter !== undefined) toFilter(options.filter);
      const filter =
        typeof options.filter === "string"
          ? (JSON.parse(options.filter) as Record<string, unknown>)
          : options.filter;
      const job = await store.replays.create(
        {
          workspaceId,
          subscriptionId,
          webhookId: sub.listenerId,
          emitterId: sub.emitterId,
          ...(options.since === undefined ? {} : { since: options.since }),
          ...(options.until === undefined ? {} : { until: options.until }),
          ...(filter === undefined ? {} : { filter: filter as Record<string, unknown> }),
        },
        clock.now(),
      );
      return batch(workspaceId, job, limitOf(options.limit));
    },

    async resume(
      workspaceId: string,
      subscriptionId: string,
      replayId: string,
      options: { limit?: number } = {},
    ): Promise<ReplayResult> {
      const job = await replayOrThrow(workspaceId, subscriptionId, replayId);
      if (job.status !== "running") {
        return { ...job, batch: { replayed: 0, deliveryIds: [], scanned: 0 } };
      }
      return batch(workspaceId, job, limitOf(options.limit));
    },

    async list(workspaceId: string, subscriptionId: string): Promise<Replay[]> {
      await subscriptionOrThrow(workspaceId, subscriptionId);
      return store.replays.list(workspaceId, subscriptionId);
    },

    get: replayOrThrow,

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
