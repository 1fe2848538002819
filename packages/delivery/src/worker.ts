/**
 * The delivery worker: claims due deliveries, POSTs them, and keeps the shared slots fair between
 * webhooks (per-webhook caps, slow attempts held aside, circuit breaking).
 */
import { randomUUID } from "node:crypto";
import type { ClaimedDelivery } from "@hookline/store";
import { createCircuits } from "./_circuit.js";
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

/** The worker sweeps expired leases back to `pending` once every this many polls. */
const SWEEP_EVERY_POLLS = 10;
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
  const { store, transport, decryptSecret } = options;
  const owner = options.owner ?? `worker_${randomUUID()}`;
  const clock = options.clock ?? { now: Date.now };
  const concurrency = options.concurrency ?? DEFAULT_WORKER_CONCURRENCY;
  const perWebhookLimit = options.perWebhookConcurrency ?? DEFAULT_PER_WEBHOOK_CONCURRENCY;
  const slowAfterMs = options.slowAfterMs ?? DEFAULT_SLOW_AFTER_MS;
  const slowConcurrency = options.slowConcurrency ?? DEFAULT_SLOW_CONCURRENCY;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? attemptTimeoutMs * 2 + 5000;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const jitter = options.jitter ?? DEFAULT_RETRY_JITTER;
  const circuitOptions = {
    failures: options.circuitFailures ?? DEFAULT_CIRCUIT_FAILURES,
    cooldownMs: options.circuitCooldownMs ?? DEFAULT_CIRCUIT_COOLDOWN_MS,
    maxCooldownMs: options.circuitMaxCooldownMs ?? DEFAULT_CIRCUIT_MAX_COOLDOWN_MS,
  };
  const onError = options.onError ?? (() => {});

  checkPositive("concurrency", concurrency, true);
  checkPositive("perWebhookConcurrency", perWebhookLimit, true);
  checkPositive("slowAfterMs", slowAfterMs, false);
  checkPositive("slowConcurrency", slowConcurrency, true);
  checkPositive("circuitFailures", circuitOptions.failures, true);
  checkPositive("circuitCooldownMs", circuitOptions.cooldownMs, false);
  checkPositive("circuitMaxCooldownMs", circuitOptions.maxCooldownMs, false);
  checkPositive("attemptTimeoutMs", attemptTimeoutMs, false);
  checkPositive("pollIntervalMs", pollIntervalMs, false);
  if (!(leaseMs > attemptTimeoutMs) || !Number.isFinite(leaseMs)) {
    throw new RangeError(`leaseMs (${leaseMs}) must be greater than attemptTimeoutMs (${attemptTimeoutMs})`);
  }
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`jitter must be within [0, 1], got ${jitter}`);

  /** Decrypted secrets by stored value (each sealed value is unique), bounded. */
  const secretCache = new Map<string, string>();
  const ctx: DeliverContext = {
    store,
    owner,
    transport,
    clock,
    attemptTimeoutMs,
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
    jitter,
    random: options.random ?? Math.random,
    disableAfterMs: options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS,
    markedFailing: new Set(),
    circuits: createCircuits(circuitOptions),
    onAttempt: options.onAttempt,
    // A fast delivery that succeeded passes its slot to its webhook's next due row (no claim) while
    // the worker runs. Not one held aside as slow (its slot was already given to others), nor in a
    // worker whose slots are all taken: a claim then gives the freed slot to the earliest due row
    // of any webhook, so that busy webhooks cannot keep the others waiting.
    handOffLeaseMs: (_row, entry) =>
      running && !stopping && !entry.slow && !entry.released && inFlight.size - slowCount < concurrency
        ? leaseMs
        : undefined,
    async takeOver(next, from) {
      if (running && !stopping) {
        from.handedOn = true;
        void track(next);
        return;
      }
      // Stopped meanwhile: give it back at once, as a stopping worker gives back its rows.
      const at = clock.now();
      await store.queue.deliveries
        .complete(next.id, owner, { state: "pending", nextAttemptAt: at, error: "worker_stopped", at })
        .catch(report);
    },
  };

  const inFlight = new Map<string, InFlight>();
  /** How many in-flight attempts are held aside as slow. */
  let slowCount = 0;
  let running = false;
  let stopping = false;
  let loopPromise: Promise<void> | undefined;
  let stopPromise: Promise<void> | undefined;
  let claimChain: Promise<unknown> = Promise.resolve();
  /** How long the last claim took, and when it returned (performance.now()). */
  let lastClaimMs = 0;
  let lastClaimEnd = 0;
  /** The last claim filled its limit (or had no free slot): poll again as soon as a slot frees. */
  let saturated = false;
  /**
   * The last claim found rows: more may be due, held back only by the per-webhook limit. A finished
   * delivery frees a slot for its webhook, so poll again then rather than at the end of the sleep.
   */
  let found = false;
  let wakePending = false;
  let wakeSleeper: (() => void) | undefined;
  let unsubscribe: (() => void) | undefined;

  function report(error: unknown): void {
    try {
      onError(error);
    } catch {
      // A failing error handler must not break the worker.
    }
  }

  function wake(): void {
    wakePending = true;
    const sleeper = wakeSleeper;
    wakeSleeper = undefined;
    sleeper?.();
  }

  function sleep(ms: number): Promise<void> {
    if (wakePending) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      wakeSleeper = done;
    });
  }

  function track(row: ClaimedDelivery): Promise<void> {
    const entry: InFlight = { promise: Promise.resolve(), released: false, slow: false };
    inFlight.set(row.id, entry);
    // Still waiting after slowAfterMs: hold it aside and give its slot to the other webhooks.
    const slowTimer = setTimeout(() => {
      if (inFlight.get(row.id) !== entry || slowCount >= slowConcurrency) return;
      entry.slow = true;
      slowCount++;
      if (running) wake();
    }, slowAfterMs);
    slowTimer.unref?.();
    entry.promise = deliverClaimed(row, entry, ctx)
      .catch(report)
      .finally(() => {
        clearTimeout(slowTimer);
        if (entry.slow) slowCount--;
        inFlight.delete(row.id);
        // A slot handed on to the webhook's next row freed nothing: no claim for it.
        if ((saturated || found) && running && !entry.handedOn) wake();
      });
    return entry.promise;
  }

  /** Claims up to the free concurrency and starts delivering; claims are serialized. */
  function dispatch(): Promise<Promise<void>[]> {
    const next = claimChain.then(async () => {
      if (stopping) return [];
      let limit = concurrency - (inFlight.size - slowCount);
      if (limit <= 0) {
        saturated = true;
        return [];
      }
      // Claims take at most about half of the store's time: after a claim that took d ms (a SQL
      // store, busy), the next waits until d ms after it returned, and takes every row freed
      // meanwhile in one go, rather than one claim per finished delivery and per notice. A claim
      // under a millisecond (the memory store) never waits.
      const rest = lastClaimMs - (performance.now() - lastClaimEnd);
      if (rest >= 1) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(rest, MAX_CLAIM_REST_MS)));
        if (stopping) return [];
        limit = concurrency - (inFlight.size - slowCount);
      }
      const busy = inFlight.size > 0;
      const now = clock.now();
      const open = ctx.circuits.open(now);
      const started = performance.now();
      const rows = await store.queue.deliveries.claim({
        owner,
        now,
        leaseMs,
        limit,
        perWebhookLimit,
        ...(open.length > 0 && { excludeWebhookIds: open }),
      });
      lastClaimEnd = performance.now();
      lastClaimMs = lastClaimEnd - started;
      saturated = rows.length >= limit;
      // An empty claim while this worker's own deliveries are in flight may only mean their
      // webhooks' limits are full: keep polling as they finish, until a claim with none in flight.
      found = rows.length > 0 || (found && busy);
      return rows.map(track);
    });
    claimChain = next.catch(() => {});
    return next;
  }

  async function loop(): Promise<void> {
    let polls = 0;
    while (running) {
      wakePending = false;
      try {
        if (polls % SWEEP_EVERY_POLLS === 0) await store.queue.deliveries.sweep(clock.now());
        polls++;
        await dispatch();
      } catch (error) {
        report(error);
      }
      if (!running) break;
      await sleep(pollIntervalMs);
    }
  }

  async function release(): Promise<void> {
    await Promise.all(
      [...inFlight.entries()].map(async ([id, entry]) => {
        entry.released = true;
        try {
          const at = clock.now();
          await store.queue.deliveries.complete(id, owner, {
            state: "pending",
            nextAttemptAt: at,
            error: "worker_stopped",
            at,
          });
        } catch (error) {
          report(error);
        }
      }),
    );
  }

  return {
    start() {
      if (running || stopping) return;
      running = true;
      // Notices of due deliveries (from this node or another) cut the idle wait short. A saturated
      // worker ignores them: it polls again as soon as one of its deliveries finishes.
      unsubscribe = store.notifications?.subscribe((notice) => {
        if (notice.kind === "resync" || (notice.kind === "deliveries" && !saturated)) wake();
      });
      loopPromise = loop();
    },
    wake,
    get running() {
      return running;
    },
    circuitOpenUntil: (webhookId) => ctx.circuits.openUntil(webhookId, clock.now()),
    stop(stopOptions: StopOptions = {}) {
      if (stopPromise) return stopPromise;
      const drainMs = stopOptions.drainMs ?? DEFAULT_DRAIN_MS;
      stopping = true;
      running = false;
      unsubscribe?.();
      unsubscribe = undefined;
      wake();
      stopPromise = (async () => {
        await loopPromise;
        await claimChain;
        const pending = [...inFlight.values()].map((entry) => entry.promise);
        if (pending.length > 0) {
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<void>((resolve) => {
            timer = setTimeout(resolve, drainMs);
          });
          await Promise.race([Promise.allSettled(pending), timeout]);
          clearTimeout(timer);
        }
        await release();
      })();
      return stopPromise;
    },
  };
}
