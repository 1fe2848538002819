const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Delays between delivery attempts, in milliseconds (DESIGN.md, "Delivery semantics"): the first
 * attempt is immediate, then retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h
 * (10 attempts over about 3.2 days), each with ±20 % jitter.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
]);

/** Default relative jitter applied by {@link nextRetryDelay}: ±20 %. */
export const DEFAULT_RETRY_JITTER = 0.2;

/** Upper bound applied by {@link parseRetryAfter}: 24 hours. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * Returns how long to wait before the next delivery attempt, or `undefined` when the schedule is
 * exhausted and the message should be marked failed.
 *
 * The delay is `schedule[attempt - 1]` scaled by a uniformly random factor in `[1 - jitter, 1 + jitter]`
 * and rounded to whole milliseconds, so that retries of many messages do not hit an endpoint in lockstep.
 *
 * @param attempt - Number of attempts already made (1-based: `1` after the first, immediate attempt failed).
 * @param schedule - Delays in milliseconds; defaults to {@link DEFAULT_RETRY_SCHEDULE_MS}.
 * @param jitter - Relative jitter in `[0, 1]`; defaults to `0.2` (±20 %).
 * @param random - Source of randomness in `[0, 1)`; defaults to `Math.random`.
 * @returns The delay in milliseconds, or `undefined` when no attempts remain.
 * @throws `RangeError` when `attempt` is not a positive integer or `jitter` is outside `[0, 1]`.
 * @example
 * ```ts
 * nextRetryDelay(1); // ≈ 5_000 (4_000–6_000)
 * nextRetryDelay(2, undefined, 0); // 300_000
 * nextRetryDelay(8); // undefined: 8 attempts made, schedule exhausted
 * ```
 */
export function nextRetryDelay(
  attempt: number,
  schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS,
  jitter: number = DEFAULT_RETRY_JITTER,
  random: () => number = Math.random,
): number | undefined {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  }
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`jitter must be within [0, 1], got ${jitter}`);
  const base = schedule[attempt - 1];
  if (base === undefined) return undefined;
  const factor = 1 + jitter * (2 * random() - 1);
  return Math.max(0, Math.round(base * factor));
}

/**
 * Parses an HTTP `Retry-After` header into a delay in milliseconds.
 *
 * Accepts delay-seconds (`"120"`) and HTTP dates (`"Wed, 21 Oct 2015 07:28:00 GMT"`). Dates in the past
 * give `0`. The result is capped at {@link MAX_RETRY_AFTER_MS} (24 h) so a receiver cannot park a message
 * indefinitely. Missing, empty or unparseable values give `undefined`.
 *
 * @param value - The header value, or `null` when absent.
 * @param now - The current time in milliseconds since the epoch (used for HTTP dates).
 * @returns The delay in milliseconds, or `undefined`.
 * @example
 * ```ts
 * parseRetryAfter("120", Date.now()); // 120_000
 * parseRetryAfter(new Date(Date.now() + 60_000).toUTCString(), Date.now()); // ≈ 60_000
 * parseRetryAfter("soon", Date.now()); // undefined
 * ```
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  let delay: number;
  if (/^\d+$/.test(text)) {
    delay = Number(text) * SECOND;
  } else {
    // HTTP dates always name a weekday or month; refuse bare numbers-with-noise that Date.parse accepts.
    if (!/[a-z]/i.test(text)) return undefined;
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    delay = Math.max(0, date - now);
  }
  return Math.min(delay, MAX_RETRY_AFTER_MS);
}

/** How a delivery attempt's HTTP status is treated; see {@link classifyResponse}. */
export type ResponseClass = "success" | "retry" | "fail" | "disable";

/**
 * Classifies the HTTP status of a delivery attempt.
 *
 * Decisions:
 * - `2xx` → `"success"`: the message is delivered.
 * - `410 Gone` → `"disable"`: the receiver says the endpoint no longer exists; stop retrying and disable
 *   the endpoint.
 * - `3xx` → `"retry"`: redirects are never followed (they could point at internal addresses), so a 3xx is
 *   a failed attempt, retried on the schedule like any 4xx/5xx; the receiver must fix its URL.
 * - every other `1xx`–`5xx` (including 4xx such as 400, 401, 404, 413, 429) → `"retry"`, as Svix does:
 *   receivers often answer 4xx for transient reasons (deploys, misconfigured auth being fixed).
 * - anything that is not a valid HTTP status (not an integer in 100–599) → `"fail"`: a protocol
 *   violation; the attempt is failed without retry.
 *
 * Transport errors (timeouts, connection refused, SSRF blocks) have no status and are up to the caller;
 * network errors are normally retried.
 *
 * @param status - The HTTP status code.
 * @returns The classification.
 * @example
 * ```ts
 * classifyResponse(204); // "success"
 * classifyResponse(302); // "retry"
 * classifyResponse(410); // "disable"
 * classifyResponse(503); // "retry"
 * ```
 */
export function classifyResponse(status: number): ResponseClass {
  if (!Number.isInteger(status) || status < 100 || status > 599) return "fail";
  if (status >= 200 && status < 300) return "success";
  if (status === 410) return "disable";
  return "retry";
}
