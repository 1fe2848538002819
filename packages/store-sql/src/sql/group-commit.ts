/**
 * Group commit: writes asked for while a transaction is being written wait, and are all written in
 * the next transaction as soon as the previous one returns ("commit what is queued"), each caller
 * answered once its own writes are committed. One transaction (one WAL flush) then carries the
 * writes of every concurrent caller: the emits of concurrent invocations, the attempts and outcomes
 * of concurrent deliveries.
 */
import type { SqlClient } from "../clients.js";

/** One queued write and its caller. */
interface Waiting {
  work: (tx: SqlClient) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Runs queued writes in shared transactions; see the module comment. */
export type GroupCommit = <T>(work: (tx: SqlClient) => Promise<T>) => Promise<T>;

/** Writes in one group at most: a bound on the transaction's size and on a retry's cost. */
const MAX_GROUP = 256;

/**
 * Makes a group committer over `transaction`. When a write of a group throws, the transaction is
 * rolled back and each write of the group runs again in a transaction of its own, so that one
 * refused write never fails the others; a failed COMMIT (outcome unknown) is reported to every
 * caller of the group instead, never written twice.
 *
 * @param transaction - Runs `fn` in one transaction (the store's `c.transaction`).
 * @param concurrency - Groups written at once: 1 for a single connection (PGlite); more over a pool,
 *   where one group at a time would make writers that could run side by side wait for each other.
 */
export function createGroupCommit(
  transaction: <T>(fn: (tx: SqlClient) => Promise<T>) => Promise<T>,
  concurrency = 1,
): GroupCommit {
  let queue: Waiting[] = [];
  let active = 0;

  async function flush(group: Waiting[]): Promise<void> {
    let workFailed = false;
    try {
      const results = await transaction(async (tx) => {
        const out: unknown[] = [];
        try {
          for (const waiting of group) out.push(await waiting.work(tx));
        } catch (error) {
          workFailed = true;
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

  return <T>(work: (tx: SqlClient) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      pump();
    });
}
