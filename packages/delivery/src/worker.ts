import { randomUUID } from "node:crypto";
import type { ClaimedDelivery, CompleteOptions, Store, StoredEvent, WebhookPatch } from "@hookline/store";
import {
  classifyResponse,
  DEFAULT_RETRY_JITTER,
  DEFAULT_RETRY_SCHEDULE_MS,
  MAX_RETRY_AFTER_MS,
  nextRetryDelay,
  parseRetryAfter,
  type ResponseClass,
} from "./retry-schedule.js";
import { signPayload } from "./signature.js";
import type { Transport } from "./transport.js";

const SECOND = 1000;
const DAY = 24 * 60 * 60 * SECOND;

/** Default overall number of deliveries a {@link createDeliveryWorker} worker has in flight: 16. */
export const DEFAULT_WORKER_CONCURRENCY = 16;
/** Default number of deliveries of one webhook in flight at once (across all workers): 4. */
export const DEFAULT_PER_WEBHOOK_CONCURRENCY = 4;
/** Default time limit of one delivery attempt: 15 seconds. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15 * SECOND;
/** Default time between two polls of the queue: 1 second. */
export const DEFAULT_POLL_INTERVAL_MS = SECOND;
/** Default time a webhook may fail continuously before it is disabled: 5 days. */
export const DEFAULT_DISABLE_AFTER_MS = 5 * DAY;
/** Default time {@link DeliveryWorker.stop} waits for in-flight deliveries: 10 seconds. */
export const DEFAULT_DRAIN_MS = 10 * SECOND;
/** Response bodies are recorded on attempts truncated to this many bytes (UTF-8): 4096. */
export const RESPONSE_EXCERPT_BYTES = 4096;
/** The `user-agent` header of delivery requests. */
export const DELIVERY_USER_AGENT = "Hookline-Webhooks/1";

/** How many decrypted webhook secrets a worker keeps. */
const SECRET_CACHE_SIZE = 256;

/** The worker sweeps expired leases back to `pending` once every this many polls. */
const SWEEP_EVERY_POLLS = 10;

/** The HTTP client the worker POSTs with: a {@link Transport} (only `post` is used). */
export type DeliveryTransport = Pick<Transport, "post">;

/** A clock: the worker reads the current time (epoch milliseconds) from it. */
export interface DeliveryClock {
  /** The current time in milliseconds since the epoch. */
  now(): number;
}

/** What {@link DeliveryWorkerOptions.onAttempt} receives after each recorded HTTP attempt. */
export interface DeliveryAttemptReport {
  /** The claimed delivery (with its event and the webhook as claimed; `attempts` counts this one). */
  delivery: ClaimedDelivery;
  /** When the attempt started. */
  at: number;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** How long the attempt took, in milliseconds. */
  durationMs: number;
  /** The error of a failed attempt (`http_500`, `timeout`, `ssrf_blocked`, a network error, ...). */
  error?: string;
  /** The state the delivery was completed with. */
  outcome: "succeeded" | "failed" | "pending";
  /** When the next attempt is due (for `pending`). */
  nextAttemptAt?: number;
  /** Set when this attempt disabled the webhook: `gone` (a 410) or `failing` (failing too long). */
  webhookDisabled?: "gone" | "failing";
}

/** Options of {@link createDeliveryWorker}. */
export interface DeliveryWorkerOptions {
  /** The store holding the delivery queue, events and webhooks. */
  store: Store;
  /** The HTTP transport (see `createTransport`); the worker never closes it. */
  transport: DeliveryTransport;
  /**
   * Decrypts a stored (encrypted) webhook secret into its `whsec_` form. The worker remembers the
   * results of its last few hundred calls (by stored value), so a busy webhook is not decrypted again
   * for every delivery.
   */
  decryptSecret: (value: string) => string;
  /** The lease owner id of this worker; a random `worker_` id by default. */
  owner?: string;
  /** The clock (timestamps, leases, schedule); `Date.now` by default. Polling sleeps use real timers. */
  clock?: DeliveryClock;
  /** Maximum deliveries in flight in this worker; 16 by default. */
  concurrency?: number;
  /** Maximum deliveries of one webhook in flight at once, across all workers; 4 by default. */
  perWebhookConcurrency?: number;
  /** Time limit of one HTTP attempt in milliseconds; 15 s by default. */
  attemptTimeoutMs?: number;
  /**
   * How long a claim is leased, in milliseconds; `attemptTimeoutMs * 2 + 5 s` by default. Must be
   * greater than `attemptTimeoutMs`, or a row could be re-claimed while its attempt is still running.
   */
  leaseMs?: number;
  /**
   * Sleep between polls of the queue in milliseconds; 1 s by default. Cut short by `wake()` and, when
   * the store has `notifications`, by a notice that deliveries became due (on any node sharing the
   * store): notices only shorten the wait, polling alone guarantees progress.
   */
  pollIntervalMs?: number;
  /** Retry delays; `DEFAULT_RETRY_SCHEDULE_MS` by default. */
  retrySchedule?: readonly number[];
  /** Relative jitter of retry delays in `[0, 1]`; `DEFAULT_RETRY_JITTER` (0.2) by default. */
  jitter?: number;
  /** A webhook failing continuously for this long is disabled on its next failure; 5 days by default. */
  disableAfterMs?: number;
  /** Source of randomness in `[0, 1)` for the jitter; `Math.random` by default. */
  random?: () => number;
  /** Called after each HTTP attempt is recorded and its delivery completed (errors are ignored). */
  onAttempt?: (report: DeliveryAttemptReport) => void;
  /** Called with unexpected errors (store failures) of the polling loop and deliveries; ignored by default. */
  onError?: (error: unknown) => void;
}

/** Options of {@link DeliveryWorker.stop}. */
export interface StopOptions {
  /** How long to wait for in-flight deliveries before releasing them; 10 s by default. */
  drainMs?: number;
}

/** A delivery worker created by {@link createDeliveryWorker}. */
export interface DeliveryWorker {
  /**
   * Starts the polling loop (polls at once) and, when the store has `notifications`, subscribes to
   * them to wake early. Calling it again while running does nothing.
   */
  start(): void;
  /** Polls now instead of at the end of the current sleep; call it after appending events. */
  wake(): void;
  /**
   * Claims one batch (up to the free concurrency), delivers it and resolves, once those deliveries are
   * finished, with how many were claimed. Does not sweep; resolves 0 once stopped.
   */
  runOnce(): Promise<number>;
  /**
   * Stops claiming, waits up to `drainMs` for in-flight deliveries, then releases whatever is still in
   * flight back to `pending` (due now) so another node retries it. The transport is not closed.
   */
  stop(options?: StopOptions): Promise<void>;
}

/**
 * Builds the request body POSTed for a delivery: the emitted event as JSON, unchanged (DESIGN.md,
 * "Delivery semantics"); `null` when it has no body. These exact bytes are what is signed. The
 * event's id travels in the `webhook-id` header, its channel in `x-hookline-event-name`.
 *
 * @param event - The stored event.
 * @returns The JSON body.
 * @example
 * ```ts
 * buildPayload({ id: "evt_1", ts: 0, body: { a: 1 } }); // '{"a":1}'
 * ```
 */
export function buildPayload(event: Pick<StoredEvent, "id" | "ts" | "body">): string {
  return JSON.stringify(event.body ?? null);
}

/**
 * Truncates a response body to at most `maxBytes` bytes of UTF-8, never splitting a character.
 *
 * @param text - The response body.
 * @param maxBytes - The byte limit; {@link RESPONSE_EXCERPT_BYTES} by default.
 * @returns The excerpt.
 * @example
 * ```ts
 * truncateUtf8("é".repeat(3000)).length; // 2048
 * ```
 */
export function truncateUtf8(text: string, maxBytes: number = RESPONSE_EXCERPT_BYTES): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/** Whether the error (or one of its causes) carries `code`. */
function hasCode(error: unknown, code: string): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth++) {
    if ((current as { code?: unknown }).code === code) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** A readable message of a network error, including its causes (`fetch failed: connect ECONNREFUSED ...`). */
function errorMessage(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ") || "unknown_error";
}

function checkPositive(name: string, value: number, integer: boolean): void {
  if (!(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be a positive ${integer ? "integer" : "number"}, got ${value}`);
  }
}

/** The result of one HTTP attempt, before it is turned into a completion. */
interface AttemptResult {
  kind: ResponseClass;
  status?: number;
  durationMs: number;
  excerpt?: string;
  error?: string;
  retryAfterMs?: number;
}

interface InFlight {
  promise: Promise<void>;
  released: boolean;
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
 * - Webhook health: the first failure after a success sets `failingSince`, a success clears it; a failure
 *   when the webhook has been failing for `disableAfterMs` disables it (`disabledReason: "failing"`)
 *   and fails the delivery. Deliveries of a disabled webhook are never claimed (the store keeps them
 *   `paused` until it is enabled again); a row whose webhook was disabled after its claim is given
 *   back without a request.
 * - When `complete` reports the lease lost, the outcome is dropped (the attempt stays recorded).
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
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? attemptTimeoutMs * 2 + 5 * SECOND;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS;
  const jitter = options.jitter ?? DEFAULT_RETRY_JITTER;
  const disableAfterMs = options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
  const random = options.random ?? Math.random;
  const onError = options.onError ?? (() => {});

  checkPositive("concurrency", concurrency, true);
  checkPositive("perWebhookConcurrency", perWebhookLimit, true);
  checkPositive("attemptTimeoutMs", attemptTimeoutMs, false);
  checkPositive("pollIntervalMs", pollIntervalMs, false);
  if (!(leaseMs > attemptTimeoutMs) || !Number.isFinite(leaseMs)) {
    throw new RangeError(`leaseMs (${leaseMs}) must be greater than attemptTimeoutMs (${attemptTimeoutMs})`);
  }
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`jitter must be within [0, 1], got ${jitter}`);

  const inFlight = new Map<string, InFlight>();
  /** Webhooks this worker marked failing (their claimed snapshot may predate it). */
  const markedFailing = new Set<string>();
  let running = false;
  let stopping = false;
  let loopPromise: Promise<void> | undefined;
  let stopPromise: Promise<void> | undefined;
  let claimChain: Promise<unknown> = Promise.resolve();
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

  /** Decrypted secrets by stored value (each sealed value is unique), bounded. */
  const secretCache = new Map<string, string>();
  function decrypted(value: string): string {
    let plain = secretCache.get(value);
    if (plain === undefined) {
      plain = decryptSecret(value);
      if (secretCache.size >= SECRET_CACHE_SIZE) secretCache.clear();
      secretCache.set(value, plain);
    }
    return plain;
  }

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

  async function attempt(row: ClaimedDelivery, startedAt: number): Promise<AttemptResult> {
    const started = performance.now();
    try {
      const { webhook, event } = row;
      const secrets = webhook.secrets
        .filter((secret) => secret.expiresAt === undefined || secret.expiresAt > startedAt)
        .map((secret) => decrypted(secret.value));
      if (secrets.length === 0) throw new Error("no_signing_secret");
      const body = buildPayload(event);
      const timestamp = Math.floor(startedAt / SECOND);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": DELIVERY_USER_AGENT,
        "webhook-id": row.eventId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signPayload(secrets, row.eventId, timestamp, body),
        "x-hookline-emitter-id": row.emitterId,
        "x-hookline-event-name": row.channel,
      };
      const response = await transport.post(webhook.url, { headers, body, timeoutMs: attemptTimeoutMs });
      const kind = classifyResponse(response.status);
      const result: AttemptResult = {
        kind,
        status: response.status,
        durationMs: Math.round(response.durationMs),
        excerpt: truncateUtf8(response.body),
      };
      if (kind !== "success") result.error = `http_${response.status}`;
      if (response.status === 429 || response.status === 503) {
        const retryAfter = parseRetryAfter(response.headers["retry-after"] ?? null, clock.now());
        if (retryAfter !== undefined) result.retryAfterMs = retryAfter;
      }
      return result;
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      if (hasCode(error, "ssrf_blocked")) return { kind: "fail", durationMs, error: "ssrf_blocked" };
      if (hasCode(error, "timeout")) return { kind: "retry", durationMs, error: "timeout" };
      return { kind: "retry", durationMs, error: errorMessage(error) };
    }
  }

  async function deliver(row: ClaimedDelivery, entry: InFlight): Promise<void> {
    const { webhook } = row;
    if (!webhook.active) {
      if (entry.released) return;
      // Disabled between the claim and now: give the row back unsent. The store keeps it paused until
      // the webhook is enabled again (or makes it due at once if it already is).
      const at = clock.now();
      await store.queue.deliveries.complete(row.id, owner, {
        state: "pending",
        nextAttemptAt: at,
        error: "webhook_disabled",
        at,
      });
      return;
    }

    const startedAt = clock.now();
    const result = await attempt(row, startedAt);
    if (entry.released) return;

    await store.queue.deliveries.recordAttempt({
      deliveryId: row.id,
      workspaceId: row.workspaceId,
      at: startedAt,
      durationMs: result.durationMs,
      ...(result.status !== undefined && { status: result.status }),
      ...(result.excerpt !== undefined && { responseExcerpt: result.excerpt }),
      ...(result.error !== undefined && { error: result.error }),
    });

    const now = clock.now();
    const outcome: CompleteOptions = { state: "failed", at: now };
    if (result.status !== undefined) outcome.status = result.status;
    if (result.error !== undefined) outcome.error = result.error;
    let webhookPatch: WebhookPatch | undefined;
    let webhookDisabled: DeliveryAttemptReport["webhookDisabled"];

    if (result.kind === "success") {
      outcome.state = "succeeded";
      if (webhook.failingSince !== undefined || markedFailing.has(webhook.id)) {
        webhookPatch = { failingSince: null };
      }
    } else if (result.kind === "disable") {
      webhookPatch = { active: false, disabledReason: "gone" };
      webhookDisabled = "gone";
    } else {
      if (result.kind === "retry") {
        let delay = nextRetryDelay(row.attempts, schedule, jitter, random);
        if (delay !== undefined && result.retryAfterMs !== undefined) {
          delay = Math.min(Math.max(delay, result.retryAfterMs), MAX_RETRY_AFTER_MS);
        }
        if (delay !== undefined) {
          outcome.state = "pending";
          outcome.nextAttemptAt = now + delay;
        }
      }
      // Health: read the webhook again, the claimed snapshot may be stale.
      const current = await store.webhooks.get(row.workspaceId, webhook.id);
      const failingSince = current?.failingSince;
      if (failingSince === undefined) {
        webhookPatch = { failingSince: now };
      } else if (now - failingSince >= disableAfterMs) {
        if (current?.active) {
          webhookPatch = { active: false, disabledReason: "failing" };
          webhookDisabled = "failing";
        }
        outcome.state = "failed";
        delete outcome.nextAttemptAt;
      }
    }

    if (entry.released) return;
    const completed = await store.queue.deliveries.complete(row.id, owner, outcome);
    if (!completed) return; // Lease lost: another worker owns the row now.

    if (webhookPatch) {
      await store.webhooks.update(row.workspaceId, webhook.id, webhookPatch);
      if (webhookPatch.failingSince === null) markedFailing.delete(webhook.id);
      else if (webhookPatch.failingSince !== undefined) markedFailing.add(webhook.id);
    }

    if (options.onAttempt) {
      const attemptReport: DeliveryAttemptReport = {
        delivery: row,
        at: startedAt,
        durationMs: result.durationMs,
        outcome: outcome.state,
      };
      if (result.status !== undefined) attemptReport.status = result.status;
      if (result.error !== undefined) attemptReport.error = result.error;
      if (outcome.nextAttemptAt !== undefined) attemptReport.nextAttemptAt = outcome.nextAttemptAt;
      if (webhookDisabled) attemptReport.webhookDisabled = webhookDisabled;
      try {
        options.onAttempt(attemptReport);
      } catch {
        // Callback errors are ignored.
      }
    }
  }

  function track(row: ClaimedDelivery): Promise<void> {
    const entry: InFlight = { promise: Promise.resolve(), released: false };
    inFlight.set(row.id, entry);
    entry.promise = deliver(row, entry)
      .catch(report)
      .finally(() => {
        inFlight.delete(row.id);
        if ((saturated || found) && running) wake();
      });
    return entry.promise;
  }

  /** Claims up to the free concurrency and starts delivering; claims are serialized. */
  function dispatch(): Promise<Promise<void>[]> {
    const next = claimChain.then(async () => {
      if (stopping) return [];
      const limit = concurrency - inFlight.size;
      if (limit <= 0) {
        saturated = true;
        return [];
      }
      const busy = inFlight.size > 0;
      const rows = await store.queue.deliveries.claim({
        owner,
        now: clock.now(),
        leaseMs,
        limit,
        perWebhookLimit,
      });
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
    async runOnce() {
      if (stopping) return 0;
      const started = await dispatch();
      await Promise.all(started);
      return started.length;
    },
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
      })();
      return stopPromise;
    },
  };
}
