/**
 * The explicit context every sub-store of the SQL store is built over: the client, the clock, the
 * notifier, how statements run (lossless text, unique violations as `conflict`), the group commits
 * and the emitters' cached subscriptions. SQL text helpers are in statement-text.ts.
 */

import { StoreError } from "@hookline/store";
import { type DeliveryTarget, encodeText } from "@hookline/store/adapter";
import { LRUCache } from "lru-cache";
import type { SqlNotifier } from "../_notify.js";
import { type SqlClient, type SqlRow, withTransaction } from "../clients.js";
import { createGroupCommit, type GroupCommit, type GroupStatement } from "./group-commit.js";

/** An emitter's webhook subscriptions as its emits use them, and their fingerprint (emit-batch.ts). */
export interface CachedTargets {
  targets: DeliveryTarget[];
  fingerprint: string;
}

/** Emitters whose subscriptions the store keeps, at most. */
const MAX_CACHED_EMITTERS = 10_000;

/** What the sub-stores of one SQL store share. */
export interface SqlContext {
  /**
   * Each emitter's subscriptions, read once and kept (by `workspaceId + NUL + emitterId`); cleared
   * when this store changes subscriptions or webhooks. Another store's change is caught by the
   * emit's write, which checks the fingerprint (emit-batch.ts).
   */
  readonly targets: LRUCache<string, CachedTargets>;
  /** The client statements go through (outside a transaction). */
  readonly client: SqlClient;
  /**
   * The client of background work (`client.background`, else `client`): delivery claims, sweeps,
   * outcomes and the vacuum, which may wait behind the requests' statements.
   */
  readonly background: SqlClient;
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
  /**
   * Runs the statements in order on `db` as {@link SqlContext.run} runs one (in one exchange when
   * the client can pipeline, with the transaction's COMMIT when `commit` says they are its last),
   * then hands each its rows (`onRows`).
   */
  runMany(statements: GroupStatement[], db: SqlClient, options?: { commit?: boolean }): Promise<void>;
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
   * The group commit of delivery outcomes (`complete`, `recordAttempt`): a committer of their own,
   * so that an emit never waits for a batch of outcomes, and each group stays one statement.
   */
  outcomes: GroupCommit;
  /**
   * A select-list item that sends a "deliveries are due" notice when `condition` holds (on commit),
   * appending its parameters to `params`; `NULL` when notifications are off.
   */
  notifyDueWhen(condition: string, params: unknown[]): string;
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}

/** A parameter with its strings encoded, the elements of an array parameter (`unnest($1::text[])`) too. */
const encodeParam = (value: unknown): unknown =>
  typeof value === "string" ? encodeText(value) : Array.isArray(value) ? value.map(encodeParam) : value;

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
  const runMany: SqlContext["runMany"] = async (statements, db, options) => {
    open();
    if (!db.pipeline) {
      for (const statement of statements) {
        // Not `statement.onRows?.(await run(...))`: an absent onRows would skip the run itself.
        const rows = await run(statement.text, statement.params, undefined, db);
        statement.onRows?.(rows);
      }
      return;
    }
    let results: { rows: SqlRow[] }[];
    try {
      results = await db.pipeline(
        statements.map((s) => ({ text: s.text, params: s.params.map(encodeParam) })),
        options,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new StoreError("conflict", "Unique constraint violated");
      throw error;
    }
    for (const [i, statement] of statements.entries()) statement.onRows?.(results[i]?.rows ?? []);
  };
  const transaction = <T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> => {
    open();
    return withTransaction(client, fn);
  };
  const background = client.background ?? client;
  const committerOver = (db: SqlClient, concurrency: number) => ({
    transaction: <T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> => {
      open();
      return withTransaction(db, fn);
    },
    client: db,
    concurrency,
    run: (tx: SqlClient, statements: GroupStatement[], commit: boolean) =>
      runMany(statements, tx, { commit }),
  });
  return {
    targets: new LRUCache<string, CachedTargets>({ max: MAX_CACHED_EMITTERS }),
    client,
    background,
    clock,
    notifier,
    open,
    run,
    runMany,
    one: async (text, params) => (await run(text, params))[0],
    transaction,
    grouped: createGroupCommit(committerOver(client, client.parallelTransactions ?? 1)),
    // One group at a time where the client has a background lane (the PGlite thread, a pool): its
    // units go one at a time anyway (`_background-gate.ts`), a second group would only be smaller.
    outcomes: createGroupCommit(
      committerOver(background, client.background ? 1 : (client.parallelTransactions ?? 1)),
    ),
    notifyDueWhen(condition, params) {
      if (!notifier) return "NULL";
      params.push(notifier.channel, notifier.duePayload());
      return `CASE WHEN ${condition} THEN pg_notify($${params.length - 1}, $${params.length}) END`;
    },
  };
}
