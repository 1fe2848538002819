/**
 * The state of one memory store: its maps and the helpers every sub-store file shares (the explicit
 * context the sub-stores are built over).
 */
import type { FaultHook } from "../adapter/faults.js";
import {
  type Account,
  type ApiKey,
  type Attempt,
  type AuthTicket,
  type Delivery,
  type DeliveryState,
  type DeployedComponent,
  type EnvVar,
  type Execution,
  type LogLine,
  type OAuthClientRecord,
  type Replay,
  type SavedComponent,
  type StoredEvent,
  StoreError,
  type StoreNotice,
  type Subscription,
  type Timer,
  type Webhook,
  type Workflow,
  type Workspace,
} from "../types/index.js";
import { createDueHeap, type DueHeap } from "./due-heap.js";

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock used for `createdAt`/`updatedAt` (defaults to `Date.now`). */
  now?: () => number;
  /**
   * Tests only: called before each part of `emits.commit` is written; throwing there fails the commit
   * (which must then leave nothing written). See `@hookline/store/testing`.
   */
  faults?: FaultHook;
}

/** Every map of a memory store, and the helpers its sub-stores share. */
export interface MemoryState {
  readonly clock: () => number;
  readonly faults: FaultHook | undefined;
  readonly workspaces: Map<string, Workspace>;
  readonly apiKeys: Map<string, ApiKey>;
  readonly accounts: Map<string, Account>;
  /** The refresh lease of each account that has one, by account id. */
  readonly accountLeases: Map<string, { owner: string; until: number }>;
  /** OAuth clients by `workspaceId + "\0" + app`. */
  readonly oauthClients: Map<string, OAuthClientRecord>;
  /** Auth tickets by `kind + "\0" + key`. */
  readonly authTickets: Map<string, AuthTicket>;
  readonly saved: Map<string, SavedComponent>;
  readonly deployed: Map<string, DeployedComponent>;
  readonly dedupe: Map<string, unknown>;
  readonly kv: Map<string, Map<string, unknown>>;
  /** Each component db's version (absent: 0), one more with every change. */
  readonly kvVersions: Map<string, number>;
  readonly events: Map<string, StoredEvent>;
  /** UTF-8 size of each event's body as JSON, once measured (retention by bytes). */
  readonly eventBytes: Map<string, number>;
  /** The body's JSON text of each event emitted with one (`EventInput.json`): what its deliveries POST. */
  readonly eventTexts: Map<string, string>;
  /** Each emitter's event ids, in seq order. */
  readonly eventsByEmitter: Map<string, Set<string>>;
  readonly logs: Map<string, LogLine[]>;
  readonly webhooks: Map<string, Webhook>;
  readonly subscriptions: Map<string, Subscription>;
  readonly replays: Map<string, Replay>;
  readonly timers: Map<string, Timer>;
  readonly deliveries: Map<string, Delivery>;
  readonly attempts: Map<string, Attempt[]>;
  readonly settings: Map<string, string>;
  readonly workflows: Map<string, Workflow>;
  readonly executions: Map<string, Execution>;
  /** The hashes of a paused execution's resume and cancel tokens, by execution id. */
  readonly flowTokens: Map<string, { resume: string; cancel: string }>;
  /** Environment variables by `workspaceId + "\0" + name`. */
  readonly env: Map<string, EnvVar>;
  /** Ids of deliveries that are pending, paused or in flight (the hot paths ignore finished ones). */
  readonly openDeliveries: Set<string>;
  /** Ids of deliveries in flight. */
  readonly deliveringIds: Set<string>;
  /** Due pending deliveries. */
  readonly due: DueHeap;
  readonly listeners: Set<(notice: StoreNotice) => void>;
  /** The next store-wide sequence number. */
  nextSeq(): number;
  /** Throws `closed` once the store is closed. */
  open(): void;
  /** Marks the store closed. */
  close(): void;
  /** Announces a change to the subscribers of `notifications` (every notice is local here). */
  announce(notice: StoreNotice): void;
  /** Moves a delivery to `state`, keeping the indexes of open and in-flight rows right. */
  setState(row: Delivery, state: DeliveryState): void;
  /** The open (pending, paused, in-flight) deliveries. */
  openRows(): Delivery[];
  /** Fails the open deliveries matching `predicate` with `reason`; returns how many. */
  cancelDeliveries(predicate: (delivery: Delivery) => boolean, reason: string): number;
  /** Deletes events by id and fails their open deliveries (`event_deleted`); returns how many. */
  deleteEvents(ids: Iterable<string>): number;
}

/** The row when it belongs to the workspace. */
export const inWorkspace = <T extends { workspaceId: string }>(
  row: T | undefined,
  workspaceId: string,
): T | undefined => (row && row.workspaceId === workspaceId ? row : undefined);

/** The workspace's rows of a map, in insertion order. */
export const byWorkspace = <T extends { workspaceId: string }>(
  map: Map<string, T>,
  workspaceId: string,
): T[] => [...map.values()].filter((row) => row.workspaceId === workspaceId);

/**
 * Applies a patch as every `update` of the Store means it: an undefined field is left alone, `null`
 * removes an optional field, anything else replaces it (deep values copied).
 */
export function applyPatch<T extends object>(row: T, patch: object): void {
  const target = row as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete target[key];
    else target[key] = typeof value === "object" ? structuredClone(value) : value;
  }
}

/** Makes the state of a new memory store. */
export function createMemoryState(options: MemoryStoreOptions): MemoryState {
  const deliveries = new Map<string, Delivery>();
  const events = new Map<string, StoredEvent>();
  const eventBytes = new Map<string, number>();
  const eventTexts = new Map<string, string>();
  const eventsByEmitter = new Map<string, Set<string>>();
  const openDeliveries = new Set<string>();
  const deliveringIds = new Set<string>();
  const listeners = new Set<(notice: StoreNotice) => void>();
  let seq = 0;
  let closed = false;

  const state: MemoryState = {
    clock: options.now ?? Date.now,
    faults: options.faults,
    workspaces: new Map(),
    apiKeys: new Map(),
    accounts: new Map(),
    accountLeases: new Map(),
    oauthClients: new Map(),
    authTickets: new Map(),
    saved: new Map(),
    deployed: new Map(),
    dedupe: new Map(),
    kv: new Map(),
    kvVersions: new Map(),
    events,
    eventBytes,
    eventTexts,
    eventsByEmitter,
    logs: new Map(),
    webhooks: new Map(),
    subscriptions: new Map(),
    replays: new Map(),
    timers: new Map(),
    deliveries,
    attempts: new Map(),
    settings: new Map(),
    workflows: new Map(),
    executions: new Map(),
    flowTokens: new Map(),
    env: new Map(),
    openDeliveries,
    deliveringIds,
    due: createDueHeap(deliveries),
    listeners,
    nextSeq: () => ++seq,
    open() {
      if (closed) throw new StoreError("closed", "The store is closed");
    },
    close() {
      closed = true;
      listeners.clear();
    },
    announce(notice) {
      for (const listener of [...listeners]) {
        try {
          listener(notice);
        } catch {
          // A listener's error never fails the operation.
        }
      }
    },
    setState(row, next) {
      row.state = next;
      if (next === "delivering") deliveringIds.add(row.id);
      else deliveringIds.delete(row.id);
      if (next === "pending" || next === "paused" || next === "delivering") openDeliveries.add(row.id);
      else openDeliveries.delete(row.id);
    },
    openRows() {
      const rows: Delivery[] = [];
      for (const id of openDeliveries) {
        const row = deliveries.get(id);
        if (row) rows.push(row);
      }
      return rows;
    },
    cancelDeliveries(predicate, reason) {
      const now = state.clock();
      let count = 0;
      for (const delivery of state.openRows()) {
        if (!predicate(delivery)) continue;
        state.setState(delivery, "failed");
        delivery.lastError = reason;
        delete delivery.leaseOwner;
        delete delivery.leaseExpiresAt;
        delivery.updatedAt = now;
        count++;
      }
      return count;
    },
    deleteEvents(ids) {
      const removed = new Set<string>();
      for (const id of ids) {
        const row = events.get(id);
        if (!row) continue;
        events.delete(id);
        eventBytes.delete(id);
        eventTexts.delete(id);
        eventsByEmitter.get(row.emitterId)?.delete(id);
        removed.add(id);
      }
      if (removed.size > 0)
        state.cancelDeliveries((delivery) => removed.has(delivery.eventId), "event_deleted");
      return removed.size;
    },
  };
  return state;
}
