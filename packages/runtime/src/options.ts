/** The options of `createRuntime`, shared by both modes. */
import type { PackagesOptions } from "./bundler/packages.js";
import type { Bundler, PackageResolver } from "./bundler/types.js";
import type { Limits } from "./types.js";

/** Options of `createRuntime`. */
export interface RuntimeOptions {
  /** A bundler to use; by default one is created with `resolvers` and `engine`. */
  bundler?: Bundler;
  /**
   * Package resolvers for bare imports. Default: those of `packages` when it is given, else none
   * (only relative and built-in imports work).
   */
  resolvers?: PackageResolver[];
  /** Where bare imports come from (node_modules, the package cache, the npm registry), when `resolvers` is not given. */
  packages?: PackagesOptions;
  /** Bundler engine when `bundler` is not given (default `auto`). */
  engine?: "auto" | "native" | "wasm";
  /** Default limits of every invocation. */
  limits?: Partial<Limits>;
  /** Rebuild a sandbox after this many invocations (default 10,000). */
  recycleAfter?: number;
  /** How many loaded descriptions to keep, by bundle hash (default 500). */
  cacheSize?: number;
  /**
   * Where sandboxes run: `thread` (the default) in the calling thread; `pool` in a pool of worker
   * threads, so that a component that cannot be interrupted never holds up the caller's thread
   * (docs/runtime.md, "Where sandboxes run"). `pd serve` uses the pool.
   */
  mode?: "thread" | "pool";
  /** The pool's settings (mode `pool`). */
  pool?: PoolOptions;
}

/** Settings of the worker-thread pool (`mode: "pool"`). */
export interface PoolOptions {
  /** Worker threads (default: the number of CPUs, at least 2 and at most 8). */
  size?: number;
  /**
   * A thread whose event loop has not run for this long, ms, is busy in a sandbox: invocations of
   * other components waiting for it move to another thread (default 25; a warm run takes
   * microseconds, and the thread's heartbeat ticks every 10 ms).
   */
  stallMs?: number;
  /**
   * An invocation still running this long past its deadline, ms, could not be interrupted: its
   * thread is terminated and replaced (default 2,000).
   */
  killAfterMs?: number;
  /**
   * How long a load or a mount waits for a turn on a thread when every thread is busy or being
   * replaced, ms (default 60,000): past it, the load or mount fails with `service_unavailable`.
   */
  waitMs?: number;
  /**
   * Told when a thread was terminated and replaced (an invocation that could not be interrupted):
   * `thread` is its index, `replaced` the count so far. For logs; it must not throw.
   */
  onThreadReplaced?: (info: { thread: number; replaced: number }) => void;
}
