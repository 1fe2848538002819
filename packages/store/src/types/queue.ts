/**
 * Timers and deliveries: their records, and the {@link Queue} that workers claim them from.
 *
 * The split follows DESIGN.md: records (`store.timers`, `store.deliveries`) are read and changed by
 * people and the API; the Queue (`store.queue`) is what nodes poll: a claim leases due rows to one
 * owner, a completion releases them, a sweep returns the rows of a dead owner. Rows enter the
 * delivery queue only through `store.emits.commit` (the outbox) and leave it through
 * completion, so the two halves share one database and one transaction boundary.
 */

import type { Page } from "./errors.js";
import type { StoredEvent } from "./events.js";
import type { Webhook } from "./webhooks.js";

/** The next tick of a deployed component's timer. */
export interface Timer {
  /** The deployed component, or the `p_` workflow of a timer trigger (one timer per component). */
  componentId: string;
  /** Owning workspace. */
  workspaceId: string;
  /** When it is due. */
  nextAt: number;
  /** The node that claimed the current tick. */
  leaseOwner?: string;
  /** When that claim expires. */
  leaseExpiresAt?: number;
}

/** Input of {@link TimerStore.upsert}. */
export interface UpsertTimerInput {
  /** The deployed component. */
  componentId: string;
  /** Owning workspace. */
  workspaceId: string;
  /** When it is due. */
  nextAt: number;
}

/** Component timers (the schedule); ticks are claimed from {@link TimerQueue}. */
export interface TimerStore {
  /** Creates or reschedules a component's timer (and drops any lease). */
  upsert(input: UpsertTimerInput): Promise<Timer>;
  /** The component's timer, or undefined. */
  get(workspaceId: string, componentId: string): Promise<Timer | undefined>;
  /** Deletes the component's timer; false when absent. */
  delete(componentId: string): Promise<boolean>;
}

/**
 * The state of a delivery: `pending` (due at `nextAttemptAt`), `paused` (its webhook is disabled:
 * kept, never claimed, made `pending` when the webhook is enabled again), `delivering` (claimed under
 * a lease), `succeeded`, `failed`.
 */
export type DeliveryState = "pending" | "paused" | "delivering" | "succeeded" | "failed";

/**
 * The HTTP request of a delivery that is not an event to a webhook: a workflow's `$.send.http`
 * (see {@link DeliveryQueue.enqueue}). The worker sends it as is, on the same schedule as webhook
 * deliveries, signed when it has secrets.
 */
export interface DeliveryRequest {
  /** The target URL (http or https). */
  url: string;
  /** The method, upper case (`POST`, `PUT`, ...). */
  method: string;
  /** The request headers, lower-cased names. */
  headers: Record<string, string>;
  /** The body, sent as is. */
  body?: string;
  /**
   * Signing secrets, encrypted at rest as webhook secrets are: with any, the request carries the
   * Standard Webhooks headers signed with each.
   */
  secrets?: string[];
}

/** One delivery of one event to one webhook, or of one workflow request to its URL. */
export interface Delivery {
  /** `dlv_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The target webhook. */
  webhookId: string;
  /** The `evt_` id of the event. */
  eventId: string;
  /** The emitting deployed component. */
  emitterId: string;
  /** The event's channel. */
  channel: string;
  /** Where it is in its life. */
  state: DeliveryState;
  /** How many attempts were started (incremented by each claim). */
  attempts: number;
  /** When it is due (for pending rows). */
  nextAttemptAt: number;
  /** The worker holding it (while delivering). */
  leaseOwner?: string;
  /** When that worker's lease expires. */
  leaseExpiresAt?: number;
  /** HTTP status of the last attempt. */
  lastStatus?: number;
  /** Error of the last attempt. */
  lastError?: string;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
  /**
   * Set on a workflow's request (`$.send.http`): then `webhookId` and `emitterId` are the workflow
   * (`p_...`), `eventId` the execution (`exe_...`) and `channel` the step's name, and no event or
   * webhook row exists for it.
   */
  request?: DeliveryRequest;
}

/** A delivery with its event (absent when the event was deleted). */
export interface DeliveryWithEvent extends Delivery {
  /** The event to POST. */
  event?: StoredEvent;
}

/**
 * A claimed delivery: what a worker needs to send it. For a workflow request (`request` set),
 * `webhook` describes its target (`id` the workflow, `url` the request's, `secrets` the request's,
 * always `active`) and `event` its execution (`id` the execution, no body), so that one worker
 * loop serves both kinds.
 */
export interface ClaimedDelivery extends Delivery {
  /** The event to POST. */
  event: StoredEvent;
  /**
   * The event's body as the JSON text the store keeps: the bytes the delivery POSTs (and signs),
   * unchanged since the emit. Absent for a workflow's request, and where an adapter keeps no text.
   */
  payload?: string;
  /** The target webhook. */
  webhook: Webhook;
}

/** Input of {@link DeliveryQueue.enqueue}: a workflow step's request. */
export interface EnqueueRequestInput {
  /** Owning workspace. */
  workspaceId: string;
  /** The workflow (`p_...`). */
  workflowId: string;
  /** The execution (`exe_...`). */
  executionId: string;
  /** The step's name. */
  stepName: string;
  /** What to send. */
  request: DeliveryRequest;
  /** The current time (defaults to the store clock); the row is due then. */
  now?: number;
}

/** Options of {@link DeliveryStore.list}. */
export interface ListDeliveriesOptions {
  /** Only deliveries to this webhook. */
  webhookId?: string;
  /** Only deliveries of this event. */
  eventId?: string;
  /** Only deliveries in this state. */
  state?: DeliveryState;
  /** Page size: 50 by default, at most 100. */
  limit?: number;
  /** Only deliveries older than this cursor (a `nextCursor`: a `dlv_` id; anything else is `invalid`). */
  before?: string;
}

/** Delivery records: what the API shows and changes. Workers use {@link DeliveryQueue}. */
export interface DeliveryStore {
  /** The delivery with its event, or undefined. */
  get(workspaceId: string, id: string): Promise<DeliveryWithEvent | undefined>;
  /** The workspace's deliveries, newest first. */
  list(workspaceId: string, options?: ListDeliveriesOptions): Promise<Page<Delivery>>;
  /** The attempts of a delivery, oldest first. */
  listAttempts(workspaceId: string, deliveryId: string): Promise<Attempt[]>;
  /**
   * Makes a delivery due now: a `failed` or `succeeded` one becomes `pending` (or `paused` when its
   * webhook is disabled), a pending one is moved to `now`. False when not found, in flight, or its
   * event or webhook is gone.
   */
  retry(workspaceId: string, id: string, now: number): Promise<boolean>;
  /**
   * Makes the webhook's `failed` deliveries created in `[since, until)` pending at `now` (`paused`
   * when the webhook is disabled); returns the count.
   */
  recover(
    workspaceId: string,
    webhookId: string,
    window: { since: number; until?: number },
    now: number,
  ): Promise<number>;
  /**
   * Drops the webhook's waiting deliveries (`paused` and `pending`, not those in flight) and their
   * attempts, for good; returns the count. The events stay.
   */
  purge(workspaceId: string, webhookId: string): Promise<number>;
  /**
   * New deliveries of stored events to a webhook of the workspace (a replay): one per event, due at
   * `now`, `pending` (`paused` when the webhook is disabled), announced like the outbox's. Events of
   * another workspace, or gone, are skipped; an unknown webhook makes none. Returns those made.
   */
  enqueue(workspaceId: string, webhookId: string, events: StoredEvent[], now: number): Promise<Delivery[]>;
  /**
   * Aggregates of the attempts of the webhook's deliveries made in `[since, until)` (attempt time):
   * counts by outcome and status class, and latency percentiles (nearest rank: the smallest duration
   * with at least that share of attempts at or below it; null without attempts).
   */
  metrics(
    workspaceId: string,
    webhookId: string,
    window: { since: number; until?: number },
  ): Promise<DeliveryMetrics>;
}

/** What {@link DeliveryStore.metrics} returns. */
export interface DeliveryMetrics {
  /** Attempts in the window. */
  attempts: number;
  /** Attempts answered with a 2xx. */
  succeeded: number;
  /** The other attempts. */
  failed: number;
  /** Attempts by class of the answer's status; `error` has no answer (timeout, connection, refused). */
  statusClasses: { "1xx": number; "2xx": number; "3xx": number; "4xx": number; "5xx": number; error: number };
  /** Attempt durations (ms) at the 50th, 95th and 99th percentiles. */
  latencyMs: { p50: number | null; p95: number | null; p99: number | null };
}

/** Options of {@link DeliveryQueue.claim}. */
export interface ClaimOptions {
  /** The claiming worker. */
  owner: string;
  /** The current time. */
  now: number;
  /** How long the claim lasts. */
  leaseMs: number;
  /** At most this many rows. */
  limit: number;
  /** At most this many rows of one webhook delivering at once (across all workers). */
  perWebhookLimit?: number;
  /**
   * Leave the rows of these webhooks alone (they stay `pending` and due, untouched): a worker's
   * webhooks whose circuit is open.
   */
  excludeWebhookIds?: readonly string[];
}

/** Outcome passed to {@link DeliveryQueue.complete}. */
export interface CompleteOptions {
  /** `succeeded`, `failed` (final) or `pending` (retry at `nextAttemptAt`). */
  state: "succeeded" | "failed" | "pending";
  /** When to retry (for `pending`; defaults to `at`). */
  nextAttemptAt?: number;
  /** HTTP status of the attempt. */
  status?: number;
  /** Error of the attempt. */
  error?: string;
  /** The current time (defaults to the store clock). */
  at?: number;
  /**
   * The attempt this outcome follows, recorded in the same write (as {@link DeliveryQueue.recordAttempt}
   * would), even when the lease was lost: what was sent is history either way.
   */
  attempt?: RecordAttemptInput;
}

/** One recorded HTTP attempt of a delivery. */
export interface Attempt {
  /** `att_` id. */
  id: string;
  /** The delivery. */
  deliveryId: string;
  /** Owning workspace. */
  workspaceId: string;
  /** When the attempt started. */
  at: number;
  /** HTTP status, when a response came. */
  status?: number;
  /** How long it took. */
  durationMs: number;
  /** The start of the response body. */
  responseExcerpt?: string;
  /** The error, when it failed. */
  error?: string;
}

/** Input of {@link DeliveryQueue.recordAttempt}. */
export type RecordAttemptInput = Omit<Attempt, "id">;

/** Options of {@link TimerQueue.claim}. */
export interface ClaimTimersOptions {
  /** The claiming node. */
  owner: string;
  /** The current time. */
  now: number;
  /** How long the claim lasts. */
  leaseMs: number;
  /** At most this many timers. */
  limit: number;
}

/** The delivery side of the {@link Queue}. */
export interface DeliveryQueue {
  /**
   * Leases up to `limit` due pending rows (`nextAttemptAt <= now`, earliest first) to `owner`: they
   * become `delivering` and their `attempts` grows by one. A row is never returned to two
   * concurrent claimers. Rows whose event or webhook is gone are failed instead (`event_deleted`,
   * `webhook_deleted`); rows whose webhook is disabled become `paused`.
   */
  claim(options: ClaimOptions): Promise<ClaimedDelivery[]>;
  /**
   * Finishes (or reschedules) a claimed row; false when `owner` no longer holds its lease. A row
   * rescheduled (`pending`) while its webhook is disabled becomes `paused`. `outcome.attempt`, when
   * given, is recorded with it (one write instead of `recordAttempt` then `complete`).
   */
  complete(id: string, owner: string, outcome: CompleteOptions): Promise<boolean>;
  /**
   * Completes the row as {@link complete} does and, in the same write, when it completed, leases to
   * `owner` for `leaseMs` the earliest due pending row of the same webhook (due at `outcome.at`): the
   * finished row's slot passes to it, so that the webhook's rows in flight stay as many and no
   * `perWebhookLimit` is counted. A worker delivering a busy webhook then needs no claim between
   * two of its deliveries. Rows on the way whose event or webhook is gone fail, and those of a
   * disabled webhook wait paused, as in a claim. Optional: without it, a worker claims.
   *
   * @example
   * ```ts
   * const { completed, next } = await store.queue.deliveries.completeAndTakeNext!(
   *   row.id, owner, { state: "succeeded", status: 200, at: Date.now() }, 30_000,
   * );
   * if (next) deliver(next);
   * ```
   */
  completeAndTakeNext?(
    id: string,
    owner: string,
    outcome: CompleteOptions,
    leaseMs: number,
  ): Promise<{ completed: boolean; next?: ClaimedDelivery }>;
  /**
   * Queues a workflow's request (`$.send.http`) as a delivery due now, claimed and retried like
   * the others (bounded per workflow as deliveries are per webhook), and announces it.
   */
  enqueue(input: EnqueueRequestInput): Promise<Delivery>;
  /** Records one attempt. */
  recordAttempt(input: RecordAttemptInput): Promise<Attempt>;
  /** Returns rows whose lease expired (`leaseExpiresAt <= now`) to `pending`; returns the count. */
  sweep(now: number): Promise<number>;
  /**
   * How deep the queue is across workspaces (for metrics, read at scrape time, never on a hot
   * path). Optional: a store without it reports no queue figures.
   */
  depth?(now: number): Promise<QueueDepth>;
}

/** What {@link DeliveryQueue.depth} answers. */
export interface QueueDepth {
  /** Pending rows, due or not. */
  pending: number;
  /** Pending rows due at `now` (waiting for a worker). */
  due: number;
  /** Rows in flight (leased to a worker). */
  delivering: number;
  /** Rows waiting while their webhook is disabled. */
  paused: number;
  /** When the oldest due row became due (undefined when none is due). */
  oldestDueAt?: number;
}

/** The timer side of the {@link Queue}: each tick is claimed by exactly one node. */
export interface TimerQueue {
  /**
   * Returns up to `limit` due timers (`nextAt <= now`, not leased or lease expired), earliest first,
   * leasing them to `owner` for `leaseMs` so that a concurrent claim does not return them.
   */
  claim(options: ClaimTimersOptions): Promise<Timer[]>;
  /**
   * Compare-and-set: moves a claimed timer from `firedAt` (the claimed `nextAt`) to `nextAt` and
   * releases the lease. False when the timer changed, is gone, or another owner holds it.
   */
  advance(componentId: string, owner: string, firedAt: number, nextAt: number): Promise<boolean>;
}

/**
 * The work nodes claim: leased, exactly-one-owner rows with a due time. Deliveries (written by
 * `store.emits.commit`) and timer ticks today; workflow steps are meant to join as one more
 * member with the same claim / complete / sweep shape.
 *
 * @example
 * ```ts
 * const rows = await store.queue.deliveries.claim({ owner: "w1", now: Date.now(), leaseMs: 35_000, limit: 16 });
 * for (const row of rows) {
 *   // POST row.event to row.webhook.url, then:
 *   await store.queue.deliveries.complete(row.id, "w1", { state: "succeeded", status: 200 });
 * }
 * await store.queue.deliveries.sweep(Date.now()); // rows of dead workers return to pending
 * ```
 */
export interface Queue {
  /** Deliveries of events to webhooks. */
  deliveries: DeliveryQueue;
  /** Ticks of component timers. */
  timers: TimerQueue;
}
