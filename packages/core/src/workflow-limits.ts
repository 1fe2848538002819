/**
 * Limits on a workflow's runs (issue 20): `concurrency: { max }` runs at once, `throttle: { limit,
 * interval_ms }` starts per interval, and `queue_size` runs waiting. {@link validateLimits} owns
 * their rules.
 */
import type { Problem } from "./errors.js";
import { problem } from "./problems.js";

/** At most `max` runs of the workflow at once. */
export interface ConcurrencyLimit {
  max: number;
}

/** At most `limit` runs of the workflow start within any `interval_ms`. */
export interface ThrottleLimit {
  limit: number;
  interval_ms: number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function integer(found: Problem[], value: unknown, path: string, min: number, max: number): void {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    found.push(problem("invalid_type", path, `${path} must be an integer`));
  } else if (value < min || value > max) {
    found.push(problem("invalid_value", path, `${path} must be between ${min} and ${max}`));
  }
}

function only(found: Problem[], value: Record<string, unknown>, path: string, keys: string[]): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key))
      found.push(
        problem(
          "invalid_value",
          `${path}.${key}`,
          `${path}.${key} is not a field of ${path} (its fields: ${keys.join(", ")})`,
        ),
      );
  }
}

/**
 * Checks a workflow's `concurrency`, `throttle` and `queue_size` (each optional; `null` removes it
 * on an update). Runs of a workflow with a concurrency or throttle limit are queued, so an HTTP
 * trigger with `custom_response` (which answers from the run) cannot have one.
 *
 * @example
 * ```ts
 * validateLimits({ concurrency: { max: 0 } }); // [{ code: "invalid_value", path: "concurrency.max", ... }]
 * ```
 */
export function validateLimits(definition: Record<string, unknown>): Problem[] {
  const found: Problem[] = [];
  const { concurrency, throttle, queue_size: queueSize } = definition;
  if (concurrency !== undefined && concurrency !== null) {
    if (!isObject(concurrency)) found.push(problem("invalid_type", "concurrency", "concurrency is { max }"));
    else {
      only(found, concurrency, "concurrency", ["max"]);
      integer(found, concurrency.max, "concurrency.max", 1, 10_000);
    }
  }
  if (throttle !== undefined && throttle !== null) {
    if (!isObject(throttle))
      found.push(problem("invalid_type", "throttle", "throttle is { limit, interval_ms }"));
    else {
      only(found, throttle, "throttle", ["limit", "interval_ms"]);
      integer(found, throttle.limit, "throttle.limit", 1, 1_000_000);
      integer(found, throttle.interval_ms, "throttle.interval_ms", 1_000, 86_400_000);
    }
  }
  if (queueSize !== undefined && queueSize !== null) integer(found, queueSize, "queue_size", 1, 1_000_000);
  const trigger = definition.trigger as Record<string, unknown> | undefined;
  const limited = (concurrency ?? null) !== null || (throttle ?? null) !== null;
  if (limited && trigger?.type === "http" && trigger.custom_response === true) {
    found.push(
      problem(
        "invalid_value",
        concurrency ? "concurrency" : "throttle",
        "runs of a workflow with a concurrency or throttle limit are queued: an HTTP trigger with custom_response cannot answer from them",
      ),
    );
  }
  return found;
}
