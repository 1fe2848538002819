/**
 * Group commit: writes asked for while a transaction is being written wait, and are all written in
 * the next transaction as soon as the previous one returns ("commit what is queued"), each caller
 * answered once its own writes are committed. One transaction (one WAL flush) then carries the
 * writes of every concurrent caller: the emits of concurrent invocations, the attempts and outcomes
 * of concurrent deliveries.
 */
import type { SqlClient, SqlRow } from "../clients.js";

/**
 * What the writes of one transaction share (fresh for each transaction, a retry's included): what
 * one write read that the next may reuse, such as the subscriptions of an emitter (emits.ts).
 */
export type GroupScope = Map<string, unknown>;

/** One statement of a group's end, and what to do with its rows once it has run. */
export interface GroupStatement {
  text: string;
  params: unknown[];
  onRows?: (rows: SqlRow[]) => void;
}

/**
 * What one hook writes at the end of a group, in up to three rounds: `locks` (what the writes are
 * decided under), `writes` (the rows), then `after`
 * (statements that need what the writes returned, such as notices naming the events' `seq`). Each
 * round of every hook goes out at once (one exchange where the client can pipeline).
 */
export interface GroupEnd {
  /**
   * Statements that take the locks the writes are decided under and read what they lock (such as
   * the emitters' dedupe state, emit-batch.ts), run first: `writes` is asked for after their rows
   * were handed over. A group with any is written in a transaction.
   */
  locks?(): GroupStatement[];
  writes(): GroupStatement[];
  /** Whether `after` will have statements (asked before the writes; absent: it has when defined). */
  hasAfter?(): boolean;
  after?(): GroupStatement[];
}

/**
 * Runs statements in order in a transaction (the store's `c.runMany`); `commit` lets the client
 * commit in the same exchange (the statements are then the transaction's last).
 */
export type RunStatements = (tx: SqlClient, statements: GroupStatement[], commit: boolean) => Promise<void>;

/** The scope key of the group's end hooks. */
const END = "group/end";

/**
 * Writes `end` once at the end of the group's writes, in its transaction before COMMIT, whatever the
 * number of writes that ask for it under `key`: the writes of a group put their rows in the scope and
 * one hook writes them all with one statement each (see emit-batch.ts). A hook that throws fails the
 * group as a write that throws does (each write is then retried alone, with its own hook). Callers are
 * answered after the hooks, so a hook may fill in what the writes returned (the `seq` of an event).
 *
 * @example
 * atGroupEnd(scope, "emits", { writes: () => [{ text: "INSERT ...", params: [rows] }] });
 */
export function atGroupEnd(scope: GroupScope, key: string, end: GroupEnd): void {
  let hooks = scope.get(END) as Map<string, GroupEnd> | undefined;
  if (!hooks) {
    hooks = new Map();
    scope.set(END, hooks);
  }
  if (!hooks.has(key)) hooks.set(key, end);
}

/**
 * Runs the end hooks of a group's scope, in the order they were first asked for: locks, writes,
 * then after. The last round may carry the COMMIT (where the client can), as nothing follows it.
 */
async function runEndHooks(tx: SqlClient, scope: GroupScope, run: RunStatements): Promise<void> {
  const hooks = [...((scope.get(END) as Map<string, GroupEnd> | undefined)?.values() ?? [])];
  if (hooks.length === 0) return;
  const locks = hooks.flatMap((hook) => hook.locks?.() ?? []);
  if (locks.length > 0) await run(tx, locks, false);
  const writes = hooks.flatMap((hook) => hook.writes());
  const wantsAfter = hooks.some((hook) => hook.hasAfter?.() ?? hook.after !== undefined);
  if (writes.length > 0) await run(tx, writes, !wantsAfter);
  const after = hooks.flatMap((hook) => hook.after?.() ?? []);
  if (after.length > 0) await run(tx, after, true);
}

/** Whether `error` is a COMMIT that failed (its outcome unknown), not a write. */
const commitFailed = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { commitFailed?: unknown }).commitFailed === true;

/** One queued write and its caller. */
interface Waiting {
  work: (tx: SqlClient, scope: GroupScope) => Promise<unknown>;
  /** The work only adds rows to its scope's batches (it runs no statement of its own). */
  batchOnly: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Options of one write of {@link GroupCommit}. */
export interface GroupWriteOptions {
  /**
   * The work runs no statement itself: it only adds rows to batches that hooks write at the end.
   * A group of such works that comes to one statement is sent without a transaction around it.
   */
  batchOnly?: boolean;
}

/** Runs queued writes in shared transactions; see the module comment. */
export type GroupCommit = <T>(
  work: (tx: SqlClient, scope: GroupScope) => Promise<T>,
  options?: GroupWriteOptions,
) => Promise<T>;

/** What a group committer is made over. */
export interface GroupCommitOptions {
  /** Runs `fn` in one transaction (the store's `c.transaction`). */
  transaction: <T>(fn: (tx: SqlClient) => Promise<T>) => Promise<T>;
  /** The client outside a transaction, for a group written by one statement. */
  client: SqlClient;
  /**
   * Groups written at once: 1 for a single connection (PGlite) and by default over a pool (the
   * writes queued meanwhile make the next group larger).
   */
  concurrency: number;
  /** Runs the statements of the end hooks (the store's `c.runMany`). */
  run: RunStatements;
}

/** Writes in one group at most: a bound on the transaction's size and on a retry's cost. */
const MAX_GROUP = 256;

/** The client a batch-only work gets: it must not run statements. */
const NO_STATEMENTS: SqlClient = {
  query: () => Promise.reject(new Error("a batch-only group write ran a statement of its own")),
};

/**
 * Makes a group committer over `options.transaction`. When a write of a group throws, the
 * transaction is rolled back and each write of the group runs again in a transaction of its own, so
 * that one refused write never fails the others; a failed COMMIT (outcome unknown) is reported to
 * every caller of the group instead, never written twice. A group of batch-only writes whose hooks
 * come to one statement runs that statement alone (atomic by itself, one round trip).
 *
 * @param options - The transaction, the client, the concurrency and how to run hook statements.
 */
export function createGroupCommit(options: GroupCommitOptions): GroupCommit {
  const { transaction, client, concurrency, run } = options;
  let queue: Waiting[] = [];
  let active = 0;

  /**
   * Writes a batch-only group with one statement and no transaction, when it comes to that; false
   * when it does not (the caller then writes it in a transaction, running the works again: a
   * batch-only work only adds to its group's batch, so running it twice writes nothing twice).
   */
  async function flushAlone(group: Waiting[]): Promise<boolean> {
    const scope: GroupScope = new Map();
    const out: unknown[] = [];
    for (const waiting of group) out.push(await waiting.work(NO_STATEMENTS, scope));
    const hooks = [...((scope.get(END) as Map<string, GroupEnd> | undefined)?.values() ?? [])];
    if (hooks.some((hook) => hook.hasAfter?.() ?? hook.after !== undefined)) return false;
    if (hooks.some((hook) => (hook.locks?.().length ?? 0) > 0)) return false;
    const writes = hooks.flatMap((hook) => hook.writes());
    if (writes.length > 1) return false;
    try {
      if (writes.length === 1) await run(client, writes, false);
    } catch (error) {
      if (group.length === 1) {
        group[0]?.reject(error);
        return true;
      }
      for (const waiting of group) await flush([waiting]);
      return true;
    }
    for (const [i, waiting] of group.entries()) waiting.resolve(out[i]);
    return true;
  }

  async function flush(group: Waiting[]): Promise<void> {
    if (group.every((waiting) => waiting.batchOnly)) {
      try {
        if (await flushAlone(group)) return;
      } catch (error) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
    }
    let workFailed = false;
    try {
      const results = await transaction(async (tx) => {
        const out: unknown[] = [];
        const scope: GroupScope = new Map();
        try {
          for (const waiting of group) out.push(await waiting.work(tx, scope));
          await runEndHooks(tx, scope, run);
        } catch (error) {
          workFailed = !commitFailed(error);
          throw error;
        }
        return out;
      });
      for (const [i, waiting] of group.entries()) waiting.resolve(results[i]);
    } catch (error) {
      if (group.length === 1 || !workFailed) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      for (const waiting of group) await flush([waiting]);
    }
  }

  /** Starts a group with what is queued while fewer than `concurrency` are being written. */
  function pump(): void {
    while (active < concurrency && queue.length > 0) {
      const group = queue.slice(0, MAX_GROUP);
      queue = queue.slice(MAX_GROUP);
      active++;
      void flush(group).finally(() => {
        active--;
        pump();
      });
    }
  }

  return <T>(
    work: (tx: SqlClient, scope: GroupScope) => Promise<T>,
    options?: GroupWriteOptions,
  ): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({
        work,
        batchOnly: options?.batchOnly === true,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      pump();
    });
}
