/**
 * Retry policies of workflow steps (issue 20): a policy per workflow and per step, its defaults,
 * and the backoff between tries. {@link validateRetry} is the one owner of the policy's rules;
 * {@link retryPolicy} and {@link retryDelay} are what the engine runs by.
 */
import type { Problem } from "./errors.js";
import { problem } from "./problems.js";

/** How a failing step is tried again: `count` more tries, waiting a growing, jittered backoff. */
export interface RetryPolicy {
  /** Tries after the first (0: none), at most 20. */
  count?: number;
  /** The first wait in ms (at least 0). */
  initial_ms?: number;
  /** How much each wait grows (1 to 10). */
  factor?: number;
  /** The longest wait in ms. */
  max_ms?: number;
  /** The share of each wait drawn at random (0 to 1): a wait of `w` becomes `w * (1 - jitter * rand)`. */
  jitter?: number;
}

/** Every field of a policy, filled in. */
export type ResolvedRetryPolicy = Required<RetryPolicy>;

/**
 * The default for runs that no HTTP request waits on (manual, timer, source, and HTTP triggers
 * without `custom_response`): 8 tries, waits of 5 min doubling up to 4 h, about 9 hours in all.
 */
export const DEFAULT_RETRY: ResolvedRetryPolicy = {
  count: 7,
  initial_ms: 5 * 60_000,
  factor: 2,
  max_ms: 4 * 3_600_000,
  jitter: 0.2,
};

/** The default for HTTP runs that wait for `$.respond` (`custom_response`): no retry. */
export const NO_RETRY: ResolvedRetryPolicy = { ...DEFAULT_RETRY, count: 0 };

/** Most tries after the first. */
export const MAX_RETRY_COUNT = 20;

const LIMITS: Record<keyof RetryPolicy, [number, number, boolean]> = {
  count: [0, MAX_RETRY_COUNT, true],
  initial_ms: [0, 7 * 86_400_000, true],
  factor: [1, 10, false],
  max_ms: [0, 7 * 86_400_000, true],
  jitter: [0, 1, false],
};

/**
 * Checks a retry policy; problems name the field under `path` (`retry.count`, `steps[0].retry.factor`).
 *
 * @example
 * ```ts
 * validateRetry({ count: -1 }, "retry"); // [{ code: "invalid_value", path: "retry.count", ... }]
 * ```
 */
export function validateRetry(value: unknown, path: string): Problem[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [problem("invalid_type", path, "retry must be an object such as { count: 3 }")];
  }
  const found: Problem[] = [];
  for (const [key, v] of Object.entries(value)) {
    // Own keys only: `toString` or `constructor` in a policy are not fields, whatever Object has.
    const limit = Object.hasOwn(LIMITS, key) ? LIMITS[key as keyof RetryPolicy] : undefined;
    if (!limit) {
      const fields = Object.keys(LIMITS).join(", ");
      found.push(
        problem(
          "invalid_value",
          `${path}.${key}`,
          `${path}.${key} is not a field of a retry policy (its fields: ${fields})`,
        ),
      );
      continue;
    }
    const [min, max, integer] = limit;
    if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
      found.push(
        problem("invalid_type", `${path}.${key}`, `${key} must be ${integer ? "an integer" : "a number"}`),
      );
    } else if (v < min || v > max) {
      found.push(problem("invalid_value", `${path}.${key}`, `${key} must be between ${min} and ${max}`));
    }
  }
  return found;
}

/**
 * The policy a step runs by: its own fields over the workflow's over the default (none for an
 * HTTP run that waits for `$.respond`).
 *
 * @example
 * ```ts
 * retryPolicy({ count: 2 }, undefined, false).count; // 2
 * retryPolicy(undefined, undefined, true).count; // 0
 * ```
 */
export function retryPolicy(
  step: RetryPolicy | undefined,
  workflow: RetryPolicy | undefined,
  waitsForResponse: boolean,
): ResolvedRetryPolicy {
  return { ...(waitsForResponse ? NO_RETRY : DEFAULT_RETRY), ...workflow, ...step };
}

/**
 * The wait before try `attempt + 1` after try `attempt` (1-based) failed: `initial_ms * factor^(attempt-1)`,
 * at most `max_ms`, less up to `jitter` of it at random.
 *
 * @example
 * ```ts
 * retryDelay({ ...DEFAULT_RETRY, jitter: 0 }, 2); // 600000
 * ```
 */
export function retryDelay(policy: ResolvedRetryPolicy, attempt: number, random = Math.random): number {
  const base = Math.min(policy.max_ms, policy.initial_ms * policy.factor ** Math.max(0, attempt - 1));
  return Math.max(0, Math.round(base * (1 - policy.jitter * random())));
}
