/**
 * Mounted components: the host bridges a sandbox gets (`$.service.db`, `fetch`), the props it sees,
 * the cache of each source's sandbox, and the ONE per-source invocation queue.
 *
 * The rule this module owns: the engine never calls one mounted component concurrently. Every call
 * into a sandbox (run, hooks, options, additionalProps) and the db snapshot and write-back around
 * a run happen inside {@link Mounts.exclusive} for the sandbox's id, so a source's invocations run
 * one at a time, in arrival order (dedupe is the store's, decided in the emit commit under a lock:
 * runs.ts). The queue is bounded: past
 * `limits.maxQueuedInvocations` waiting invocations a new one fails with `source_busy` (429).
 */
import { HooklineError, type PropDescription } from "@hookline/core";
import type { Transport } from "@hookline/delivery";
import type {
  BridgeRequest,
  BridgeResponse,
  HostBridges,
  Limits,
  MountedComponent,
  Runtime,
} from "@hookline/runtime";
import type { Account, DeployedComponent, SavedComponent, Store } from "@hookline/store";
import { type AppsContext, type AuthLog, openAuth } from "./apps.js";
import type { Clock } from "./clock.js";
import { type DataStoreDeps, dataStoreBridge } from "./data-stores.js";
import { dynamicPropsOf, finalProps } from "./dynamic-props.js";
import { HTTP_INTERFACE } from "./interfaces.js";
import { type AuthNote, type AuthStamp, authStale, authStampOf } from "./mount-auth.js";
import { netBridges } from "./net-bridges.js";
import { componentNotFound } from "./not-found.js";
import { endpointUrl } from "./views.js";

/** What a sandbox is built from: a source's id, workspace, stored prop values, endpoint and meta. */
export type MountTarget = Pick<DeployedComponent, "id" | "workspaceId" | "props" | "endpointId" | "meta">;

/** Staged db writes: hooks of a deploy or update write here; kept only when every hook succeeded. */
export type StagedDb = Map<string, unknown>;

/** What {@link createMounts} needs. */
export interface MountsDeps {
  store: Store;
  runtime: Runtime;
  transport: Transport;
  apps: AppsContext;
  /** The engine's clock (data store TTLs). */
  clock: Clock;
  /** The data store limits (keys per store, value size). */
  dataStoreLimits: DataStoreDeps["limits"];
  baseUrl: string;
  /** The sandbox limits given to every mount (the runtime's defaults fill the rest). */
  sandboxLimits: Partial<Limits> | undefined;
  /** Invocations of one key that may wait behind the running one. */
  maxQueuedInvocations: number;
}

/** Sandboxes and the per-source invocation queue of one engine. */
export interface Mounts {
  /**
   * Runs `fn` after every earlier task of the same key (a source id, or the id of a scratch
   * sandbox) has finished: one at a time, in arrival order. A bounded call (the default) fails with
   * `source_busy` (429, `details.retryAfter` in seconds) when `maxQueuedInvocations` tasks already
   * wait; lifecycle changes pass `bounded: false` so that deactivating a flooded source still works.
   * Never call `exclusive` for a key from inside a task of the same key: it would wait for itself.
   */
  exclusive<T>(key: string, fn: () => Promise<T>, options?: { bounded?: boolean }): Promise<T>;
  /** A new sandbox of `component` with `target`'s props; the caller disposes it. */
  mount(target: MountTarget, component: SavedComponent, staged?: StagedDb): Promise<MountedComponent>;
  /**
   * Mounts a scratch sandbox (its db writes staged and dropped), runs `fn` with it inside
   * `exclusive(target.id, fn, options)` and disposes it: for options and additionalProps.
   */
  withScratch<T>(
    target: MountTarget,
    component: SavedComponent,
    fn: (mounted: MountedComponent) => Promise<T>,
    options?: { bounded?: boolean },
  ): Promise<T>;
  /** The cached sandbox of a stored source, rebuilt when the source changed. Call inside `exclusive(source.id)`. */
  mounted(source: DeployedComponent): Promise<MountedComponent>;
  /** Drops (and disposes) a source's cached sandbox. */
  unmount(sourceId: string): void;
  /**
   * What the engine has to say about the accounts of a source's cached sandbox, for its next run's
   * logs: a refresh (once), an account that needs reconnecting (every run).
   */
  authNotes(sourceId: string): AuthNote[];
  /** Drops the cached sandboxes whose `$auth` came from the account (it changed on this node). */
  forgetAccount(accountId: string): void;
  /**
   * A saved component by id, kept once read (saved components never change; a new save is a new
   * id). 404 `not_found` when absent.
   */
  component(workspaceId: string, id: string): Promise<SavedComponent>;
  /**
   * Keeps `work` (the store work of a run of `key`, done outside the queue) until it settles, for
   * {@link Mounts.drain} and {@link Mounts.settled}.
   */
  track<T>(key: string, work: Promise<T>): Promise<T>;
  /** Resolves once the tracked store work of `key` started so far has settled (lifecycle changes wait for it). */
  settled(key: string): Promise<void>;
  /** Resolves once every queued task has finished. */
  drain(): Promise<void>;
  /** Disposes every cached sandbox. */
  disposeAll(): void;
}

/**
 * The `$.service.db` bridge of a source's sandbox: its kv rows in the store, or `staged` writes over
 * them. The entries are kept with the sandbox and read again only when the store says their version
 * moved on (a write of this sandbox, a hook's, another node's): each run still starts from the
 * stored state, as decision 0004 says, in one round trip that carries the rows only when they changed.
 * An invocation's writes are one atomic `kv.write`.
 */
function dbBridge(store: Store, sourceId: string, staged?: StagedDb): NonNullable<HostBridges["db"]> {
  let kept: { version: number; entries: Record<string, unknown> } | undefined;
  return {
    async entries() {
      if (staged) {
        const rows = Object.fromEntries((await store.kv.list(sourceId)).map((e) => [e.key, e.value]));
        for (const [k, v] of staged)
          if (v === undefined) delete rows[k];
          else rows[k] = v;
        return rows;
      }
      const read = await store.kv.snapshot(sourceId, kept?.version);
      if (read.entries || !kept) kept = { version: read.version, entries: read.entries ?? {} };
      return kept.entries;
    },
    async write(writes) {
      if (staged) {
        for (const [key, value] of writes) staged.set(key, value);
        return;
      }
      const before = kept;
      kept = undefined; // should the write fail, read the rows again
      const version = await store.kv.write(sourceId, writes);
      // The writes on top of the kept entries are the stored state when no one else wrote between.
      if (before && version === before.version + 1) {
        const entries = new Map(Object.entries(before.entries));
        for (const [key, value] of writes)
          if (value === undefined) entries.delete(key);
          else entries.set(key, value);
        kept = { version, entries: Object.fromEntries(entries) };
      }
    },
  };
}

/** Writes staged db writes to a source's kv rows (once its hooks succeeded), in one atomic write. */
export async function flushStaged(store: Store, sourceId: string, staged: StagedDb): Promise<void> {
  await store.kv.write(sourceId, [...staged]);
}

/** The `fetch` bridge: components' outbound HTTP through the engine's (SSRF-guarded) transport. */
export function fetchBridge(transport: Transport): NonNullable<HostBridges["fetch"]> {
  return async (request: BridgeRequest): Promise<BridgeResponse> => {
    const body =
      request.body === undefined
        ? undefined
        : request.bodyEncoding === "base64"
          ? Buffer.from(request.body, "base64")
          : request.body;
    const res = await transport.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(body !== undefined && request.method !== "GET" && request.method !== "HEAD" ? { body } : {}),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString("utf8");
    const binary = !Buffer.from(text, "utf8").equals(bytes);
    return {
      status: res.status,
      statusText: res.statusText,
      headers: Object.fromEntries(res.headers),
      body: binary ? bytes.toString("base64") : text,
      bodyEncoding: binary ? "base64" : "utf8",
    };
  };
}

/** The store a `data_store` prop's value names: a name or `ds_` id, also as `{ name }` or `{ id }`. */
function dataStoreName(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!value || typeof value !== "object") return undefined;
  const { id, name } = value as { id?: unknown; name?: unknown };
  return typeof id === "string" ? id : typeof name === "string" ? name : undefined;
}

/**
 * Turns stored prop values into what the sandbox gets: secrets opened, endpoints, `$auth` (OAuth
 * tokens refreshed when due, notes to `auth.log`, the accounts used collected in `auth.used`).
 */
export async function runtimeProps(
  deps: Pick<MountsDeps, "apps" | "baseUrl">,
  workspaceId: string,
  declared: Record<string, PropDescription>,
  stored: Record<string, unknown>,
  endpointId: string | undefined,
  auth: { log?: AuthLog; used?: Account[] } = {},
): Promise<Record<string, unknown>> {
  const { box } = deps.apps;
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(declared)) {
    const value = stored[name];
    if (prop.type === HTTP_INTERFACE)
      out[name] = { endpoint: endpointId ? endpointUrl(deps.baseUrl, endpointId) : undefined };
    else if (prop.type === "app")
      out[name] = { $auth: await openAuth(deps.apps, workspaceId, name, prop, value, auth) };
    // Stored secrets are sealed; values being configured (options, reloadProps) are still plain.
    else if (prop.secret && box.isSealed(value)) out[name] = box.open(value);
    // A data_store prop: the store's name or ds_ id (its methods go through the dataStore bridge).
    else if (prop.type === "data_store") out[name] = dataStoreName(value);
    else if (value !== undefined) out[name] = value;
  }
  // Values of props not declared (yet): what a user configures before additionalProps() adds them.
  for (const [name, value] of Object.entries(stored)) {
    if (!(name in declared) && value !== undefined) out[name] = value;
  }
  return out;
}

/** Saved components kept in memory at most (the least recently read are dropped first). */
const COMPONENT_CACHE = 500;

/** One key's queue: the tail of its chain, how many tasks it holds, how long the last one took. */
interface Lane {
  tail: Promise<unknown>;
  /** Tasks accepted and not finished (the running one included). */
  pending: number;
  lastDurationMs: number;
}

/** Creates the sandboxes and the invocation queue of one engine. */
export function createMounts(deps: MountsDeps): Mounts {
  const { store, runtime } = deps;
  const cache = new Map<string, { mounted: MountedComponent; version: string; auth: AuthStamp }>();
  const lanes = new Map<string, Lane>();
  const fetch = fetchBridge(deps.transport);
  const network = netBridges(deps.transport);
  const components = new Map<string, SavedComponent>();
  const inFlight = new Map<string, Set<Promise<unknown>>>();

  async function component(workspaceId: string, id: string): Promise<SavedComponent> {
    const key = `${workspaceId}\u0000${id}`;
    const cached = components.get(key);
    if (cached) {
      components.delete(key); // most recently read last
      components.set(key, cached);
      return cached;
    }
    const found = await store.savedComponents.get(workspaceId, id);
    if (!found) throw componentNotFound(id);
    components.set(key, found);
    if (components.size > COMPONENT_CACHE) components.delete(components.keys().next().value as string);
    return found;
  }

  /** Seconds until a refused caller should try again: the queue ahead at the last task's pace. */
  function retryAfter(lane: Lane): number {
    return Math.min(60, Math.max(1, Math.ceil((lane.pending * lane.lastDurationMs) / 1000)));
  }

  function exclusive<T>(key: string, fn: () => Promise<T>, options: { bounded?: boolean } = {}): Promise<T> {
    let lane = lanes.get(key);
    if (!lane) {
      lane = { tail: Promise.resolve(), pending: 0, lastDurationMs: 0 };
      lanes.set(key, lane);
    }
    // `pending` counts the running task: past max + 1, `max` tasks already wait behind it.
    if (options.bounded !== false && lane.pending > deps.maxQueuedInvocations) {
      const seconds = retryAfter(lane);
      throw new HooklineError(
        "source_busy",
        `${key} has ${lane.pending - 1} invocations waiting (limits.maxQueuedInvocations is ${deps.maxQueuedInvocations}): retry in ${seconds} s`,
        { retryAfter: seconds },
      );
    }
    const own = lane;
    own.pending++;
    const task = async () => {
      const started = performance.now();
      try {
        return await fn();
      } finally {
        own.lastDurationMs = performance.now() - started;
      }
    };
    const next = own.tail.then(task, task);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    own.tail = tail;
    void tail.then(() => {
      own.pending--;
      if (own.pending === 0 && lanes.get(key) === own) lanes.delete(key);
    });
    return next;
  }

  async function mount(
    target: MountTarget,
    component: SavedComponent,
    staged?: StagedDb,
    auth: { log?: AuthLog; used?: Account[] } = {},
  ): Promise<MountedComponent> {
    const description = component.description;
    const declared = finalProps(description, dynamicPropsOf(target.meta));
    return runtime.mount({
      id: target.id,
      bundle: component.bundle,
      description,
      props: await runtimeProps(deps, target.workspaceId, declared, target.props, target.endpointId, auth),
      bridges: {
        db: dbBridge(store, target.id, staged),
        fetch,
        ...network,
        dataStore: dataStoreBridge(
          { store, clock: deps.clock, limits: deps.dataStoreLimits },
          target.workspaceId,
        ),
      },
      ...(deps.sandboxLimits ? { limits: deps.sandboxLimits } : {}),
    });
  }

  function unmount(sourceId: string): void {
    cache.get(sourceId)?.mounted.dispose();
    cache.delete(sourceId);
  }

  return {
    exclusive,
    mount,
    withScratch(target, component, fn, options) {
      return exclusive(
        target.id,
        async () => {
          const mounted = await mount(target, component, new Map());
          try {
            return await fn(mounted);
          } finally {
            mounted.dispose();
          }
        },
        options,
      );
    },
    async mounted(source) {
      const version = `${source.savedComponentId}:${source.updatedAt}:${JSON.stringify(source.props)}`;
      const cached = cache.get(source.id);
      if (cached && cached.version === version && !(await authStale(deps.apps, cached.auth)))
        return cached.mounted;
      cached?.mounted.dispose();
      cache.delete(source.id);
      const used: Account[] = [];
      const notes: AuthNote[] = [];
      const log: AuthLog = (level, message) => notes.push({ level, message });
      const mounted = await mount(
        source,
        await component(source.workspaceId, source.savedComponentId),
        undefined,
        {
          log,
          used,
        },
      );
      cache.set(source.id, { mounted, version, auth: authStampOf(used, notes) });
      return mounted;
    },
    unmount,
    authNotes(sourceId) {
      const auth = cache.get(sourceId)?.auth;
      if (!auth) return [];
      const notes = auth.fresh ? auth.notes : auth.notes.filter((n) => n.level === "error");
      auth.fresh = false;
      return notes;
    },
    forgetAccount(accountId) {
      for (const [sourceId, entry] of [...cache])
        if (entry.auth.accounts.some((a) => a.id === accountId)) unmount(sourceId);
    },
    component,
    track(key, work) {
      let works = inFlight.get(key);
      if (!works) {
        works = new Set();
        inFlight.set(key, works);
      }
      const own = works;
      own.add(work);
      const done = () => {
        own.delete(work);
        if (own.size === 0 && inFlight.get(key) === own) inFlight.delete(key);
      };
      work.then(done, done);
      return work;
    },
    async settled(key) {
      await Promise.allSettled([...(inFlight.get(key) ?? [])]);
    },
    async drain() {
      await Promise.all([...lanes.values()].map((lane) => lane.tail));
      await Promise.allSettled([...inFlight.values()].flatMap((works) => [...works]));
    },
    disposeAll() {
      for (const id of [...cache.keys()]) unmount(id);
    },
  };
}
