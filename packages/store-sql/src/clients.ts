import type { PGlite } from "@electric-sql/pglite";
import type { Client, ClientConfig, Pool, PoolClient } from "pg";
import { createBackgroundGate } from "./_background-gate.js";
import { createStatementNames } from "./_pg-statements.js";
import { createDataDirApart, PGLITE_START_PARAMS } from "./_pglite-settings.js";
import { lockDataDir } from "./data-dir-lock.js";

/** A result row as a driver returns it: column name to value. */
export type SqlRow = Record<string, unknown>;

/** A statement with its positional parameters. */
export interface SqlStatement {
  text: string;
  params?: unknown[];
}

/**
 * The minimal SQL client the store needs: positional parameters (`$1`, `$2`, ...) and, optionally,
 * transactions. {@link pgliteClient} and {@link pgPoolClient} adapt PGlite and `pg`.
 */
export interface SqlClient {
  /** Runs one statement with positional parameters and returns its rows. */
  query(text: string, params?: unknown[]): Promise<{ rows: SqlRow[] }>;
  /**
   * Runs statements in order in one exchange with the database, where the driver can (the PGlite
   * thread); the rows of each, in order. Stops at the first that fails and throws its error (inside
   * a transaction, the transaction is then aborted). On a transaction's client, `commit: true` also
   * commits it in the same exchange (the transaction then has nothing left to do; a failed COMMIT
   * throws here). Absent: the store runs them one by one.
   */
  pipeline?(statements: SqlStatement[], options?: { commit?: boolean }): Promise<{ rows: SqlRow[] }[]>;
  /**
   * Runs `fn` in a transaction: commits when it resolves, rolls back when it throws. Every query of
   * the transaction goes through the client passed to `fn`. When absent, {@link withTransaction}
   * issues `BEGIN`/`COMMIT` on the client itself (only correct for a single connection).
   */
  transaction?<T>(fn: (client: SqlClient) => Promise<T>): Promise<T>;
  /**
   * How many transactions may run at once (a pool's connections); 1 when absent. The store's group
   * commit writes up to this many groups side by side. The PGlite thread's client says 2: it runs
   * them one after the other, the second already waiting when the first ends.
   */
  parallelTransactions?: number;
  /**
   * True when every statement runs on one connection, one at a time (PGlite): a statement outside
   * a transaction then never overlaps another, and the store can leave out the locks that keep
   * concurrent connections apart (such as the delivery claim's advisory lock) and the transaction
   * around them.
   */
  singleConnection?: boolean;
  /**
   * The origins of the store instances open over this database, where they can only be in this
   * process (PGlite: no other process opens its data folder). A store writes change notices (`NOTIFY`)
   * only while another instance is there to hear them, since an instance ignores its own: a PGlite
   * emit statement without them cost a quarter less (docs/benchmarks.md). Shared by reference by
   * every client of the database: a wrapper must copy it. Absent (a `pg` pool): notices are always
   * written, for other processes.
   */
  storeOrigins?: Set<string>;
  /**
   * The same database for background work, whose statements may wait behind this client's: the
   * store sends delivery claims, sweeps, outcomes and its vacuum through it. The PGlite thread's
   * client and the `pg` pool client hold them back while a foreground statement is in flight (never
   * starving them); absent, the store uses this client.
   */
  background?: SqlClient;
  /**
   * Starts listening on a notification `channel` (Postgres `LISTEN`), on a connection of its own
   * when the driver needs one: `onNotify` gets each payload sent with `NOTIFY`/`pg_notify` on that
   * channel; `onLost` is called once if the connection breaks (the listener is then dead: call
   * `listen` again to resume). Rejects when it cannot start. Absent: the store has no notifications.
   */
  listen?(
    channel: string,
    onNotify: (payload: string) => void,
    onLost: (error: unknown) => void,
  ): Promise<SqlListener>;
}

/** A running listener started by {@link SqlClient.listen}. */
export interface SqlListener {
  /** Stops listening (and closes the dedicated connection, if any). */
  close(): Promise<void>;
}

/** Quotes an identifier for SQL text (`LISTEN "name"`). */
const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * Runs `fn` in a transaction of `client`: through `client.transaction` when it has one, otherwise
 * with `BEGIN`/`COMMIT`/`ROLLBACK` statements on the client itself.
 *
 * @param client - The client.
 * @param fn - The work; every query must go through the client it receives.
 * @example
 * ```ts
 * await withTransaction(client, async (tx) => {
 *   await tx.query("UPDATE timers SET next_at = $1 WHERE component_id = $2", [next, id]);
 *   await tx.query("DELETE FROM kv WHERE component_id = $1", [id]);
 * });
 * ```
 */
export async function withTransaction<T>(
  client: SqlClient,
  fn: (client: SqlClient) => Promise<T>,
): Promise<T> {
  if (client.transaction) return client.transaction(fn);
  await client.query("BEGIN");
  try {
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** A client whose queries all run inside one open transaction; nested transactions join it. */
function joined(query: SqlClient["query"]): SqlClient {
  const client: SqlClient = {
    query,
    transaction: (fn) => fn(client),
  };
  return client;
}

/** The store instances over each PGlite database (see {@link SqlClient.storeOrigins}). */
const originsByDb = new WeakMap<PGlite, Set<string>>();

/**
 * Adapts a PGlite database: its `query`, and its `transaction` (PGlite runs one query or
 * transaction at a time).
 *
 * @param db - An open PGlite instance (see {@link openPglite}).
 * @example
 * ```ts
 * const store = await createSqlStore(pgliteClient(await openPglite()));
 * ```
 */
export function pgliteClient(db: PGlite): SqlClient {
  let storeOrigins = originsByDb.get(db);
  if (!storeOrigins) {
    storeOrigins = new Set();
    originsByDb.set(db, storeOrigins);
  }
  return {
    singleConnection: true,
    storeOrigins,
    async query(text, params) {
      const result = await db.query<SqlRow>(text, params);
      return { rows: result.rows };
    },
    transaction(fn) {
      return db.transaction((tx) =>
        fn(
          joined(async (text, params) => {
            const result = await tx.query<SqlRow>(text, params);
            return { rows: result.rows };
          }),
        ),
      );
    },
    async listen(channel, onNotify) {
      // In-process: PGlite delivers notifications of its own (single) connection to every listener
      // registered here, once the notifying transaction commits. There is no connection to lose.
      const unlisten = await db.listen(channel, onNotify);
      return {
        async close() {
          if (!db.closed) await unlisten();
        },
      };
    },
  };
}

/** Options of {@link pgPoolClient}. */
export interface PgPoolClientOptions {
  /**
   * The connection used to `LISTEN` for notifications (a dedicated `pg.Client`, outside the pool):
   * `true` (default) connects with the pool's own settings; a `pg` client config connects elsewhere
   * (such as directly to Postgres when the pool goes through a transaction-mode PgBouncer, which
   * cannot hold a `LISTEN`); `false` turns notifications off (workers then only poll).
   */
  listen?: boolean | ClientConfig;
  /**
   * How many group-commit transactions (see the store's docs) may be written at once, each on a
   * connection of the pool: 1 by default, which measured best (a group carries every write queued
   * while the previous one was written). More only helps when each round trip to the database is slow.
   */
  parallelTransactions?: number;
  /**
   * How often the listening connection is checked with `SELECT 1`, in milliseconds (30 s by default); a
   * check failing or taking longer than this counts as a lost connection.
   */
  listenCheckMs?: number;
  /**
   * Whether delivery work (claims, sweeps, outcomes) yields to the requests' statements: true by
   * default, as on PGlite. A unit of delivery work then waits while a request's statement is in
   * flight, or until three have been answered (it never starves). It is `false` where the database
   * has cores to spare for both (on another machine), to deliver at full speed during a load.
   */
  yieldBackground?: boolean;
  /**
   * Whether statements that run often are sent as named (prepared) statements, parsed and planned
   * once per connection: true by default (at most 200 texts, each named after its third run).
   * Set `false` behind a pooler that cannot keep them (PgBouncer in transaction mode before 1.21).
   */
  prepare?: boolean;
}

/** Default interval of the health check of a `pg` listening connection: 30 seconds. */
const LISTEN_CHECK_MS = 30_000;

/**
 * Opens a dedicated `pg` client that LISTENs on `channel`: notifications go to `onNotify`; an error,
 * an end or a failed health check closes it and calls `onLost` once.
 */
async function pgListen(
  ClientClass: new (config: ClientConfig) => Client,
  config: ClientConfig,
  checkMs: number,
  channel: string,
  onNotify: (payload: string) => void,
  onLost: (error: unknown) => void,
): Promise<SqlListener> {
  const client = new ClientClass({
    application_name: "hookline-listen",
    ...config,
    keepAlive: true,
  });
  let done = false;
  let check: NodeJS.Timeout | undefined;
  const finish = (error: unknown): void => {
    if (done) return;
    done = true;
    clearInterval(check);
    client.removeAllListeners("notification");
    // Ends the socket whatever its state; errors of a broken connection are expected here.
    client.end().catch(() => undefined);
    onLost(error);
  };
  client.on("error", (error) => finish(error));
  client.on("end", () => finish(new Error("The LISTEN connection ended")));
  client.on("notification", (message) => {
    if (message.channel === channel) onNotify(message.payload ?? "");
  });
  try {
    await client.connect();
    // Like the pool's idle connections, this one alone does not keep the process running.
    (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    await client.query(`LISTEN ${quoteIdent(channel)}`);
  } catch (error) {
    done = true;
    client.removeAllListeners("notification");
    await client.end().catch(() => undefined);
    throw error;
  }
  let checking = false;
  check = setInterval(() => {
    if (checking || done) return;
    checking = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("The LISTEN connection did not answer")), checkMs);
    });
    Promise.race([client.query("SELECT 1"), timeout])
      .then(
        () => undefined,
        (error: unknown) => finish(error),
      )
      .finally(() => {
        clearTimeout(timer);
        checking = false;
      });
  }, checkMs);
  check.unref?.();
  return {
    async close() {
      if (done) return;
      done = true;
      clearInterval(check);
      client.removeAllListeners("notification");
      await client.end().catch(() => undefined);
    },
  };
}

/**
 * Adapts a `pg` connection pool: single statements use `pool.query`, transactions check out one
 * connection and run `BEGIN`/`COMMIT` (or `ROLLBACK`) on it. Notifications (`listen`) use one more
 * connection outside the pool, opened with the pool's settings while the store has subscribers.
 *
 * @param pool - The pool; the caller owns it and ends it after closing the store.
 * @param options - Where and whether to `LISTEN` (see {@link PgPoolClientOptions}).
 * @example
 * ```ts
 * import pg from "pg";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const store = await createSqlStore(pgPoolClient(pool));
 * ```
 */
export function pgPoolClient(pool: Pool, options: PgPoolClientOptions = {}): SqlClient {
  const listenTo = options.listen ?? true;
  const checkMs = options.listenCheckMs ?? LISTEN_CHECK_MS;
  // pg-pool keeps the client class it makes connections with (pg.Client, or the pool's `Client` option).
  const ClientClass = (pool as unknown as { Client?: new (config: ClientConfig) => Client }).Client;
  const gate = createBackgroundGate();
  const names = options.prepare === false ? undefined : createStatementNames();
  /** Runs one statement on `on` (the pool, or a transaction's connection), named once hot. */
  const run = async (on: Pool | PoolClient, text: string, params: unknown[] | undefined, retry: boolean) => {
    if (!names) return on.query(text, params);
    const config = names.config(text, params);
    try {
      return await on.query(config);
    } catch (error) {
      // Outside a transaction a statement refused for its stale plan ran nothing: run it again.
      if (names.stale(config, error) && retry) return on.query(names.config(text, params));
      throw error;
    }
  };
  const query = async (text: string, params?: unknown[]) => {
    const result = await run(pool, text, params, true);
    return { rows: result.rows as SqlRow[] };
  };
  const transaction = async <T>(fn: (client: SqlClient) => Promise<T>): Promise<T> => {
    const connection: PoolClient = await pool.connect();
    let broken: unknown;
    try {
      await connection.query("BEGIN");
      const result = await fn(
        joined(async (text, params) => {
          const rows = await run(connection, text, params, false);
          return { rows: rows.rows as SqlRow[] };
        }),
      );
      await connection.query("COMMIT");
      return result;
    } catch (error) {
      try {
        await connection.query("ROLLBACK");
      } catch (rollbackError) {
        broken = rollbackError;
      }
      throw error;
    } finally {
      // A connection whose rollback failed is in an unknown state: destroy it instead of reusing it.
      connection.release(broken instanceof Error ? broken : undefined);
    }
  };
  /** A foreground unit: counted by the gate while in flight. */
  const foreground = <T>(fn: () => Promise<T>): Promise<T> => {
    gate.sent();
    return fn().finally(() => gate.answered());
  };
  const parallelTransactions = Math.max(1, Math.floor(options.parallelTransactions ?? 1));
  const client: SqlClient = {
    // One group at a time: the writes queued meanwhile make the next group larger, which costs
    // fewer round trips than groups side by side (docs/decisions/, 2026-11-28).
    parallelTransactions,
    query: (text, params) => foreground(() => query(text, params)),
    transaction: (fn) => foreground(() => transaction(fn)),
  };
  if (options.yieldBackground !== false)
    client.background = {
      parallelTransactions,
      query: (text, params) => gate.run(() => query(text, params)),
      transaction: (fn) => gate.run(() => transaction(fn)),
    };
  if (listenTo !== false && ClientClass) {
    const config: ClientConfig = listenTo === true ? { ...(pool.options as ClientConfig) } : listenTo;
    client.listen = (channel, onNotify, onLost) =>
      pgListen(ClientClass, config, checkMs, channel, onNotify, onLost);
  }
  return client;
}

/**
 * Opens a PGlite database: in memory when `dataDir` is absent, otherwise persisted in that
 * directory. Opening takes a moment (the Postgres WebAssembly module starts). Postgres runs with
 * `shared_buffers` of 16 MB (its default is 128 MB), and a new directory is created by a short-lived
 * child process, so that the memory `initdb` takes stays out of this process. A directory is locked
 * while open (see {@link lockDataDir}): a second process opening it gets a {@link DataDirLockedError}
 * naming the holder; `db.close()` releases the lock.
 *
 * @param dataDir - A directory for the data files, or absent for an in-memory database.
 * @example
 * ```ts
 * const db = await openPglite("./hookline-data");
 * const store = await createSqlStore(pgliteClient(db));
 * // ...
 * await store.close();
 * await db.close();
 * ```
 */
export async function openPglite(dataDir?: string): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const startParams = [...PGLITE_START_PARAMS];
  if (dataDir === undefined) return PGlite.create({ startParams });
  const lock = await lockDataDir(dataDir);
  let db: PGlite;
  try {
    await createDataDirApart(dataDir);
    db = await PGlite.create(dataDir, { startParams });
  } catch (error) {
    await lock.release();
    throw error;
  }
  const close = db.close.bind(db);
  db.close = async () => {
    try {
      await close();
    } finally {
      await lock.release();
    }
  };
  return db;
}
