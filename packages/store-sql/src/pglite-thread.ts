/**
 * PGlite on a worker thread of its own. PGlite runs Postgres in WebAssembly on the thread that calls
 * it, synchronously for the length of each statement: in process, every statement holds the event
 * loop that also parses HTTP, runs the sandboxes and sends deliveries, and the writes of concurrent
 * requests never overlap enough to share a group commit (docs/benchmarks.md, "HTTP ingress"). On a
 * thread of its own the database works while the main thread goes on, and the writes that queue up
 * meanwhile go out together in the next group.
 */
import { Worker } from "node:worker_threads";
import { createBackgroundGate } from "./_background-gate.js";
import { createDataDirApart, PGLITE_START_PARAMS } from "./_pglite-settings.js";
import type { SqlClient, SqlRow, SqlStatement } from "./clients.js";
import { lockDataDir } from "./data-dir-lock.js";

export { DataDirLockedError } from "./data-dir-lock.js";

/** A {@link SqlClient} over PGlite on a worker thread, and how to close it. */
export interface PgliteThread extends SqlClient {
  /** Closes the database, ends the thread and releases the data folder. */
  close(): Promise<void>;
  /** True once {@link PgliteThread.close} was called. */
  readonly closed: boolean;
}

/** A reply of the thread (see pglite-thread-worker.mjs). */
interface Reply {
  id?: number;
  rows?: SqlRow[];
  results?: SqlRow[][];
  error?: Record<string, unknown> & { message: string };
  notify?: string;
  payload?: string;
  ready?: boolean;
}

/** An error of the thread as an `Error` with the same fields (a Postgres error keeps its `code`). */
function toError(data: Record<string, unknown> & { message: string }): Error {
  const { message, name, ...fields } = data;
  const error = new Error(message);
  if (typeof name === "string") error.name = name;
  return Object.assign(error, fields);
}

/** Options of {@link openPgliteThread}. */
export interface PgliteThreadOptions {
  /**
   * Node flags of the thread (`execArgv` of its `Worker`); none by default. The thread runs plain
   * JavaScript: the process's TypeScript loaders and source conditions do not belong here. A
   * profile of the thread, for example: `["--cpu-prof", "--cpu-prof-dir=prof"]`.
   */
  execArgv?: string[];
}

/**
 * Opens PGlite on a worker thread (see the module comment): in memory without `dataDir`, otherwise
 * in that folder, locked against a second opener as {@link openPglite} does. The result is the
 * store's client; close it after the store.
 *
 * @param dataDir - The data folder (created when missing); in memory when absent.
 * @param options - The thread's Node flags.
 * @example
 * ```ts
 * import { createSqlStore, openPgliteThread } from "@hookline/store-sql";
 *
 * const db = await openPgliteThread("./hookline-data/pglite");
 * const store = await createSqlStore(db);
 * // ...
 * await store.close();
 * await db.close();
 * ```
 */
export async function openPgliteThread(
  dataDir?: string,
  options: PgliteThreadOptions = {},
): Promise<PgliteThread> {
  const lock = dataDir === undefined ? undefined : await lockDataDir(dataDir);
  try {
    if (dataDir !== undefined) await createDataDirApart(dataDir);
    return await start(dataDir, options.execArgv ?? [], lock?.release);
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

/** Starts the thread and waits until PGlite is open in it. */
async function start(
  dataDir: string | undefined,
  execArgv: string[],
  release?: () => Promise<void>,
): Promise<PgliteThread> {
  const worker = new Worker(new URL("./pglite-thread-worker.mjs", import.meta.url), {
    workerData: { dataDir, startParams: [...PGLITE_START_PARAMS] },
    // The thread runs plain JavaScript: no TypeScript loader, no source conditions.
    execArgv,
  });
  const waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let nextId = 1;
  let nextTx = 1;
  let closed = false;
  let failure: Error | undefined;

  await new Promise<void>((resolve, reject) => {
    const onReady = (reply: Reply) => {
      if (reply.ready === undefined) return;
      worker.off("message", onReady);
      if (reply.ready) resolve();
      else reject(toError(reply.error ?? { message: "PGlite did not start" }));
    };
    worker.on("message", onReady);
    worker.once("error", reject);
  });

  worker.on("message", (reply: Reply) => {
    if (reply.notify !== undefined) {
      for (const fn of listeners.get(reply.notify) ?? []) fn(reply.payload ?? "");
      return;
    }
    if (reply.id === undefined) return;
    const entry = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (!entry) return;
    if (reply.error) entry.reject(toError(reply.error));
    else entry.resolve(reply);
  });
  // The thread died (out of memory, a crash in PGlite): every pending and later call fails.
  const fail = (error: Error) => {
    failure ??= error;
    for (const entry of waiting.values()) entry.reject(failure);
    waiting.clear();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the PGlite thread ended (exit code ${code})`)));

  const gate = createBackgroundGate();
  /** Sends a message; `bg`: of a background unit, which the gate already let through. */
  const call = (message: Record<string, unknown>, bg = false): Promise<Reply> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    const reply = new Promise<Reply>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
    if (bg) return reply;
    gate.sent();
    return reply.finally(() => gate.answered());
  };
  const query = async (
    text: string,
    params: unknown[] | undefined,
    bg: boolean,
    tx?: number,
    begin?: boolean,
  ) =>
    ({ rows: (await call({ op: "query", text, params, tx, begin }, bg)).rows ?? [] }) as { rows: SqlRow[] };

  const pipeline = async (
    statements: SqlStatement[],
    bg: boolean,
    tx?: number,
    begin?: boolean,
    commit?: boolean,
  ) =>
    ((await call({ op: "pipeline", statements, tx, begin, commit }, bg)).results ?? []).map((rows) => ({
      rows,
    }));

  /** Runs a transaction; `bg`: a background one, through the gate as one unit. */
  async function runTransaction<T>(fn: (client: SqlClient) => Promise<T>, bg: boolean): Promise<T> {
    const tx = nextTx++;
    // BEGIN goes with the transaction's first statement; a transaction without one sends nothing.
    // A pipeline may carry the COMMIT (ended), after which nothing more is sent.
    let begun = false;
    let ended = false;
    const first = () => {
      if (ended) throw new Error("The transaction was committed: no statement may follow");
      const begin = !begun;
      begun = true;
      return begin;
    };
    const inside: SqlClient = {
      query: async (text, params) => query(text, params, bg, tx, first()),
      async pipeline(list, options) {
        const begin = first();
        if (options?.commit) ended = true;
        return pipeline(list, bg, tx, begin, options?.commit);
      },
      transaction: (f) => f(inside),
      singleConnection: true,
    };
    let result: Awaited<ReturnType<typeof fn>>;
    try {
      result = await fn(inside);
    } catch (error) {
      if (begun && !ended) await call({ op: "rollback", tx }, bg).catch(() => undefined);
      throw error;
    }
    if (begun && !ended) await call({ op: "commit", tx }, bg);
    return result;
  }

  /** Statements and transactions, in the foreground or (`bg`) as background work (see the gate). */
  const statements = (bg: boolean): SqlClient => ({
    query: (text, params) => (bg ? gate.run(() => query(text, params, true)) : query(text, params, false)),
    pipeline: (list) => (bg ? gate.run(() => pipeline(list, true)) : pipeline(list, false)),
    singleConnection: true,
    transaction: (fn) => (bg ? gate.run(() => runTransaction(fn, true)) : runTransaction(fn, false)),
  });

  const client: PgliteThread = {
    get closed() {
      return closed;
    },
    ...statements(false),
    background: statements(true),
    storeOrigins: new Set(),
    // Two groups of a group commit at once: the thread still runs them one after the other (and a
    // transaction holds it to its end), but the next group is already there when one ends, instead
    // of being sent only once the main thread has the answer. bench:ingress: the wait for a group
    // halved (1.4 -> 0.7 ms p50), 0.34-0.36 -> 0.38-0.46 of the bare handler (decision 0423).
    parallelTransactions: 2,
    async listen(channel, onNotify) {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await call({ op: "listen", channel });
      }
      set.add(onNotify);
      return {
        async close() {
          set.delete(onNotify);
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        if (!failure) await call({ op: "close" });
      } finally {
        await worker.terminate();
        await release?.();
      }
    },
  };
  return client;
}
