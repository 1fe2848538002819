/**
 * The runtime in pool mode: bundling stays in the calling thread (the bundler service and the
 * package resolvers live there); describing, mounting and every invocation run in worker threads
 * (threads.ts), each mount pinned to one of them (remote-mount.ts).
 */
import { availableParallelism } from "node:os";
import type { ComponentDescription } from "@hookline/core";
import { LRUCache } from "lru-cache";
import { loadComponent, toHooklineError } from "../_load.js";
import { createBundler } from "../bundler/esbuild-bundler.js";
import { packageResolvers } from "../bundler/packages.js";
import type { Bundler } from "../bundler/types.js";
import type { RuntimeOptions } from "../options.js";
import { DEFAULT_LIMITS } from "../sandbox/sandbox.js";
import type {
  Limits,
  LoadedComponent,
  LoadInput,
  MountedComponent,
  MountOptions,
  Runtime,
} from "../types.js";
import { RemoteMount, rethrow } from "./remote-mount.js";
import { type PoolThread, ThreadPool } from "./threads.js";

/** A runtime in pool mode, with what tests and metrics read of its threads. */
export interface PoolRuntime extends Runtime {
  /** The pool's threads: how many are alive, and how many were terminated so far. */
  readonly threads: PoolStats;
}

/** What metrics read of a runtime's pool of threads. */
export interface PoolStats {
  /** Threads alive. */
  readonly size: number;
  /** Threads terminated (and replaced) so far. */
  readonly killed: number;
  /** Calls sent to the threads and not answered yet (running or waiting their turn). */
  readonly inFlight: number;
  /** Sandboxes mounted. */
  readonly mounts: number;
  /** QuickJS memory of the mounted sandboxes, bytes, as each last reported it. */
  readonly memoryBytes: number;
}

/** Creates the runtime of `mode: "pool"` (see {@link RuntimeOptions}). @internal */
export function createPoolRuntime(options: RuntimeOptions): PoolRuntime {
  const defaults: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const descriptions = new LRUCache<string, ComponentDescription>({ max: options.cacheSize ?? 500 });
  const mounts = new Map<number, RemoteMount>();
  let bundlerPromise: Promise<Bundler> | undefined = options.bundler
    ? Promise.resolve(options.bundler)
    : undefined;
  const bundler = () => {
    bundlerPromise ??= createBundler({
      resolvers: options.resolvers ?? (options.packages ? packageResolvers(options.packages) : []),
      engine: options.engine ?? "auto",
    });
    return bundlerPromise;
  };
  const pool = new ThreadPool({
    size: options.pool?.size ?? Math.min(8, Math.max(2, availableParallelism())),
    limits: defaults,
    recycleAfter: options.recycleAfter ?? 10_000,
    stallMs: options.pool?.stallMs ?? 25,
    killAfterMs: options.pool?.killAfterMs ?? 2_000,
    waitMs: options.pool?.waitMs ?? 60_000,
    async onCall(key, op, request) {
      if (op === "net.poll" || op === "dns") {
        const mount = mounts.get(key);
        if (!mount) throw new Error("the component is unmounted");
        return mount.socketCall(op, request as { link: string });
      }
      const bridge = mounts.get(key)?.bridges[op] as ((r: never) => Promise<unknown>) | undefined;
      if (!bridge) throw new Error(`${op} is not available: this runtime has no ${op} bridge`);
      return bridge(request as never);
    },
    onNet(message) {
      mounts.get(message.key)?.socketCommand(message.link, message.cmd);
    },
    onKilled(thread: PoolThread) {
      for (const key of thread.mounts) mounts.get(key)?.lostThread();
      thread.mounts.clear();
      try {
        options.pool?.onThreadReplaced?.({ thread: thread.index, replaced: pool.killed });
      } catch {
        // A listener's error never breaks the pool.
      }
    },
  });

  async function describe(bundle: string): Promise<unknown> {
    let avoid: PoolThread | undefined;
    const since = Date.now();
    for (let attempt = 0; ; attempt++) {
      const thread = pool.pick(avoid);
      const reply = await thread.request({ t: "describe", bundle }, defaults.runTimeoutMs);
      if (reply.kind === "done") {
        if (reply.error) rethrow(reply.error);
        return reply.value;
      }
      // Only the load that held the thread past its deadline fails; a load whose thread was
      // replaced because of another component's, or moved off a stuck thread, waits its turn.
      if (reply.kind === "killed" && reply.overdue) {
        throw toHooklineError(
          Object.assign(
            new Error(
              `The component threw while loading: it ran past ${defaults.runTimeoutMs} ms and could not be interrupted`,
            ),
            { code: "load_failed" },
          ),
        );
      }
      avoid = thread;
      await pool.waitTurn(since, attempt, "loaded");
    }
  }

  return {
    get threads() {
      let memoryBytes = 0;
      for (const mount of mounts.values()) memoryBytes += mount.memoryUsage();
      return {
        size: pool.size,
        killed: pool.killed,
        inFlight: pool.inFlight(),
        mounts: mounts.size,
        memoryBytes,
      };
    },

    load(input: LoadInput): Promise<LoadedComponent> {
      return loadComponent(bundler, input, descriptions, describe);
    },

    async mount(mountOptions: MountOptions): Promise<MountedComponent> {
      const limits = { ...defaults, ...mountOptions.limits };
      const mount = new RemoteMount(pool, mountOptions, limits);
      mounts.set(mount.key, mount);
      mount.onDispose = () => mounts.delete(mount.key);
      try {
        await mount.start();
      } catch (error) {
        mounts.delete(mount.key);
        throw error;
      }
      return mount;
    },

    async close() {
      for (const mount of [...mounts.values()]) mount.dispose();
      await pool.close();
      if (bundlerPromise) await (await bundlerPromise).close();
    },
  };
}
