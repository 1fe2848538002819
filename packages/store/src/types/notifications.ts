/** Change notifications of a store. */

/**
 * A change announced by {@link StoreNotifications}: a hint that something may be worth reading now,
 * never the data itself (read the rows from the store). Notices can be lost (a dropped connection),
 * so whoever relies on them still polls.
 */
export type StoreNotice =
  | {
      /**
       * Deliveries became due now: written by the outbox, retried, recovered, released, swept, or
       * resumed by enabling their webhook.
       */
      kind: "deliveries";
      /** Whether this store instance made the change (false: another instance, such as another node). */
      local: boolean;
    }
  | {
      /** Events were appended. */
      kind: "events";
      /** Whether this store instance appended them. */
      local: boolean;
      /** Owning workspace. */
      workspaceId: string;
      /** The deployed component that emitted them. */
      emitterId: string;
      /** Their `seq` numbers, ascending. */
      seqs: number[];
    }
  | {
      /** Log lines were appended. */
      kind: "logs";
      /** Whether this store instance appended them. */
      local: boolean;
      /** Owning workspace. */
      workspaceId: string;
      /** The deployed component. */
      componentId: string;
      /**
       * Their `seq` numbers, ascending. An implementation may announce a range that also covers a
       * few lines of the same component written concurrently elsewhere.
       */
      seqs: number[];
    }
  | {
      /**
       * Notices may have been missed (such as while a lost LISTEN connection was re-established):
       * poll now.
       */
      kind: "resync";
      /** Always false. */
      local: false;
    };

/**
 * Change notifications of a store, across every process sharing it when the implementation can (the
 * SQL store uses Postgres `LISTEN`/`NOTIFY`; the memory store announces its own changes in-process).
 * Optional on {@link Store}: a consumer without it polls.
 *
 * @example
 * ```ts
 * const unsubscribe = store.notifications?.subscribe((notice) => {
 *   if (notice.kind === "deliveries") worker.wake();
 * });
 * // later
 * unsubscribe?.();
 * ```
 */
export interface StoreNotifications {
  /**
   * Calls `listener` with every notice from now on (listener errors are ignored); returns the function
   * that unsubscribes it. The first subscription may open a connection; the last unsubscribe closes it.
   */
  subscribe(listener: (notice: StoreNotice) => void): () => void;
}
