/**
 * The dedupe decision of an emit commit, over rows that carry their id as `eventId` (a string):
 * core's `applyDedupe`, the one owner of the strategies, applied by every adapter inside its commit.
 */
import { applyDedupe, type DedupeState, type DedupeStrategy } from "@hookline/core";

/** What {@link decideDedupe} keeps of an emit, and the state to write with it. */
export interface DedupeDecision<T> {
  kept: T[];
  state: DedupeState;
}

/**
 * Applies `strategy` to `rows` (oldest first) against the emitter's stored `state`: the rows kept
 * and the new state. Throws core's `dedupe_missing_id` or `dedupe_non_numeric_id` before deciding
 * anything, whatever the state (so an adapter may call it with `undefined` to check an emit's ids
 * before it takes any lock).
 *
 * @example
 * ```ts
 * decideDedupe("unique", { ids: ["a"] }, [{ eventId: "a" }, { eventId: "b" }]);
 * // { kept: [{ eventId: "b" }], state: { ids: ["a", "b"] } }
 * ```
 */
export function decideDedupe<T extends { eventId?: string | undefined }>(
  strategy: DedupeStrategy,
  state: unknown,
  rows: readonly T[],
): DedupeDecision<T> {
  const items = rows.map((row) => ({ row, meta: row.eventId === undefined ? {} : { id: row.eventId } }));
  const { emitted, state: next } = applyDedupe(
    strategy,
    (state ?? undefined) as DedupeState | undefined,
    items,
  );
  return { kept: emitted.map((item) => item.row), state: next };
}
