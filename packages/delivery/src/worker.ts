/**
 * The delivery worker: claims due deliveries, POSTs them, and keeps the shared slots fair between
 * webhooks (per-webhook caps, slow attempts held aside, circuit breaking).
 */
import { randomUUID } from "node:crypto";
import type { ClaimedDelivery, Store } from "@hookline/store";
import { type CircuitOptions, createCircuits } from "./_circuit.js";
import { type DeliverContext, deliverClaimed, type InFlight } from "./_deliver.js";
import { DEFAULT_RETRY_JITTER, DEFAULT_RETRY_SCHEDULE_MS } from "./retry-schedule.js";
import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_CIRCUIT_COOLDOWN_MS,
  DEFAULT_CIRCUIT_FAILURES,
  DEFAULT_CIRCUIT_MAX_COOLDOWN_MS,
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_DRAIN_MS,
  DEFAULT_PER_WEBHOOK_CONCURRENCY,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_SLOW_AFTER_MS,
  DEFAULT_SLOW_CONCURRENCY,
  DEFAULT_WORKER_CONCURRENCY,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
  type StopOptions,
} from "./worker-types.js";

export { buildPayload, truncateUtf8 } from "./payload.js";
export * from "./worker-types.js";

/** How many decrypted webhook secrets a worker keeps. */
const SECRET_CACHE_SIZE = 256;

/**
 * The worker sweeps expired leases back to `pending` at most once per this many poll intervals (and
 * at least once per half lease, see {@link sweepIntervalMs}): as often as an idle worker did when it
 * swept every tenth poll, but no longer on every tenth wake-up of a busy one (each emit wakes it).
 */
const SWEEP_EVERY_POLLS = 10;

/**
 * How long a worker waits between two sweeps (milliseconds of real time): ten poll intervals, or half
 * a lease when that is shorter, so that the rows of a node that died are due again within about a
 * lease and a half of their claim.
 */
function sweepIntervalMs(settings: { pollIntervalMs: number; leaseMs: number }): number {
  return Math.min(SWEEP_EVERY_POLLS * settings.pollIntervalMs, settings.leaseMs / 2);
}
/** The longest a claim waits after the previous one (see `dispatch`). */
const MAX_CLAIM_REST_MS = 20;

function checkPositive(name: string, value: number, integer: boolean): void {
  if (!(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be a positive ${integer ? "integer" : "number"}, got ${value}`);
  }
}

/**
 * Creates a delivery worker: it claims due deliveries from the store's queue, POSTs each event to its
 * webhook signed per Standard Webhooks, records every attempt, and completes, retries or fails the
 * delivery.
 *
 * Per delivery:
 * - Body: {@link buildPayload}. Headers: `content-type: application/json`, `user-agent: Hookline-Webhooks/1`,
 *   `webhook-id` (the `evt_` id, stable across retries so receivers can dedupe), `webhook-timestamp`
 *   (seconds, at attempt time), `webhook-signature` (one `v1,` entry per non-expired secret, so a rotation
 *   signs with both), `x-hookline-emitter-id` and `x-hookline-event-name`.
 * - `2xx` → `succeeded`. `410` → `failed` and the webhook is disabled (`disabledReason: "gone"`).
 *   `429`/`503` with `Retry-After` → retried after `max(schedule delay, Retry-After)`, capped at 24 h.
 *   Other statuses (3xx included: redirects are never followed), timeouts and network errors → retried
 *   on the schedule, `failed` once it is exhausted. An SSRF-blocked URL → `failed` at once (`ssrf_blocked`).
 * - A signing secret that cannot be decrypted is a configuration error, not the receiver's: the attempt
 *   is recorded (`secret_undecryptable: ...`), the webhook disabled with `disabledReason:
 *   "secret_undecryptable"`, and the delivery waits paused, not retried on the schedule.
 * - Webhook health: the first failure after a success sets `failingSince`, a success clears it; a failure
 *   when the webhook has been failing for `disableAfterMs` disables it (`disabledReason: "failing"`)
 *   and fails the delivery. Deliveries of a disabled webhook are never claimed (the store keeps them
 *   `paused` until it is enabled again); a row whose webhook was disabled after its claim is given
 *   back without a request.
 * - When `complete` reports the lease lost, the outcome is dropped (the attempt stays recorded).
 *
 * Fairness: at most `perWebhookConcurrency` deliveries of one webhook are in flight (across workers);
 * an attempt still waiting after `slowAfterMs` gives its slot back (held aside among at most
 * `slowConcurrency`), and `circuitFailures` failed attempts in a row open the webhook's circuit: the
 * worker leaves its deliveries alone for `circuitCooldownMs` (doubling up to `circuitMaxCooldownMs`),
 * then tries again. A slow or dead receiver thus cannot hold the slots other webhooks need.
 *
 * @param options - The store, transport, secret decryption and tuning.
 * @returns The worker; `start()` it, `wake()` it after emits, `stop()` it on shutdown.
 * @throws `RangeError` when `leaseMs <= attemptTimeoutMs` or a limit is not positive.
 * @example
 * ```ts
 * const transport = createTransport();
 * const worker = createDeliveryWorker({
 *   store,
 *   transport,
 *   decryptSecret: (value) => decrypt(value, key),
 * });
 * worker.start();
 * await store.emits.commit({ workspaceId, componentId: emitterId, events });
 * worker.wake();
 * // on shutdown:
 * await worker.stop({ drainMs: 10_000 });
 * transport.close();
 * ```
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const w = openWorker(options);
  return {
    start() {
      if (w.running || w.stopping) return;
      w.running = true;
      // Notices of due deliveries (from this node or another) cut the idle wait short. A saturated
      // worker ignores them: it polls again as soon as one of its deliveries finishes.
      w.unsubscribe = w.store.notifications?.subscribe((notice) => {
        if (notice.kind === "resync" || (notice.kind === "deliveries" && !w.saturated)) w.wake();
      });
      w.loopPromise = loop(w);
    },
    wake: () => w.wake(),
    get running() {
      return w.running;
    },
    circuitOpenUntil: (webhookId) => w.ctx.circuits.openUntil(webhookId, w.clock.now()),
    stop: (stopOptions: StopOptions = {}) => stopWorker(w, stopOptions.drainMs ?? DEFAULT_DRAIN_MS),
  };
}

/** A worker's settings: its options with their defaults, checked. */
interface Settings {
  owner: string;
  clock: { now(): number };
  concurrency: number;
  perWebhookLimit: number;
  slowAfterMs: number;
  slowConcurrency: number;
  attemptTimeoutMs: number;
  leaseMs: number;
  pollIntervalMs: number;
  jitter: number;
  circuit: CircuitOptions;
}

/** The options' settings; throws `RangeError` for one out of range. */
function settingsOf(options: DeliveryWorkerOptions): Settings {
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const settings: Settings = {
    owner: options.owner ?? `worker_${randomUUID()}`,
    clock: options.clock ?? { now: Date.now },
    concurrency: options.concurrency ?? DEFAULT_WORKER_CONCURRENCY,
    perWebhookLimit: options.perWebhookConcurrency ?? DEFAULT_PER_WEBHOOK_CONCURRENCY,
    slowAfterMs: options.slowAfterMs ?? DEFAULT_SLOW_AFTER_MS,
    slowConcurrency: options.slowConcurrency ?? DEFAULT_SLOW_CONCURRENCY,
    attemptTimeoutMs,
    leaseMs: options.leaseMs ?? attemptTimeoutMs * 2 + 5000,
    pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    jitter: options.jitter ?? DEFAULT_RETRY_JITTER,
    circuit: {
      failures: options.circuitFailures ?? DEFAULT_CIRCUIT_FAILURES,
      cooldownMs: options.circuitCooldownMs ?? DEFAULT_CIRCUIT_COOLDOWN_MS,
      maxCooldownMs: options.circuitMaxCooldownMs ?? DEFAULT_CIRCUIT_MAX_COOLDOWN_MS,
    },
  };
  const { leaseMs, jitter } = settings;
  checkPositive("concurrency", settings.concurrency, true);
  checkPositive("perWebhookConcurrency", settings.perWebhookLimit, true);
  checkPositive("slowAfterMs", settings.slowAfterMs, false);
  checkPositive("slowConcurrency", settings.slowConcurrency, true);
  checkPositive("circuitFailures", settings.circuit.failures, true);
  checkPositive("circuitCooldownMs", settings.circuit.cooldownMs, false);
  checkPositive("circuitMaxCooldownMs", settings.circuit.maxCooldownMs, false);
  checkPositive("attemptTimeoutMs", attemptTimeoutMs, false);
  checkPositive("pollIntervalMs", settings.pollIntervalMs, false);
  if (!(leaseMs > attemptTimeoutMs) || !Number.isFinite(leaseMs)) {
    throw new RangeError(`leaseMs (${leaseMs}) must be greater than attemptTimeoutMs (${attemptTimeoutMs})`);
  }
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`jitter must be within [0, 1], got ${jitter}`);
  return settings;
}

/**
 * One worker, shared by the functions below that each own one part of it: the polling loop, the
 * claim, a delivery in flight, the stop.
 */
interface Worker extends Settings {
  store: Store;
  /** What delivering a claimed row needs (`_deliver.ts`). */
  ctx: DeliverContext;
  inFlight: Map<string, InFlight>;
  /** How many in-flight attempts are held aside as slow. */
  slowCount: number;
  running: boolean;
  stopping: boolean;
  loopPromise: Promise<void> | undefined;
  stopPromise: Promise<void> | undefined;
  /** Claims are serialized: each waits for the one before. */
  claimChain: Promise<unknown>;
  /** How long the last claim took, and when it returned (performance.now()). */
  lastClaimMs: number;
  lastClaimEnd: number;
  /** The last claim filled its limit (or had no free slot): poll again as soon as a slot frees. */
  saturated: boolean;
  /**
   * The last claim found rows: more may be due, held back only by the per-webhook limit. A finished
   * delivery frees a slot for its webhook, so poll again then rather than at the end of the sleep.
   */
  found: boolean;
  /** A wake came since the loop last polled: the next sleep is skipped. */
  wakePending: boolean;
  wakeSleeper: (() => void) | undefined;
  unsubscribe: (() => void) | undefined;
  /** Passes an error to `onError` (a failing handler is ignored). */
  report(error: unknown): void;
  /** Polls now instead of at the end of the current sleep. */
  wake(): void;
}

/** A worker, not started, over its options. */
function openWorker(options: DeliveryWorkerOptions): Worker {
  const settings = settingsOf(options);
  const onError = options.onError ?? (() => {});
  const w: Worker = {
    ...settings,
    store: options.store,
    ctx: undefined as unknown as DeliverContext, // set below: it calls back into `w`
    inFlight: new Map(),
    slowCount: 0,
    running: false,
    stopping: false,
    loopPromise: undefined,
    stopPromise: undefined,
    claimChain: Promise.resolve(),
    lastClaimMs: 0,
    lastClaimEnd: 0,
    saturated: false,
    found: false,
    wakePending: false,
    wakeSleeper: undefined,
    unsubscribe: undefined,
    report(error) {
      try {
        onError(error);
      } catch {
        // A failing error handler must not break the worker.
      }
    },
    wake() {
      w.wakePending = true;
      const sleeper = w.wakeSleeper;
      w.wakeSleeper = undefined;
      sleeper?.();
    },
  };
  w.ctx = deliverContext(w, options);
  return w;
}

/** What delivering needs from the worker `w`: its store and transport, and its slots to hand on. */
function deliverContext(w: Worker, options: DeliveryWorkerOptions): DeliverContext {
  const { store, owner, clock } = w;
  const { decryptSecret } = options;
  /** Decrypted secrets by stored value (each sealed value is unique), bounded. */
  const secretCache = new Map<string, string>();
  return {
    store,
    owner,
    transport: options.transport,
    clock,
    attemptTimeoutMs: w.attemptTimeoutMs,
    decrypt(value) {
      let plain = secretCache.get(value);
      if (plain === undefined) {
        plain = decryptSecret(value);
        if (secretCache.size >= SECRET_CACHE_SIZE) secretCache.clear();
        secretCache.set(value, plain);
      }
      return plain;
    },
    schedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS,
    jitter: w.jitter,
    random: options.random ?? Math.random,
    disableAfterMs: options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS,
    markedFailing: new Set(),
    circuits: createCircuits(w.circuit),
    onAttempt: options.onAttempt,
    // A fast delivery that succeeded passes its slot to its webhook's next due row (no claim) while
    // the worker runs. Not one held aside as slow (its slot was already given to others), nor in a
    // worker whose slots are all taken: a claim then gives the freed slot to the earliest due row
    // of any webhook, so that busy webhooks cannot keep the others waiting.
    handOffLeaseMs: (_row, entry) =>
      w.running && !w.stopping && !entry.slow && !entry.released && freeSlots(w) > 0 ? w.leaseMs : undefined,
    async takeOver(next, from) {
      if (w.running && !w.stopping) {
        from.handedOn = true;
        void track(w, next);
        return;
      }
      // Stopped meanwhile: give it back at once, as a stopping worker gives back its rows.
      await giveBack(w, next.id);
    },
  };
}

/** How many of the shared slots are free (those held aside as slow do not count). */
function freeSlots(w: Worker): number {
  return w.concurrency - (w.inFlight.size - w.slowCount);
}

/** Sleeps up to `ms`, or less when woken; not at all when a wake came since the last poll. */
function sleep(w: Worker, ms: number): Promise<void> {
  if (w.wakePending) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      w.wakeSleeper = undefined;
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref?.();
    w.wakeSleeper = done;
  });
}

/** Delivers a claimed row, holding it aside as slow when it takes longer than `slowAfterMs`. */
function track(w: Worker, row: ClaimedDelivery): Promise<void> {
  const entry: InFlight = { promise: Promise.resolve(), released: false, slow: false };
  w.inFlight.set(row.id, entry);
  // Still waiting after slowAfterMs: hold it aside and give its slot to the other webhooks.
  const slowTimer = setTimeout(() => {
    if (w.inFlight.get(row.id) !== entry || w.slowCount >= w.slowConcurrency) return;
    entry.slow = true;
    w.slowCount++;
    if (w.running) w.wake();
  }, w.slowAfterMs);
  slowTimer.unref?.();
  entry.promise = deliverClaimed(row, entry, w.ctx)
    .catch(w.report)
    .finally(() => {
      clearTimeout(slowTimer);
      if (entry.slow) w.slowCount--;
      w.inFlight.delete(row.id);
      // A slot handed on to the webhook's next row freed nothing: no claim for it.
      if ((w.saturated || w.found) && w.running && !entry.handedOn) w.wake();
    });
  return entry.promise;
}

/** Claims up to the free concurrency and starts delivering; claims are serialized. */
function dispatch(w: Worker): Promise<Promise<void>[]> {
  const next = w.claimChain.then(async () => {
    if (w.stopping) return [];
    let limit = freeSlots(w);
    if (limit <= 0) {
      w.saturated = true;
      return [];
    }
    // Claims take at most about half of the store's time: after a claim that took d ms (a SQL
    // store, busy), the next waits until d ms after it returned, and takes every row freed
    // meanwhile in one go, rather than one claim per finished delivery and per notice. A claim
    // under a millisecond (the memory store) never waits.
    const rest = w.lastClaimMs - (performance.now() - w.lastClaimEnd);
    if (rest >= 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(rest, MAX_CLAIM_REST_MS)));
      if (w.stopping) return [];
      limit = freeSlots(w);
    }
    const busy = w.inFlight.size > 0;
    const now = w.clock.now();
    const open = w.ctx.circuits.open(now);
    const started = performance.now();
    const rows = await w.store.queue.deliveries.claim({
      owner: w.owner,
      now,
      leaseMs: w.leaseMs,
      limit,
      perWebhookLimit: w.perWebhookLimit,
      ...(open.length > 0 && { excludeWebhookIds: open }),
    });
    w.lastClaimEnd = performance.now();
    w.lastClaimMs = w.lastClaimEnd - started;
    w.saturated = rows.length >= limit;
    // An empty claim while this worker's own deliveries are in flight may only mean their
    // webhooks' limits are full: keep polling as they finish, until a claim with none in flight.
    w.found = rows.length > 0 || (w.found && busy);
    return rows.map((row) => track(w, row));
  });
  w.claimChain = next.catch(() => {});
  return next;
}

/** Polls while the worker runs: sweeps expired leases now and then, claims, sleeps. */
async function loop(w: Worker): Promise<void> {
  const every = sweepIntervalMs(w);
  let lastSweep = Number.NEGATIVE_INFINITY;
  while (w.running) {
    w.wakePending = false;
    try {
      if (performance.now() - lastSweep >= every) {
        lastSweep = performance.now();
        await w.store.queue.deliveries.sweep(w.clock.now());
      }
      await dispatch(w);
    } catch (error) {
      w.report(error);
    }
    if (!w.running) break;
    await sleep(w, w.pollIntervalMs);
  }
}

/** Gives a leased row back to the queue, due now, for another worker. */
async function giveBack(w: Worker, id: string): Promise<void> {
  const at = w.clock.now();
  await w.store.queue.deliveries
    .complete(id, w.owner, { state: "pending", nextAttemptAt: at, error: "worker_stopped", at })
    .catch(w.report);
}

/** Stops claiming, waits up to `drainMs` for the deliveries in flight, gives back the rest. */
function stopWorker(w: Worker, drainMs: number): Promise<void> {
  if (w.stopPromise) return w.stopPromise;
  w.stopping = true;
  w.running = false;
  w.unsubscribe?.();
  w.unsubscribe = undefined;
  w.wake();
  w.stopPromise = (async () => {
    await w.loopPromise;
    await w.claimChain;
    const pending = [...w.inFlight.values()].map((entry) => entry.promise);
    if (pending.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs);
      });
      await Promise.race([Promise.allSettled(pending), timeout]);
      clearTimeout(timer);
    }
    await Promise.all(
      [...w.inFlight.entries()].map(async ([id, entry]) => {
        entry.released = true;
        await giveBack(w, id);
      }),
    );
  })();
  return w.stopPromise;
}
