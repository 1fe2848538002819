import { DEFAULT_CHANNEL, newId } from "@hookline/core";
import {
  type Account,
  type ApiKey,
  type AppendedEvent,
  type Attempt,
  type ClaimedDelivery,
  type Delivery,
  type DeployedComponent,
  type LogLine,
  type Page,
  type SavedComponent,
  type Store,
  type StoredEvent,
  StoreError,
  type StoreNotice,
  type Subscription,
  type Timer,
  type Webhook,
  type Workspace,
} from "./types.js";

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock used for `createdAt`/`updatedAt` (defaults to `Date.now`). */
  now?: () => number;
}

const copy = <T>(value: T): T => structuredClone(value);

/** Thrown by {@link copyJsonLike} on a value it leaves to `structuredClone`. */
const NOT_PLAIN = Symbol("not_plain");

function copyJsonLike(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "function" || typeof value === "symbol") throw NOT_PLAIN;
    return value;
  }
  if (depth > 32) throw NOT_PLAIN; // Deep or cyclic.
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = copyJsonLike(value[i], depth + 1);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN; // Date, Map, typed arrays...
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    out[key] = copyJsonLike((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

/**
 * A deep copy like {@link copy}, a few times cheaper for rows of plain objects, arrays and primitives
 * (what claims hand out on every delivery); anything else goes through `structuredClone`.
 */
const copyPlain = <T>(value: T): T => {
  try {
    return copyJsonLike(value, 0) as T;
  } catch (error) {
    if (error === NOT_PLAIN) return structuredClone(value);
    throw error;
  }
};

function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(max, Math.floor(limit)));
}

function parseCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const value = Number(cursor);
  if (!Number.isSafeInteger(value)) throw new StoreError("invalid", `Invalid cursor: ${cursor}`);
  return value;
}

/**
 * Compares two versions simply: numeric dot parts, a pre-release sorts before its release, and an
 * absent version sorts first. Returns a negative number, 0 or a positive number.
 *
 * @example
 * ```ts
 * compareVersions("1.10.0", "1.9.2"); // 1
 * compareVersions("1.0.0-beta", "1.0.0"); // -1
 * ```
 */
export function compareVersions(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  const [coreA = "", preA] = a.replace(/^v/, "").split(/-(.*)/s);
  const [coreB = "", preB] = b.replace(/^v/, "").split(/-(.*)/s);
  const partsA = coreA.split(".");
  const partsB = coreB.split(".");
  for (let i = 0; i < Math.max(partsA.length, partsB.length); i++) {
    const x = partsA[i] ?? "0";
    const y = partsB[i] ?? "0";
    const nx = Number(x);
    const ny = Number(y);
    if (Number.isFinite(nx) && Number.isFinite(ny)) {
      if (nx !== ny) return nx < ny ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA < preB ? -1 : 1;
}

const channelOf = (eventName: string | null | undefined): string => eventName ?? DEFAULT_CHANNEL;

/**
 * Creates an in-memory {@link Store}: plain Maps, for tests and embedding. Every operation runs
 * synchronously inside its promise, so each one is atomic. Returned rows are copies. Its
 * `notifications` announce its own changes, in-process and synchronously (every notice is `local`).
 *
 * @param options - Optional clock.
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const ws = await store.workspaces.create({ name: "Acme" });
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const clock = options.now ?? Date.now;
  const workspaces = new Map<string, Workspace>();
  const apiKeys = new Map<string, ApiKey>();
  const accounts = new Map<string, Account>();
  const saved = new Map<string, SavedComponent>();
  const deployed = new Map<string, DeployedComponent>();
  const dedupe = new Map<string, unknown>();
  const kv = new Map<string, Map<string, unknown>>();
  const events = new Map<string, StoredEvent>();
  const logs = new Map<string, LogLine[]>();
  const webhooks = new Map<string, Webhook>();
  const subscriptions = new Map<string, Subscription>();
  const timers = new Map<string, Timer>();
  const deliveries = new Map<string, Delivery>();
  // Indexes that keep hot paths independent of history: ids of pending or in-flight deliveries,
  // and each emitter's event ids in seq order.
  const openDeliveries = new Set<string>();
  const eventsByEmitter = new Map<string, Set<string>>();
  const attempts = new Map<string, Attempt[]>();
  let seq = 0;
  let closed = false;
  const listeners = new Set<(notice: StoreNotice) => void>();
  /** Announces a change to the subscribers of `notifications` (all notices are local here). */
  const announce = (notice: StoreNotice): void => {
    for (const listener of [...listeners]) {
      try {
        listener(notice);
      } catch {
        // A listener's error never fails the operation.
      }
    }
  };
  const announceDue = (): void => announce({ kind: "deliveries", local: true });

  const open = (): void => {
    if (closed) throw new StoreError("closed", "The store is closed");
  };
  const inWorkspace = <T extends { workspaceId: string }>(
    row: T | undefined,
    workspaceId: string,
  ): T | undefined => (row && row.workspaceId === workspaceId ? row : undefined);
  const byWorkspace = <T extends { workspaceId: string }>(map: Map<string, T>, workspaceId: string): T[] =>
    [...map.values()].filter((row) => row.workspaceId === workspaceId);

  // Due pending deliveries as a binary min-heap of [nextAttemptAt, id], validated lazily on pop:
  // an entry whose row is no longer pending at that time is dropped. Claims cost O(k log n).
  const dueHeap: [number, string][] = [];
  const heapLess = (a: [number, string], b: [number, string]) =>
    a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  const heapPush = (row: Delivery): void => {
    const entry: [number, string] = [row.nextAttemptAt, row.id];
    dueHeap.push(entry);
    let i = dueHeap.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!heapLess(dueHeap[i] as [number, string], dueHeap[up] as [number, string])) break;
      [dueHeap[i], dueHeap[up]] = [dueHeap[up] as [number, string], dueHeap[i] as [number, string]];
      i = up;
    }
  };
  const heapPop = (): [number, string] | undefined => {
    const top = dueHeap[0];
    const last = dueHeap.pop();
    if (dueHeap.length > 0 && last) {
      dueHeap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < dueHeap.length && heapLess(dueHeap[l] as [number, string], dueHeap[m] as [number, string]))
          m = l;
        if (r < dueHeap.length && heapLess(dueHeap[r] as [number, string], dueHeap[m] as [number, string]))
          m = r;
        if (m === i) break;
        [dueHeap[i], dueHeap[m]] = [dueHeap[m] as [number, string], dueHeap[i] as [number, string]];
        i = m;
      }
    }
    return top;
  };
  /** Pops up to `max` valid due rows (earliest first); `accept` may refuse a row, which stays queued. */
  const popDue = (now: number, max: number, accept: (row: Delivery) => boolean): Delivery[] => {
    const out: Delivery[] = [];
    const refused: Delivery[] = [];
    while (out.length < max && dueHeap.length > 0 && (dueHeap[0] as [number, string])[0] <= now) {
      const [at, id] = heapPop() as [number, string];
      const row = deliveries.get(id);
      if (row?.state !== "pending" || row.nextAttemptAt !== at) continue;
      if (accept(row)) out.push(row);
      else refused.push(row);
    }
    for (const row of refused) heapPush(row);
    return out;
  };

  const deliveringIds = new Set<string>();
  const lease = (row: Delivery, event: StoredEvent, webhook: Webhook): ClaimedDelivery => {
    setState(row, "delivering");
    row.attempts += 1;
    row.leaseOwner = leaseOwnerOf.owner;
    row.leaseExpiresAt = leaseOwnerOf.expiresAt;
    row.updatedAt = leaseOwnerOf.now;
    return { ...copyPlain(row), event: copyPlain(event), webhook: copyPlain(webhook) };
  };
  const leaseOwnerOf = { owner: "", expiresAt: 0, now: 0 };

  const setState = (row: Delivery, state: Delivery["state"]): void => {
    row.state = state;
    if (state === "delivering") deliveringIds.add(row.id);
    else deliveringIds.delete(row.id);
    if (state === "pending" || state === "delivering") openDeliveries.add(row.id);
    else openDeliveries.delete(row.id);
  };
  const openRows = (): Delivery[] => {
    const rows: Delivery[] = [];
    for (const id of openDeliveries) {
      const row = deliveries.get(id);
      if (row) rows.push(row);
    }
    return rows;
  };

  /** Fails the given deliveries if pending or in flight. */
  const cancelDeliveries = (predicate: (delivery: Delivery) => boolean, reason: string): void => {
    const now = clock();
    for (const delivery of openRows()) {
      if ((delivery.state === "pending" || delivery.state === "delivering") && predicate(delivery)) {
        setState(delivery, "failed");
        delivery.lastError = reason;
        delete delivery.leaseOwner;
        delete delivery.leaseExpiresAt;
        delivery.updatedAt = now;
      }
    }
  };

  const deleteEvents = (ids: Iterable<string>): number => {
    const removed = new Set<string>();
    for (const id of ids) {
      const row = events.get(id);
      if (!row) continue;
      events.delete(id);
      eventsByEmitter.get(row.emitterId)?.delete(id);
      removed.add(id);
    }
    if (removed.size > 0) cancelDeliveries((delivery) => removed.has(delivery.eventId), "event_deleted");
    return removed.size;
  };

  const store: Store = {
    workspaces: {
      async create(input) {
        open();
        const id = input.id ?? newId("ws");
        if (workspaces.has(id)) throw new StoreError("conflict", `Workspace ${id} exists`);
        const row: Workspace = { id, name: input.name, createdAt: clock() };
        workspaces.set(id, row);
        return copy(row);
      },
      async get(id) {
        open();
        return copy(workspaces.get(id));
      },
      async list() {
        open();
        return copy([...workspaces.values()]);
      },
    },

    apiKeys: {
      async create(input) {
        open();
        for (const key of apiKeys.values()) {
          if (key.hash === input.hash) throw new StoreError("conflict", "An API key with this hash exists");
        }
        const row: ApiKey = {
          id: newId("key"),
          workspaceId: input.workspaceId,
          name: input.name,
          hash: input.hash,
          hint: input.hint,
          createdAt: clock(),
        };
        apiKeys.set(row.id, row);
        return copy(row);
      },
      async findByHash(hash) {
        open();
        for (const key of apiKeys.values()) {
          if (key.hash === hash && key.revokedAt === undefined) return copy(key);
        }
        return undefined;
      },
      async list(workspaceId) {
        open();
        return copy(byWorkspace(apiKeys, workspaceId));
      },
      async revoke(workspaceId, id) {
        open();
        const key = inWorkspace(apiKeys.get(id), workspaceId);
        if (!key || key.revokedAt !== undefined) return false;
        key.revokedAt = clock();
        return true;
      },
    },

    accounts: {
      async create(input) {
        open();
        const now = clock();
        const row: Account = {
          id: newId("apn"),
          workspaceId: input.workspaceId,
          app: input.app,
          name: input.name,
          credentials: input.credentials,
          createdAt: now,
          updatedAt: now,
        };
        accounts.set(row.id, row);
        return copy(row);
      },
      async get(workspaceId, id) {
        open();
        return copy(inWorkspace(accounts.get(id), workspaceId));
      },
      async list(workspaceId, filter = {}) {
        open();
        return copy(
          byWorkspace(accounts, workspaceId).filter(
            (row) => filter.app === undefined || row.app === filter.app,
          ),
        );
      },
      async update(workspaceId, id, patch) {
        open();
        const row = inWorkspace(accounts.get(id), workspaceId);
        if (!row) return undefined;
        if (patch.name !== undefined) row.name = patch.name;
        if (patch.credentials !== undefined) row.credentials = patch.credentials;
        row.updatedAt = clock();
        return copy(row);
      },
      async delete(workspaceId, id) {
        open();
        if (!inWorkspace(accounts.get(id), workspaceId)) return false;
        return accounts.delete(id);
      },
    },

    savedComponents: {
      async create(input) {
        open();
        if (input.key !== undefined && input.version !== undefined) {
          for (const row of saved.values()) {
            if (
              row.workspaceId === input.workspaceId &&
              row.key === input.key &&
              row.version === input.version
            ) {
              throw new StoreError("conflict", `Component ${input.key}@${input.version} exists`);
            }
          }
        }
        const row: SavedComponent = {
          id: newId("sc"),
          workspaceId: input.workspaceId,
          code: input.code,
          codeHash: input.codeHash,
          filename: input.filename,
          bundle: input.bundle,
          description: copy(input.description),
          published: input.published ?? "private",
          createdAt: clock(),
        };
        if (input.key !== undefined) row.key = input.key;
        if (input.version !== undefined) row.version = input.version;
        saved.set(row.id, row);
        return copy(row);
      },
      async get(workspaceId, id) {
        open();
        return copy(inWorkspace(saved.get(id), workspaceId));
      },
      async list(workspaceId) {
        open();
        return copy(byWorkspace(saved, workspaceId));
      },
      async findByKey(workspaceId, key, version) {
        open();
        let best: SavedComponent | undefined;
        let bestOrder = -1;
        let order = 0;
        for (const row of saved.values()) {
          order++;
          if (row.key !== key) continue;
          if (row.workspaceId !== workspaceId && row.published !== "public") continue;
          if (version !== undefined && row.version !== version) continue;
          if (!best) {
            best = row;
            bestOrder = order;
            continue;
          }
          const cmp = compareVersions(row.version, best.version);
          const own = row.workspaceId === workspaceId;
          const bestOwn = best.workspaceId === workspaceId;
          if (cmp > 0 || (cmp === 0 && ((own && !bestOwn) || (own === bestOwn && order > bestOrder)))) {
            best = row;
            bestOrder = order;
          }
        }
        return copy(best);
      },
    },

    deployedComponents: {
      async create(input) {
        open();
        const id = input.id ?? newId("dc");
        if (deployed.has(id)) throw new StoreError("conflict", `Deployed component ${id} exists`);
        for (const row of deployed.values()) {
          if (row.workspaceId === input.workspaceId && row.slug === input.slug) {
            throw new StoreError("conflict", `Slug ${input.slug} is taken`);
          }
          if (input.endpointId !== undefined && row.endpointId === input.endpointId) {
            throw new StoreError("conflict", `Endpoint ${input.endpointId} is taken`);
          }
        }
        const now = clock();
        const row: DeployedComponent = {
          id,
          workspaceId: input.workspaceId,
          savedComponentId: input.savedComponentId,
          name: input.name,
          slug: input.slug,
          props: copy(input.props),
          active: input.active,
          createdAt: now,
          updatedAt: now,
        };
        if (input.endpointId !== undefined) row.endpointId = input.endpointId;
        if (input.customResponse !== undefined) row.customResponse = input.customResponse;
        if (input.meta !== undefined) row.meta = copy(input.meta);
        deployed.set(id, row);
        return copy(row);
      },
      async get(workspaceId, id) {
        open();
        return copy(inWorkspace(deployed.get(id), workspaceId));
      },
      async getBySlug(workspaceId, slug) {
        open();
        for (const row of deployed.values()) {
          if (row.workspaceId === workspaceId && row.slug === slug) return copy(row);
        }
        return undefined;
      },
      async getByEndpoint(endpointId) {
        open();
        for (const row of deployed.values()) if (row.endpointId === endpointId) return copy(row);
        return undefined;
      },
      async list(workspaceId) {
        open();
        return copy(byWorkspace(deployed, workspaceId));
      },
      async update(workspaceId, id, patch) {
        open();
        const row = inWorkspace(deployed.get(id), workspaceId);
        if (!row) return undefined;
        for (const other of deployed.values()) {
          if (other.id === id) continue;
          if (patch.slug !== undefined && other.workspaceId === workspaceId && other.slug === patch.slug) {
            throw new StoreError("conflict", `Slug ${patch.slug} is taken`);
          }
          if (typeof patch.endpointId === "string" && other.endpointId === patch.endpointId) {
            throw new StoreError("conflict", `Endpoint ${patch.endpointId} is taken`);
          }
        }
        if (patch.savedComponentId !== undefined) row.savedComponentId = patch.savedComponentId;
        if (patch.name !== undefined) row.name = patch.name;
        if (patch.slug !== undefined) row.slug = patch.slug;
        if (patch.props !== undefined) row.props = copy(patch.props);
        if (patch.active !== undefined) row.active = patch.active;
        if (patch.customResponse !== undefined) row.customResponse = patch.customResponse;
        if (patch.endpointId === null) delete row.endpointId;
        else if (patch.endpointId !== undefined) row.endpointId = patch.endpointId;
        if (patch.meta === null) delete row.meta;
        else if (patch.meta !== undefined) row.meta = copy(patch.meta);
        row.updatedAt = clock();
        return copy(row);
      },
      async delete(workspaceId, id) {
        open();
        if (!inWorkspace(deployed.get(id), workspaceId)) return false;
        deployed.delete(id);
        kv.delete(id);
        dedupe.delete(id);
        timers.delete(id);
        logs.delete(id);
        for (const sub of [...subscriptions.values()]) {
          if (sub.emitterId === id || sub.listenerId === id) subscriptions.delete(sub.id);
        }
        return true;
      },
    },

    dedupe: {
      async get(componentId) {
        open();
        return copy(dedupe.get(componentId));
      },
      async set(componentId, state) {
        open();
        dedupe.set(componentId, copy(state));
      },
    },

    kv: {
      async get(componentId, key) {
        open();
        return copy(kv.get(componentId)?.get(key));
      },
      async set(componentId, key, value) {
        open();
        let map = kv.get(componentId);
        if (!map) {
          map = new Map();
          kv.set(componentId, map);
        }
        map.set(key, copy(value));
      },
      async delete(componentId, key) {
        open();
        return kv.get(componentId)?.delete(key) ?? false;
      },
      async list(componentId) {
        open();
        const map = kv.get(componentId);
        if (!map) return [];
        return [...map.entries()]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([key, value]) => ({ key, value: copy(value) }));
      },
    },

    events: {
      async append(workspaceId, emitterId, inputs, appendOptions = {}) {
        open();
        const now = appendOptions.now ?? clock();
        const subs = [...subscriptions.values()].filter(
          (sub) => sub.workspaceId === workspaceId && sub.emitterId === emitterId,
        );
        const result: AppendedEvent[] = [];
        for (const input of inputs) {
          const row: StoredEvent = {
            id: newId("evt", now),
            seq: ++seq,
            workspaceId,
            emitterId,
            channel: input.channel,
            ts: input.ts,
            body: copy(input.body),
            createdAt: now,
          };
          if (input.summary !== undefined) row.summary = input.summary;
          if (input.eventId !== undefined) row.eventId = input.eventId;
          events.set(row.id, row);
          let emitted = eventsByEmitter.get(emitterId);
          if (!emitted) {
            emitted = new Set();
            eventsByEmitter.set(emitterId, emitted);
          }
          emitted.add(row.id);
          const deliveryIds: string[] = [];
          const seen = new Set<string>();
          for (const sub of subs) {
            if (channelOf(sub.eventName) !== row.channel) continue;
            const webhook = webhooks.get(sub.listenerId);
            if (!webhook?.active || webhook.workspaceId !== workspaceId) continue;
            if (seen.has(webhook.id)) continue;
            seen.add(webhook.id);
            const delivery: Delivery = {
              id: newId("dlv", now),
              workspaceId,
              webhookId: webhook.id,
              eventId: row.id,
              emitterId,
              channel: row.channel,
              state: "pending",
              attempts: 0,
              nextAttemptAt: now,
              createdAt: now,
              updatedAt: now,
            };
            deliveries.set(delivery.id, delivery);
            openDeliveries.add(delivery.id);
            heapPush(delivery);
            deliveryIds.push(delivery.id);
          }
          result.push({ ...copy(row), deliveryIds });
        }
        if (result.length > 0) {
          announce({ kind: "events", local: true, workspaceId, emitterId, seqs: result.map((e) => e.seq) });
          if (result.some((e) => e.deliveryIds.length > 0)) announceDue();
        }
        return result;
      },
      async list(workspaceId, emitterId, listOptions = {}) {
        open();
        const limit = clampLimit(listOptions.limit, 10, 100);
        const before = parseCursor(listOptions.before);
        const after = parseCursor(listOptions.after);
        const matching = [...(eventsByEmitter.get(emitterId) ?? [])]
          .map((id) => events.get(id) as StoredEvent)
          .filter(
            (row) =>
              row.workspaceId === workspaceId &&
              (listOptions.channel === undefined || row.channel === listOptions.channel) &&
              (before === undefined || row.seq < before) &&
              (after === undefined || row.seq > after),
          )
          .sort((a, b) => b.seq - a.seq);
        const items = matching.slice(0, limit);
        const page: Page<StoredEvent> = { items: copy(items) };
        const last = items[items.length - 1];
        if (matching.length > limit && last) page.nextCursor = String(last.seq);
        return page;
      },
      async get(workspaceId, id) {
        open();
        return copy(inWorkspace(events.get(id), workspaceId));
      },
      async getById(id) {
        open();
        return copy(events.get(id));
      },
      async delete(workspaceId, emitterId, ids) {
        open();
        const wanted = ids ? new Set(ids) : undefined;
        const targets = [...events.values()]
          .filter(
            (row) =>
              row.workspaceId === workspaceId &&
              row.emitterId === emitterId &&
              (wanted === undefined || wanted.has(row.id)),
          )
          .map((row) => row.id);
        return deleteEvents(targets);
      },
      async trim(emitterId, keep) {
        open();
        const ids = eventsByEmitter.get(emitterId);
        if (!ids || ids.size <= Math.max(0, keep)) return 0;
        // The set is in seq order: the first ones are the oldest.
        return deleteEvents([...ids].slice(0, ids.size - Math.max(0, keep)));
      },
    },

    logs: {
      async append(workspaceId, componentId, lines) {
        open();
        let list = logs.get(componentId);
        if (!list) {
          list = [];
          logs.set(componentId, list);
        }
        const stored: LogLine[] = [];
        for (const line of lines) {
          const row: LogLine = {
            seq: ++seq,
            workspaceId,
            componentId,
            level: line.level,
            message: line.message,
            ts: line.ts,
          };
          list.push(row);
          stored.push(copy(row));
        }
        if (stored.length > 0) {
          announce({ kind: "logs", local: true, workspaceId, componentId, seqs: stored.map((l) => l.seq) });
        }
        return stored;
      },
      async list(workspaceId, componentId, listOptions = {}) {
        open();
        const limit = clampLimit(listOptions.limit, 100, 1000);
        const after = parseCursor(listOptions.after);
        const matching = (logs.get(componentId) ?? []).filter(
          (row) => row.workspaceId === workspaceId && (after === undefined || row.seq > after),
        );
        const items = matching.slice(0, limit);
        const page: Page<LogLine> = { items: copy(items) };
        const last = items[items.length - 1];
        if (matching.length > limit && last) page.nextCursor = String(last.seq);
        return page;
      },
      async trim(componentId, keep) {
        open();
        const list = logs.get(componentId);
        if (!list) return 0;
        const removed = Math.max(0, list.length - Math.max(0, keep));
        list.splice(0, removed);
        return removed;
      },
    },

    webhooks: {
      async create(input) {
        open();
        const now = clock();
        const row: Webhook = {
          id: newId("wh"),
          workspaceId: input.workspaceId,
          url: input.url,
          active: input.active,
          secrets: copy(input.secrets),
          createdAt: now,
          updatedAt: now,
        };
        if (input.name !== undefined) row.name = input.name;
        if (input.description !== undefined) row.description = input.description;
        webhooks.set(row.id, row);
        return copy(row);
      },
      async get(workspaceId, id) {
        open();
        return copy(inWorkspace(webhooks.get(id), workspaceId));
      },
      async list(workspaceId) {
        open();
        return copy(byWorkspace(webhooks, workspaceId));
      },
      async update(workspaceId, id, patch) {
        open();
        const row = inWorkspace(webhooks.get(id), workspaceId);
        if (!row) return undefined;
        if (patch.url !== undefined) row.url = patch.url;
        if (patch.active !== undefined) row.active = patch.active;
        if (patch.secrets !== undefined) row.secrets = copy(patch.secrets);
        if (patch.name === null) delete row.name;
        else if (patch.name !== undefined) row.name = patch.name;
        if (patch.description === null) delete row.description;
        else if (patch.description !== undefined) row.description = patch.description;
        if (patch.disabledReason === null) delete row.disabledReason;
        else if (patch.disabledReason !== undefined) row.disabledReason = patch.disabledReason;
        if (patch.failingSince === null) delete row.failingSince;
        else if (patch.failingSince !== undefined) row.failingSince = patch.failingSince;
        row.updatedAt = clock();
        return copy(row);
      },
      async delete(workspaceId, id) {
        open();
        if (!inWorkspace(webhooks.get(id), workspaceId)) return false;
        webhooks.delete(id);
        for (const sub of [...subscriptions.values()]) {
          if (sub.listenerId === id) subscriptions.delete(sub.id);
        }
        cancelDeliveries((delivery) => delivery.webhookId === id, "webhook_deleted");
        return true;
      },
    },

    subscriptions: {
      async create(input) {
        open();
        const channel = channelOf(input.eventName);
        for (const sub of subscriptions.values()) {
          if (
            sub.workspaceId === input.workspaceId &&
            sub.emitterId === input.emitterId &&
            sub.listenerId === input.listenerId &&
            channelOf(sub.eventName) === channel
          ) {
            return { ...copy(sub), created: false };
          }
        }
        const row: Subscription = {
          id: newId("sub"),
          workspaceId: input.workspaceId,
          emitterId: input.emitterId,
          listenerId: input.listenerId,
          eventName: input.eventName ?? null,
          createdAt: clock(),
        };
        subscriptions.set(row.id, row);
        return { ...copy(row), created: true };
      },
      async list(workspaceId, filter = {}) {
        open();
        return copy(
          byWorkspace(subscriptions, workspaceId).filter(
            (sub) =>
              (filter.emitterId === undefined || sub.emitterId === filter.emitterId) &&
              (filter.listenerId === undefined || sub.listenerId === filter.listenerId),
          ),
        );
      },
      async delete(workspaceId, match) {
        open();
        let count = 0;
        for (const sub of [...subscriptions.values()]) {
          if (
            sub.workspaceId === workspaceId &&
            sub.emitterId === match.emitterId &&
            sub.listenerId === match.listenerId &&
            (match.eventName === undefined || channelOf(sub.eventName) === channelOf(match.eventName))
          ) {
            subscriptions.delete(sub.id);
            count++;
          }
        }
        return count;
      },
    },

    timers: {
      async upsert(input) {
        open();
        const row: Timer = {
          componentId: input.componentId,
          workspaceId: input.workspaceId,
          nextAt: input.nextAt,
        };
        timers.set(row.componentId, row);
        return copy(row);
      },
      async get(workspaceId, componentId) {
        open();
        return copy(inWorkspace(timers.get(componentId), workspaceId));
      },
      async delete(componentId) {
        open();
        return timers.delete(componentId);
      },
      async claimDue(now, owner, leaseMs, limit) {
        open();
        const due = [...timers.values()]
          .filter(
            (row) => row.nextAt <= now && (row.leaseExpiresAt === undefined || row.leaseExpiresAt <= now),
          )
          .sort((a, b) => a.nextAt - b.nextAt)
          .slice(0, Math.max(0, limit));
        for (const row of due) {
          row.leaseOwner = owner;
          row.leaseExpiresAt = now + leaseMs;
        }
        return copy(due);
      },
      async advance(componentId, owner, firedAt, nextAt) {
        open();
        const row = timers.get(componentId);
        if (!row || row.leaseOwner !== owner || row.nextAt !== firedAt) return false;
        row.nextAt = nextAt;
        delete row.leaseOwner;
        delete row.leaseExpiresAt;
        return true;
      },
    },

    deliveries: {
      async claim(claimOptions) {
        open();
        const { owner, now, leaseMs, limit, perWebhookLimit } = claimOptions;
        const inFlight = new Map<string, number>();
        if (perWebhookLimit !== undefined) {
          for (const id of deliveringIds) {
            const row = deliveries.get(id);
            if (row && (row.leaseExpiresAt ?? 0) > now) {
              inFlight.set(row.webhookId, (inFlight.get(row.webhookId) ?? 0) + 1);
            }
          }
        }
        leaseOwnerOf.owner = owner;
        leaseOwnerOf.expiresAt = now + leaseMs;
        leaseOwnerOf.now = now;
        const claimed: ClaimedDelivery[] = [];
        const max = Math.max(0, limit);
        while (claimed.length < max) {
          const batch = popDue(now, max - claimed.length, (row) => {
            if (perWebhookLimit === undefined || !events.has(row.eventId) || !webhooks.has(row.webhookId))
              return true;
            const count = inFlight.get(row.webhookId) ?? 0;
            if (count >= perWebhookLimit) return false;
            inFlight.set(row.webhookId, count + 1);
            return true;
          });
          if (batch.length === 0) break;
          for (const row of batch) {
            const event = events.get(row.eventId);
            const webhook = webhooks.get(row.webhookId);
            if (!event || !webhook) {
              setState(row, "failed");
              row.lastError = event ? "webhook_deleted" : "event_deleted";
              row.updatedAt = now;
              continue;
            }
            claimed.push(lease(row, event, webhook));
          }
        }
        return claimed;
      },
      async complete(id, owner, outcome) {
        const row = deliveries.get(id);
        if (row?.state !== "delivering" || row.leaseOwner !== owner) return false;
        const at = outcome.at ?? clock();
        setState(row, outcome.state);
        if (outcome.state === "pending") {
          row.nextAttemptAt = outcome.nextAttemptAt ?? at;
          heapPush(row);
        }
        if (outcome.status !== undefined) row.lastStatus = outcome.status;
        else delete row.lastStatus;
        if (outcome.error !== undefined) row.lastError = outcome.error;
        else delete row.lastError;
        delete row.leaseOwner;
        delete row.leaseExpiresAt;
        row.updatedAt = at;
        if (outcome.state === "pending" && row.nextAttemptAt <= at) announceDue();
        return true;
      },
      async recordAttempt(input) {
        open();
        const row: Attempt = { id: newId("att", input.at), ...copy(input) };
        let list = attempts.get(input.deliveryId);
        if (!list) {
          list = [];
          attempts.set(input.deliveryId, list);
        }
        list.push(row);
        return copy(row);
      },
      async listAttempts(workspaceId, deliveryId) {
        open();
        return copy((attempts.get(deliveryId) ?? []).filter((row) => row.workspaceId === workspaceId));
      },
      async sweep(now) {
        open();
        let count = 0;
        for (const id of [...deliveringIds]) {
          const row = deliveries.get(id) as Delivery;
          if (row.state === "delivering" && (row.leaseExpiresAt ?? 0) <= now) {
            setState(row, "pending");
            delete row.leaseOwner;
            delete row.leaseExpiresAt;
            row.updatedAt = now;
            heapPush(row);
            count++;
          }
        }
        if (count > 0) announceDue();
        return count;
      },
      async get(workspaceId, id) {
        open();
        const row = inWorkspace(deliveries.get(id), workspaceId);
        if (!row) return undefined;
        const event = events.get(row.eventId);
        return event ? { ...copy(row), event: copy(event) } : copy(row);
      },
      async list(workspaceId, listOptions = {}) {
        open();
        const limit = clampLimit(listOptions.limit, 50, 100);
        const { before, webhookId, eventId, state } = listOptions;
        const matching = byWorkspace(deliveries, workspaceId)
          .filter(
            (row) =>
              (webhookId === undefined || row.webhookId === webhookId) &&
              (eventId === undefined || row.eventId === eventId) &&
              (state === undefined || row.state === state) &&
              (before === undefined || row.id < before),
          )
          .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
        const items = matching.slice(0, limit);
        const page: Page<Delivery> = { items: copy(items) };
        const last = items[items.length - 1];
        if (matching.length > limit && last) page.nextCursor = last.id;
        return page;
      },
      async retry(workspaceId, id, now) {
        open();
        const row = inWorkspace(deliveries.get(id), workspaceId);
        if (!row || row.state === "delivering") return false;
        if (!events.has(row.eventId) || !webhooks.has(row.webhookId)) return false;
        setState(row, "pending");
        row.nextAttemptAt = now;
        row.updatedAt = now;
        heapPush(row);
        announceDue();
        return true;
      },
      async recover(workspaceId, webhookId, window, now) {
        open();
        if (!inWorkspace(webhooks.get(webhookId), workspaceId)) return 0;
        let count = 0;
        for (const row of deliveries.values()) {
          if (
            row.workspaceId === workspaceId &&
            row.webhookId === webhookId &&
            row.state === "failed" &&
            row.createdAt >= window.since &&
            (window.until === undefined || row.createdAt < window.until) &&
            events.has(row.eventId)
          ) {
            setState(row, "pending");
            row.nextAttemptAt = now;
            row.updatedAt = now;
            heapPush(row);
            count++;
          }
        }
        if (count > 0) announceDue();
        return count;
      },
    },

    notifications: {
      subscribe(listener) {
        const own = (notice: StoreNotice) => listener(notice);
        listeners.add(own);
        return () => {
          listeners.delete(own);
        };
      },
    },

    async close() {
      closed = true;
      listeners.clear();
    },
  };
  return store;
}
