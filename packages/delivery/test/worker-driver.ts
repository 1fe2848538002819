/**
 * Drives a delivery worker step by step in tests, through its public API and the options it takes
 * (no test hook in the worker): the store the worker gets is wrapped to watch its claims and
 * completions, and its `onAttempt` to see each attempt end.
 *
 * `settle()` wakes the worker and resolves once it is idle again: every delivery it took on has
 * ended and a claim started after the call found nothing due (or nothing its open circuits let it
 * take). It resolves with how many deliveries the worker took on meanwhile (claimed, or handed
 * over by the store after a success).
 */
import type { ClaimedDelivery, Store } from "@hookline/store";
import {
  createDeliveryWorker,
  type DeliveryAttemptReport,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
} from "../src/index.js";

/** A store whose delivery claims are watched, and what to give the worker. */
export interface WatchedDeliveries {
  /** The store to give the worker (or the engine that creates it). */
  store: Store;
  /** The worker's `onAttempt` (it calls `then` first). */
  onAttempt(report: DeliveryAttemptReport): void;
  /** Calls `wake` and waits until the worker is idle; how many deliveries it took on meanwhile. */
  settle(wake: () => void): Promise<number>;
  /** Every claim so far, in order: its `now` and the rows it got. */
  claims: { at: number; rows: ClaimedDelivery[] }[];
}

/**
 * Wraps `real` to watch the worker that will use it (see the module comment). `then` is called
 * with each attempt report, before the attempt counts as ended.
 *
 * @example
 * ```ts
 * const watched = watchDeliveries(createMemoryStore());
 * const hookline = createHookline({ store: watched.store, worker: { onAttempt: watched.onAttempt } });
 * await hookline.start();
 * await watched.settle(() => hookline.worker?.wake());
 * ```
 */
export function watchDeliveries(
  real: Store,
  then?: (report: DeliveryAttemptReport) => void,
): WatchedDeliveries {
  const open = new Set<string>();
  const claims: WatchedDeliveries["claims"] = [];
  let taken = 0;
  /** Claims started so far, and the number of the last one that started idle and found nothing. */
  let started = 0;
  let lastIdle = 0;
  const waiters = new Set<() => void>();
  const check = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const ended = (id: string) => {
    open.delete(id);
    check();
  };
  const queue = real.queue.deliveries;
  const deliveries: Store["queue"]["deliveries"] = {
    ...queue,
    async claim(input) {
      const seq = ++started;
      const idleAtStart = open.size === 0;
      const rows = await queue.claim(input);
      claims.push({ at: input.now, rows });
      for (const row of rows) open.add(row.id);
      taken += rows.length;
      if (idleAtStart && rows.length === 0) lastIdle = Math.max(lastIdle, seq);
      check();
      return rows;
    },
    async complete(id, owner, outcome) {
      const completed = await queue.complete(id, owner, outcome);
      // No report follows a completion without an attempt, nor one whose lease was lost.
      if (!outcome.attempt || !completed) ended(id);
      return completed;
    },
    async recordAttempt(input) {
      const attempt = await queue.recordAttempt(input);
      ended(input.deliveryId);
      return attempt;
    },
  };
  if (queue.completeAndTakeNext) {
    const takeNext = queue.completeAndTakeNext.bind(queue);
    deliveries.completeAndTakeNext = async (id, owner, outcome, leaseMs) => {
      const out = await takeNext(id, owner, outcome, leaseMs);
      if (out.next) {
        open.add(out.next.id);
        taken++;
      }
      if (!outcome.attempt || !out.completed) ended(id);
      return out;
    };
  }
  return {
    store: { ...real, queue: { ...real.queue, deliveries } },
    claims,
    onAttempt(report) {
      try {
        then?.(report);
      } finally {
        ended(report.delivery.id);
      }
    },
    settle(wake) {
      const from = taken;
      // Only a claim that starts after this call tells: an earlier one may predate what is due now.
      const after = started;
      return new Promise<number>((resolve) => {
        const waiter = () => {
          if (lastIdle <= after || open.size > 0) return;
          waiters.delete(waiter);
          // Let the worker finish its bookkeeping of the last delivery (a macrotask later).
          setImmediate(() => resolve(taken - from));
        };
        waiters.add(waiter);
        wake();
      });
    },
  };
}

/** A started worker over a watched store, and the step function that drives it. */
export interface DrivenWorker {
  worker: DeliveryWorker;
  /** Wakes the worker and waits until it is idle; how many deliveries it took on meanwhile. */
  settle(): Promise<number>;
  /** Every claim so far, in order. */
  claims: WatchedDeliveries["claims"];
}

/**
 * Creates a worker over a watched store (without store notices, an hour between polls: it claims
 * when `settle()` wakes it) and starts it. Stop it with `worker.stop()` as usual.
 *
 * @example
 * ```ts
 * const { worker, settle } = drivenWorker({ store, transport, decryptSecret, clock });
 * await store.emits.commit({ workspaceId, componentId, events });
 * expect(await settle()).toBe(1);
 * await worker.stop();
 * ```
 */
export function drivenWorker(options: DeliveryWorkerOptions): DrivenWorker {
  const watched = watchDeliveries(options.store, options.onAttempt);
  const store = watched.store;
  delete store.notifications;
  const worker = createDeliveryWorker({
    pollIntervalMs: 3_600_000,
    ...options,
    store,
    onAttempt: watched.onAttempt,
  });
  worker.start();
  return { worker, claims: watched.claims, settle: () => watched.settle(() => worker.wake()) };
}
