import type { PGlite } from "@electric-sql/pglite";
import type { Pool, PoolClient } from "pg";

/** A result row as a driver returns it: column name to value. */
export type SqlRow = Record<string, unknown>;

/**
 * The minimal SQL client the store needs: positional parameters (`$1`, `$2`, ...) and, optionally,
 * transactions. {@link pgliteClient} and {@link pgPoolClient} adapt PGlite and `pg`.
 */
export interface SqlClient {
  /** Runs one statement with positional parameters and returns its rows. */
  query(text: string, params?: unknown[]): Promise<{ rows: SqlRow[] }>;
  /**
   * Runs `fn` in a transaction: commits when it resolves, rolls back when it throws. Every query of
   * the transaction goes through the client passed to `fn`. When absent, {@link withTransaction}
   * issues `BEGIN`/`COMMIT` on the client itself (only correct for a single connection).
   */
  transaction?<T>(fn: (client: SqlClient) => Promise<T>): Promise<T>;
}

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
  return {
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
  };
}

/**
 * Adapts a `pg` connection pool: single statements use `pool.query`, transactions check out one
 * connection and run `BEGIN`/`COMMIT` (or `ROLLBACK`) on it.
 *
 * @param pool - The pool; the caller owns it and ends it after closing the store.
 * @example
 * ```ts
 * import pg from "pg";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const store = await createSqlStore(pgPoolClient(pool));
 * ```
 */
export function pgPoolClient(pool: Pool): SqlClient {
  return {
    async query(text, params) {
      const result = await pool.query(text, params);
      return { rows: result.rows as SqlRow[] };
    },
    async transaction(fn) {
      const connection: PoolClient = await pool.connect();
      let broken: unknown;
      try {
        await connection.query("BEGIN");
        const result = await fn(
          joined(async (text, params) => {
            const rows = await connection.query(text, params);
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
    },
  };
}

/**
 * Opens a PGlite database: in memory when `dataDir` is absent, otherwise persisted in that
 * directory. Opening takes a moment (the Postgres WebAssembly module starts).
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
  return dataDir === undefined ? PGlite.create() : PGlite.create(dataDir);
}
