/** Delivery metrics from attempts: the rule every adapter follows (SQL computes the same in SQL). */
import type { Attempt, DeliveryMetrics } from "../types/index.js";

/** The status class of an attempt: `2xx`..., or `error` when no answer came. */
function classOf(status: number | undefined): keyof DeliveryMetrics["statusClasses"] {
  if (status === undefined) return "error";
  if (status < 200) return "1xx";
  if (status < 300) return "2xx";
  if (status < 400) return "3xx";
  if (status < 500) return "4xx";
  return "5xx";
}

/**
 * The nearest-rank percentile of sorted values: the smallest value with at least `p` of them at or
 * below it (SQL's `percentile_disc`); null when there are none.
 *
 * @example
 * ```ts
 * percentile([10, 20, 30, 40], 0.5); // 20
 * ```
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[rank - 1] ?? null;
}

/**
 * The metrics of a set of attempts.
 *
 * @example
 * ```ts
 * metricsOf([{ status: 200, durationMs: 12 }, { durationMs: 15000 }]).succeeded; // 1
 * ```
 */
export function metricsOf(attempts: readonly Pick<Attempt, "status" | "durationMs">[]): DeliveryMetrics {
  const statusClasses = { "1xx": 0, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, error: 0 };
  for (const attempt of attempts) statusClasses[classOf(attempt.status)]++;
  const sorted = attempts.map((a) => a.durationMs).sort((a, b) => a - b);
  return {
    attempts: attempts.length,
    succeeded: statusClasses["2xx"],
    failed: attempts.length - statusClasses["2xx"],
    statusClasses,
    latencyMs: { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99) },
  };
}
