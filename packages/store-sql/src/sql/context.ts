/**
 * The explicit context every sub-store of the SQL store is built over: the client, the clock, the
 * notifier, and how statements run (lossless text, unique violations as `conflict`).
 */

import { StoreError } from "@hookline/store";
import { encodeText } from "@hookline/store/adapter";
import type { SqlNotifier } from "../_notify.js";
import { type SqlClient, type SqlRow, withTransaction } from "../clients.js";
import { createGroupCommit, type GroupCommit } from "./group-commit.js";

/** What the sub-stores of one SQL store share. */
export interface SqlContext {
  /** The client statements go through (outside a transaction). */
  readonly client: SqlClient;
  /** The store clock. */
  readonly clock: () => number;
  /** The notifier, when notifications are on. */
  readonly notifier: SqlNotifier | undefined;
  /** Throws `closed` once the store is closed. */
  open(): void;
  /**
   * Runs one statement on `db` (the client by default): string parameters are encoded with
   * `encodeText` (every read decodes them), and a unique violation becomes a `conflict` StoreError
   * with the `conflict` message.
   */
  run(text: string, params?: unknown[], conflict?: string, db?: SqlClient): Promise<SqlRow[]>;
  /** The first row of {@link SqlContext.run}. */
  one(text: string, params?: unknown[]): Promise<SqlRow | undefined>;
  /** Runs `fn` in a transaction (after checking the store is open). */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in the next shared transaction of the group commit (see group-commit.ts): for
   * writes that many callers make at once (emits, delivery outcomes and attempts).
   */
  grouped: GroupCommit;
  /**
   * A select-list item that sends a "deliveries are due" notice when `condition` holds (on commit),
   * appending its parameters to `params`; `NULL` when notifications are off.
   */
  notifyDueWhen(condition: string, params: unknown[]): string;
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}

const encodeParam = (value: unknown): unknown => (typeof value === "string" ? encodeText(value) : value);

/** Makes the context of one SQL store. */
export function createSqlContext(
  client: SqlClient,
  clock: () => number,
  notifier: SqlNotifier | undefined,
  isClosed: () => boolean,
): SqlContext {
  const open = (): void => {
    if (isClosed()) throw new StoreError("closed", "The store is closed");
  };
  const run: SqlContext["run"] = async (text, params = [], conflict, db = client) => {
    open();
    try {
      return (await db.query(text, params.map(encodeParam))).rows;
    } catch (error) {
      if (isUniqueViolation(error))
        throw new StoreError("conflict", conflict ?? "Unique constraint violated");
      throw error;
    }
  };
  const transaction = <T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> => {
    open();
    return withTransaction(client, fn);
  };
  return {
    client,
    clock,
    notifier,
    open,
    run,
    one: async (text, params) => (await run(text, params))[0],
    transaction,
    grouped: createGroupCommit(transaction, client.parallelTransactions ?? 1),
    notifyDueWhen(condition, params) {
      if (!notifier) return "NULL";
      params.push(notifier.channel, notifier.duePayload());
      return `CASE WHEN ${condition} THEN pg_notify($${params.length - 1}, $${params.length}) END`;
    },
  };
}

/** The `UPDATE ... SET` list of a patch: `set(column, value)` appends a parameter to `params`. */
export function patcher(params: unknown[]) {
  const sets: string[] = [];
  return {
    sets,
    set(column: string, value: unknown, cast = ""): void {
      params.push(value);
      sets.push(`${column} = $${params.length}${cast}`);
    },
  };
}

/** Fails the open (pending, paused, in-flight) deliveries matching `where`, with `reason`. */
export const cancelDeliveriesSql = (reason: string, nowParam: string, where: string): string =>
  `UPDATE deliveries SET state = 'failed', last_error = '${reason}', lease_owner = NULL,
     lease_expires_at = NULL, updated_at = ${nowParam}
   WHERE state IN ('pending', 'paused', 'delivering') AND ${where}`;

/** Counts the rows a `WITH x AS (... RETURNING 1) SELECT count(*) AS n FROM x` statement reports. */
export const countOf = (rows: SqlRow[]): number => Number(rows[0]?.n ?? 0);

/** Positional placeholders `($1, $2, ...), (...)` for a multi-row insert, with optional casts. */
export function placeholders(rows: number, columns: number, casts: string[] = []): string {
  const groups: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    for (let c = 0; c < columns; c++) cells.push(`$${r * columns + c + 1}${casts[c] ?? ""}`);
    groups.push(`(${cells.join(", ")})`);
  }
  return groups.join(", ");
}

/** Rows per multi-row INSERT, below Postgres's 65535 parameters. */
export const chunkRows = (columns: number): number => Math.max(1, Math.floor(60_000 / columns));
