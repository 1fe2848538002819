/**
 * Messages between the pool (main thread) and its worker threads. Each invocation is one message
 * each way: the db snapshot goes with the request and the db writes come back with the result, so
 * `await this.db.get()` never crosses threads; only `fetch` and data-store calls do, one message
 * pair each.
 */
import type { MessagePort } from "node:worker_threads";
import type { NetCommand } from "../net/socket-host.js";
import type { Limits, MountOptions } from "../types.js";

/** Slots of the claim table: an invocation is claimed by the worker or cancelled by the pool. */
export const CLAIM_SLOTS = 4096;

/** What the pool hands a new worker thread. */
export interface WorkerData {
  limits: Limits;
  recycleAfter: number;
  /** Float64Array[1]: the worker's last heartbeat (epoch ms). */
  beat: SharedArrayBuffer;
  /** Int32Array[CLAIM_SLOTS]: `seq` while queued, `-seq` once the worker took it, 0 when cancelled. */
  claims: SharedArrayBuffer;
  /**
   * Int32Array[1]: how many messages the worker has posted on `replies`, counted after each post,
   * so that a pool waiting for one can see it arrive without its event loop (threads.ts).
   */
  sent: SharedArrayBuffer;
  /** Where the worker posts its messages (a port the pool can also read synchronously). */
  replies: MessagePort;
}

/** A request from the pool; `seq` matches its reply. */
export type PoolRequest =
  | { t: "describe"; seq: number; bundle: string }
  | {
      t: "mount";
      seq: number;
      key: number;
      options: Omit<MountOptions, "bridges">;
      /** Which bridges the caller gave (their calls come back to the pool). */
      bridges: BridgeFlags;
    }
  | {
      t: "invoke";
      seq: number;
      key: number;
      method: "run" | "runAction" | "hook" | "options" | "additionalProps";
      args: unknown[];
      /** The db's entries, when the component has a db prop and the caller a db bridge. */
      db?: Record<string, unknown>;
    }
  | { t: "dispose"; key: number }
  | { t: "reply"; call: number; value?: string; error?: string; code?: string };

/** Which bridges a mount's caller gave (their calls come back to the pool). */
export interface BridgeFlags {
  db: boolean;
  fetch: boolean;
  dataStore: boolean;
  http: boolean;
  net: boolean;
}

/** A worker's call of a bridge, answered by a `reply`: sockets' polls and lookups go to the pool's socket host. */
export type CallOp = "fetch" | "dataStore" | "http" | "net.poll" | "dns";

/** A serialized error thrown in the worker (a `HooklineError` keeps its code and details). */
export interface WireError {
  code: string;
  message: string;
  details?: unknown;
  stack?: string;
}

/** A message from a worker. */
export type WorkerMessage =
  | { t: "done"; seq: number; value?: unknown; error?: WireError; memory?: number }
  | { t: "call"; call: number; key: number; op: CallOp; request: unknown }
  /**
   * A socket command for mount `key`'s socket host, in order; `link` names the sandbox (a new one
   * replaces the sockets of the one before; `reset`: the sandbox is gone).
   */
  | { t: "net"; key: number; link: string; cmd: NetCommand | { op: "reset" } };
