/** Replays: a subscription's stored events sent again to its webhook, as a job with its progress. */
import type { StoredEvent } from "./events.js";
import type { Delivery } from "./queue.js";

/** Where a replay is: `running` until its window is exhausted (`done`) or a batch fails (`failed`). */
export type ReplayStatus = "running" | "done" | "failed";

/** A replay (`rpl_...`): the window and filter it sends, how far it got, and what it did so far. */
export interface Replay {
  /** Its id (`rpl_...`). */
  id: string;
  /** The workspace. */
  workspaceId: string;
  /** The subscription replayed. */
  subscriptionId: string;
  /** The webhook the deliveries go to (the subscription's listener). */
  webhookId: string;
  /** The emitter whose events are replayed. */
  emitterId: string;
  /** Only events stored at or after this time (epoch ms). */
  since?: number;
  /** Only events stored before this time (epoch ms). */
  until?: number;
  /** Only events matching this filter (besides the subscription's own), as given. */
  filter?: Record<string, unknown>;
  /** Where it is. */
  status: ReplayStatus;
  /** Stored events examined so far. */
  scanned: number;
  /** Deliveries made so far. */
  enqueued: number;
  /** The seq cursor the next batch resumes after; null before the first batch. */
  cursor: string | null;
  /** Why it failed (status `failed`). */
  error?: string;
  /** When it was created (epoch ms). */
  createdAt: number;
  /** When it last changed (epoch ms). */
  updatedAt: number;
}

/** What {@link ReplayStore.create} takes. */
export type ReplayInput = Pick<
  Replay,
  "workspaceId" | "subscriptionId" | "webhookId" | "emitterId" | "since" | "until" | "filter"
>;

/** One batch of a replay, recorded by {@link ReplayStore.advance}. */
export interface ReplayStep {
  /** The cursor the batch started from: the step applies only if the replay is still there. */
  from: string | null;
  /** The cursor after the batch. */
  cursor: string | null;
  /** Events the batch examined. */
  scanned: number;
  /** Events the batch sends: one new delivery each, to the replay's webhook. */
  events: StoredEvent[];
  /** The status after the batch. */
  status: ReplayStatus;
  /** Why it failed, with status `failed`. */
  error?: string;
}

/** Replay jobs. */
export interface ReplayStore {
  /** A new replay, `running`, with no progress. */
  create(input: ReplayInput, now: number): Promise<Replay>;
  /** The replay, or undefined. */
  get(workspaceId: string, id: string): Promise<Replay | undefined>;
  /** The subscription's replays, newest first. */
  list(workspaceId: string, subscriptionId: string): Promise<Replay[]>;
  /**
   * Records one batch atomically: the new deliveries (as `DeliveryStore.enqueue` makes them) and the
   * replay's progress, only if the replay is `running` with its cursor still at `step.from` (so two
   * callers resuming one replay at once cannot send a batch twice). Undefined when it is not.
   */
  advance(
    workspaceId: string,
    id: string,
    step: ReplayStep,
    now: number,
  ): Promise<{ replay: Replay; deliveries: Delivery[] } | undefined>;
}
