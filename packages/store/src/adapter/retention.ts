/** Retention: which of a source's rows a trim keeps. */
import type { RetentionLimits } from "../types/index.js";

/**
 * How many of the newest rows a trim keeps: row `i` (0 is the newest) is kept while `i < count` and,
 * from the second row on, while the bytes of rows `0..i` stay within `bytes` (so the newest row is
 * never removed for its size). Adapters that trim in SQL implement the same rule there.
 *
 * @param sizesNewestFirst - The size in bytes of each row, newest first (read lazily, stopping early).
 * @param limits - The bounds; an absent bound does not limit.
 * @example
 * ```ts
 * keptByRetention([10, 10, 10], { bytes: 25 }); // 2
 * keptByRetention([10, 10, 10], { count: 0 }); // 0
 * ```
 */
export function keptByRetention(sizesNewestFirst: Iterable<number>, limits: RetentionLimits): number {
  const count = limits.count ?? Number.POSITIVE_INFINITY;
  const bytes = limits.bytes ?? Number.POSITIVE_INFINITY;
  let kept = 0;
  let total = 0;
  for (const size of sizesNewestFirst) {
    total += size;
    if (kept >= count || (kept > 0 && total > bytes)) break;
    kept++;
  }
  return kept;
}
