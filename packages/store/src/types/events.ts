/** Events, the atomic emit, logs and retention. */
import type { DedupeStrategy, FilterNode } from "@hookline/core";
import type { Page } from "./errors.js";

/**
 * An event to store, as passed to {@link EmitStore.commit}. Every string may hold any text, NUL
 * characters and lone surrogates included: every adapter gives back exactly what it was given.
 */
export interface EventInput {
  /** The channel (the emit's `name`), `default` when none. */
  channel: string;
  /** A short summary. */
  summary?: string;
  /** The dedupe id, as a string. */
  eventId?: string;
  /** The event time. */
  ts: number;
  /**
   * The emitted event, unchanged: a JSON value. A store over JSON refuses what JSON cannot hold (a
   * BigInt, a cycle) as `invalid`; the memory store keeps any structured-cloneable value.
   */
  body: unknown;
  /**
   * The body's JSON text as the emitter wrote it (the sandbox's `JSON.stringify`), when it has one:
   * `body` must then be its parse. Every adapter keeps these bytes as the stored body and gives them
   * to the delivery that POSTs it (`ClaimedDelivery.payload`), key order, number formatting
   * and escapes unchanged, instead of writing the body again. A text holding a lone surrogate is
   * written as `body` would be.
   */
  json?: string;
}

/** A stored event. */
export interface StoredEvent {
  /** `evt_` id (the `webhook-id` of its deliveries). */
  id: string;
  /** Store-wide, monotonically increasing sequence number (the order of commits). */
  seq: number;
  /** Owning workspace. */
  workspaceId: string;
  /** The deployed component that emitted it. */
  emitterId: string;
  /** The channel. */
  channel: string;
  /** A short summary. */
  summary?: string;
  /** The dedupe id. */
  eventId?: string;
  /** The event time. */
  ts: number;
  /** The emitted event. */
  body: unknown;
  /** When it was stored. */
  createdAt: number;
}

/** A stored event and the deliveries the outbox created for it. */
export interface AppendedEvent extends StoredEvent {
  /** `dlv_` ids, one per matching subscription (`pending`, or `paused` for a disabled webhook). */
  deliveryIds: string[];
}

/** Input of {@link EmitStore.commit}: what one invocation of a component emitted. */
export interface EmitCommitInput {
  /** Owning workspace. */
  workspaceId: string;
  /** The deployed component, or the `p_` workflow (`$.send.emit`), that emitted: the emitter. */
  componentId: string;
  /** The events, oldest first (possibly none). */
  events: EventInput[];
  /**
   * The emitter's dedupe strategy (core's `DedupeStrategy`), absent for none. The store decides which
   * of `events` are kept, with core's `applyDedupe` against the dedupe state it keeps for the
   * emitter, inside the commit and with that state locked (across store instances and processes:
   * two commits of the same ids to one emitter keep each id once), and writes the new state with
   * them. Every event then needs its `eventId`.
   */
  dedupe?: DedupeStrategy;
  /** The commit time (`createdAt` of the rows, due time of the deliveries); the store clock by default. */
  now?: number;
}

/**
 * The emit: the one way events enter the store.
 *
 * @example
 * ```ts
 * const [event] = await store.emits.commit({
 *   workspaceId: ws.id,
 *   componentId: source.id,
 *   dedupe: "unique",
 *   events: [{ channel: "default", ts: Date.now(), eventId: "order-1", body: { total: 10 } }],
 * });
 * console.log(event?.deliveryIds); // one per subscribed webhook; no event if order-1 was emitted before
 * ```
 */
export interface EmitStore {
  /**
   * In ONE atomic step (all of it is written, or nothing): applies the dedupe strategy (when
   * `dedupe` is given: the events kept and the new state decided under the state's lock), stores the
   * kept events in order and, for each, writes one
   * delivery per subscription of the workspace whose emitter is `componentId`, whose channel
   * (`eventName`, null meaning `default`) is the event's, and whose listener is a webhook of the
   * workspace (the transactional outbox). Deliveries of an active webhook are `pending` and due at
   * `now`; those of a disabled webhook are `paused` until it is enabled again.
   *
   * Throws `invalid` (naming the field, such as `events[2].body`) when a store over JSON is given a
   * body JSON cannot hold; nothing is written then (see {@link EventInput.body}). Under a dedupe
   * strategy, throws core's `dedupe_missing_id` (an event without `eventId`) or
   * `dedupe_non_numeric_id` (`greatest`) and writes nothing. Returns the events kept.
   */
  commit(input: EmitCommitInput): Promise<AppendedEvent[]>;
  /**
   * {@link EmitStore.commit} with the invocation's log lines (`input.logs`, in order) in the same
   * atomic step: the events, their deliveries, the dedupe state and the lines are all written, or
   * none (a refused commit writes no line either). A SQL store writes them in the same group-commit
   * statement as the events, so that a run that logs costs the same one round trip as one that
   * does not. With no events, only the lines are written. The lines are announced to observers as
   * {@link LogStore.append}'s are.
   *
   * @example
   * ```ts
   * const { events, logs } = await store.emits.commitRun({
   *   workspaceId: ws.id,
   *   componentId: source.id,
   *   events: [{ channel: "default", ts: Date.now(), body: { total: 10 } }],
   *   logs: [{ level: "info", message: "got an order", ts: Date.now() }],
   * });
   * console.log(events.length, logs[0]?.seq); // 1, the line's seq
   * ```
   */
  commitRun(input: RunCommitInput): Promise<RunCommitted>;
}

/** Input of {@link EmitStore.commitRun}: one invocation's emits and its log lines. */
export interface RunCommitInput extends EmitCommitInput {
  /** The invocation's log lines, oldest first (possibly none). */
  logs: LogInput[];
}

/** What {@link EmitStore.commitRun} wrote: the events kept and the log lines, in order. */
export interface RunCommitted {
  events: AppendedEvent[];
  logs: LogLine[];
}

/** Options of {@link EventStore.list}. */
export interface ListEventsOptions {
  /** Page size: 10 by default, at most 100. */
  limit?: number;
  /** Only events older than this cursor (a `nextCursor`); a malformed cursor is `invalid`. */
  before?: string;
  /** Only events newer than this cursor; a malformed cursor is `invalid`. */
  after?: string;
  /** Only events of this channel. */
  channel?: string;
  /**
   * Only events matching this filter (`parseEventFilter` of `@hookline/core`), evaluated against
   * the event's `filterDocument`: every adapter returns exactly the events `matchesFilter` accepts.
   */
  filter?: FilterNode;
  /** Only events stored at or after this time (epoch ms, `createdAt`). */
  since?: number;
  /** Only events stored before this time (epoch ms, `createdAt`). */
  until?: number;
  /**
   * `desc` (default): newest first, `nextCursor` pages to older ones (pass it as `before`). `asc`:
   * oldest first, `nextCursor` pages to newer ones (pass it as `after`).
   */
  order?: "asc" | "desc";
  /**
   * The page's scan budget: at most this many of the emitter's events are examined, from the cursor
   * on in the page's order (channel, window and filter are checked on those).
   * {@link EVENT_SCAN}`.default` when absent; clamped to `[EVENT_SCAN.min, EVENT_SCAN.max]`. A page
   * that examines its whole budget with events left has `budgetReached` and a `nextCursor` that
   * continues the scan.
   */
  scan?: number;
}

/**
 * The scan budget of an event page ({@link ListEventsOptions.scan}): 10,000 events by default (a
 * filter no index answers still returns within 100 ms over a million events on Postgres), never
 * fewer than the largest page (so a list with no condition always fills its page).
 */
export const EVENT_SCAN = { default: 10_000, min: 100, max: 1_000_000 } as const;

/** A page of events: a {@link Page} and what its scan examined. */
export interface EventPage extends Page<StoredEvent> {
  /** How many of the emitter's events this page examined (at most its scan budget). */
  scanned: number;
  /**
   * True when the page examined its whole scan budget and events are left to examine: it may hold
   * fewer items than asked (even none), and `nextCursor` continues the scan after the last event
   * examined. False when the page filled first, or the scan reached the end.
   */
  budgetReached: boolean;
}

/**
 * What a retention trim keeps of one source's events or logs: the newest rows within BOTH bounds.
 * An absent bound does not limit. The newest row is never removed for `bytes` (a single row larger
 * than the budget stays until a newer one arrives), only for `count: 0`.
 */
export interface RetentionLimits {
  /** Keep at most this many rows. */
  count?: number;
  /**
   * Keep at most this many bytes: the UTF-8 size of each event's body as JSON, or of each log line's
   * message, summed from the newest row.
   */
  bytes?: number;
}

/** Events (the emit log). Events are written by {@link EmitStore.commit}. */
export interface EventStore {
  /** The emitter's events, newest first; `nextCursor` pages to older ones. */
  list(workspaceId: string, emitterId: string, options?: ListEventsOptions): Promise<EventPage>;
  /** The event, or undefined. */
  get(workspaceId: string, id: string): Promise<StoredEvent | undefined>;
  /** The event in any workspace, for delivery workers. */
  getById(id: string): Promise<StoredEvent | undefined>;
  /**
   * Deletes the emitter's events (all when `ids` is absent); their waiting deliveries (pending, paused
   * or in flight) fail with `event_deleted`. Returns the number deleted.
   */
  delete(workspaceId: string, emitterId: string, ids?: string[]): Promise<number>;
  /**
   * Retention: deletes the emitter's oldest events beyond `limits`, except those whose deliveries
   * still wait (pending, paused or in flight): they stay until their deliveries end, so that
   * retention never loses a delivery under a backlog. Returns the number deleted.
   */
  trim(emitterId: string, limits: RetentionLimits): Promise<number>;
}

/** A log line to store (any text, as for {@link EventInput}). */
export interface LogInput {
  /** Level, such as `info` or `error`. */
  level: string;
  /** The text. */
  message: string;
  /** When it was logged. */
  ts: number;
}

/** A stored log line of a deployed component. */
export interface LogLine extends LogInput {
  /** Store-wide, monotonically increasing sequence number. */
  seq: number;
  /** Owning workspace. */
  workspaceId: string;
  /** The deployed component. */
  componentId: string;
}

/** Component logs. */
export interface LogStore {
  /** Stores log lines in order. */
  append(workspaceId: string, componentId: string, lines: LogInput[]): Promise<LogLine[]>;
  /**
   * Log lines oldest first; pass `nextCursor` as `after` for the next page (a malformed cursor is
   * `invalid`). `limit` defaults to 100, at most 1,000.
   */
  list(
    workspaceId: string,
    componentId: string,
    options?: { limit?: number; after?: string },
  ): Promise<Page<LogLine>>;
  /** Retention: deletes the component's oldest lines beyond `limits`; returns the number deleted. */
  trim(componentId: string, limits: RetentionLimits): Promise<number>;
}
