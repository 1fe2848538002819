/** The options, reports and defaults of the delivery worker ({@link createDeliveryWorker}). */
import type { ClaimedDelivery, Store } from "@hookline/store";
import type { Transport } from "./transport.js";

const SECOND = 1000;
const DAY = 24 * 60 * 60 * SECOND;

/** Default number of deliveries a {@link createDeliveryWorker} worker has in flight, slow ones aside: 16. */
export const DEFAULT_WORKER_CONCURRENCY = 16;
/** Default number of deliveries of one webhook in flight at once (across all workers): 4. */
export const DEFAULT_PER_WEBHOOK_CONCURRENCY = 4;
/** Default time after which an attempt still waiting for its receiver leaves the shared slots: 2 seconds. */
export const DEFAULT_SLOW_AFTER_MS = 2 * SECOND;
/** Default number of slow attempts (see {@link DEFAULT_SLOW_AFTER_MS}) a worker holds aside: 64. */
export const DEFAULT_SLOW_CONCURRENCY = 64;
/** Default number of failed attempts in a row that open a webhook's circuit: 5. */
export const DEFAULT_CIRCUIT_FAILURES = 5;
/** Default first pause of a webhook whose circuit opened: 30 seconds (doubled each time it fails again). */
export const DEFAULT_CIRCUIT_COOLDOWN_MS = 30 * SECOND;
/** Default longest pause of a webhook whose circuit is open: 10 minutes. */
export const DEFAULT_CIRCUIT_MAX_COOLDOWN_MS = 10 * 60 * SECOND;
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
/**
 * The `disabledReason` of a webhook whose stored signing secret could not be decrypted at delivery
 * (the node's secrets key is not the one it was encrypted with): a configuration error, not retried.
 */
export const SECRET_UNDECRYPTABLE = "secret_undecryptable";

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
  /** The state the delivery was completed with (`pending` also when it waits paused). */
  outcome: "succeeded" | "failed" | "pending";
  /** When the next attempt is due (for `pending`). */
  nextAttemptAt?: number;
  /**
   * Set when this attempt disabled the webhook: `gone` (a 410), `failing` (failing too long) or
   * `secret_undecryptable` (its signing secret could not be decrypted: a configuration error).
   */
  webhookDisabled?: "gone" | "failing" | typeof SECRET_UNDECRYPTABLE;
  /** Set when this attempt opened the webhook's circuit: this worker sends it nothing until then. */
  circuitOpenUntil?: number;
}

/** Options of {@link createDeliveryWorker}. */
export interface DeliveryWorkerOptions {
  /** The store holding the delivery queue, events and webhooks. */
  store: Store;
  /** The HTTP transport (see `createTransport`); the worker never closes it. */
  transport: DeliveryTransport;
  /**
   * Decrypts a stored (encrypted) webhook secret into its `whsec_` form, throwing when it cannot (a
   * configuration error: the webhook is disabled with `disabledReason: "secret_undecryptable"`). The
   * worker remembers the results of its last few hundred calls (by stored value), so a busy webhook is
   * not decrypted again for every delivery.
   */
  decryptSecret: (value: string) => string;
  /** The lease owner id of this worker; a random `worker_` id by default. */
  owner?: string;
  /** The clock (timestamps, leases, schedule); `Date.now` by default. Polling sleeps use real timers. */
  clock?: DeliveryClock;
  /**
   * Maximum deliveries in flight in this worker, not counting slow ones (see `slowAfterMs`); 16 by
   * default.
   */
  concurrency?: number;
  /** Maximum deliveries of one webhook in flight at once, across all workers; 4 by default. */
  perWebhookConcurrency?: number;
  /**
   * An attempt still waiting for its receiver after this long (milliseconds; 2 s by default) gives
   * its slot back: it is held aside, among at most `slowConcurrency`, until it ends or times out, so
   * slow or dead receivers cannot take the slots every other webhook shares.
   */
  slowAfterMs?: number;
  /** Maximum slow attempts held aside by this worker; 64 by default. When full, a slow attempt keeps its slot. */
  slowConcurrency?: number;
  /**
   * Failed attempts in a row (errors, timeouts, statuses other than 2xx) that open a webhook's circuit
   * in this worker; 5 by default. While it is open the worker claims none of the webhook's deliveries
   * (they stay due, their retry schedule untouched); then it tries again, and a success closes it.
   */
  circuitFailures?: number;
  /** How long a circuit first stays open, in milliseconds; 30 s by default, doubled each time it opens again. */
  circuitCooldownMs?: number;
  /** The longest a circuit stays open, in milliseconds; 10 minutes by default. */
  circuitMaxCooldownMs?: number;
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
  /** True between `start()` and `stop()`: the polling loop is running. */
  readonly running: boolean;
  /**
   * Until when (epoch ms) this worker's circuit breaker holds the webhook's deliveries (after
   * `circuitFailures` failed attempts in a row); undefined when its circuit is closed.
   */
  circuitOpenUntil(webhookId: string): number | undefined;
  /**
   * Stops claiming, waits up to `drainMs` for in-flight deliveries, then releases whatever is still in
   * flight back to `pending` (due now) so another node retries it. The transport is not closed.
   */
  stop(options?: StopOptions): Promise<void>;
}
