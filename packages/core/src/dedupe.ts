import type { EmitMeta } from "./emit.js";
import { HooklineError } from "./errors.js";

/** A dedupe strategy, as a source's `dedupe` property names it. */
export type DedupeStrategy = "unique" | "greatest" | "last";

/** The dedupe strategies, in SPEC's order. */
export const DEDUPE_STRATEGIES: readonly DedupeStrategy[] = ["unique", "greatest", "last"];

/** How many ids the `unique` strategy remembers. */
export const UNIQUE_CACHE_SIZE = 100;

/**
 * The dedupe state of one deployed component: JSON-serializable, kept by the store between
 * invocations. Each strategy uses its own field.
 */
export interface DedupeState {
  /** `unique`: the last 100 emitted ids, oldest first (as strings). */
  ids?: string[];
  /** `greatest`: the largest id emitted so far. */
  greatest?: number;
  /** `last`: the id of the last emitted event. */
  last?: string | number;
}

/** The result of {@link applyDedupe}: what to emit, and the state to keep. */
export interface DedupeResult<T> {
  emitted: T[];
  state: DedupeState;
}

function missingId(strategy: DedupeStrategy, index: number): HooklineError {
  return new HooklineError(
    "dedupe_missing_id",
    `This source uses dedupe "${strategy}", but event #${index + 1} was emitted without an id. ` +
      "Pass one: this.$emit(event, { id })",
    { strategy, index },
  );
}

function numericId(id: string | number, index: number): number {
  const value = typeof id === "number" ? id : id.trim() === "" ? Number.NaN : Number(id);
  if (!Number.isFinite(value)) {
    throw new HooklineError(
      "dedupe_non_numeric_id",
      `Dedupe "greatest" needs numeric ids, but event #${index + 1} has id ${JSON.stringify(id)}`,
      { strategy: "greatest", index, id },
    );
  }
  return value;
}

/**
 * Applies a dedupe strategy to one invocation's emits (already in emit order; see `orderEmits`).
 * Pure: returns the emits to keep and the new state, and never changes its inputs.
 *
 * - `unique`: an event whose id is not among the last 100 emitted ids is emitted and its id
 *   remembered; beyond 100 ids, the oldest is forgotten first.
 * - `greatest`: ids must be numeric (numbers or numeric strings); only an event whose id is larger
 *   than the largest so far is emitted, which then becomes the largest.
 * - `last`: only events after the one whose id matches the cached id are emitted; if none matches,
 *   all are. The cache then holds the id of the last emitted event.
 *
 * A missing id under any strategy throws `dedupe_missing_id`, and a non-numeric id under
 * `greatest` throws `dedupe_non_numeric_id`, before anything is decided: events are never dropped
 * silently. Without a strategy every emit passes.
 *
 * @example
 * ```ts
 * const { emitted, state } = applyDedupe("unique", {}, [
 *   { event: "a", meta: { id: 1 } },
 *   { event: "a again", meta: { id: 1 } },
 * ]);
 * // emitted: the first only; state: { ids: ["1"] }
 * ```
 */
export function applyDedupe<T extends { meta?: EmitMeta | undefined }>(
  strategy: DedupeStrategy | undefined,
  state: DedupeState | undefined,
  emits: readonly T[],
): DedupeResult<T> {
  const current = state ?? {};
  if (!strategy) return { emitted: [...emits], state: current };
  const ids = emits.map((emit, index) => {
    const id = emit.meta?.id;
    if (id === undefined || id === null || id === "") throw missingId(strategy, index);
    return id;
  });

  if (strategy === "unique") {
    const cache = [...(current.ids ?? [])];
    const seen = new Set(cache);
    const emitted: T[] = [];
    emits.forEach((emit, index) => {
      const key = String(ids[index]);
      if (seen.has(key)) return;
      emitted.push(emit);
      cache.push(key);
      seen.add(key);
      while (cache.length > UNIQUE_CACHE_SIZE) seen.delete(cache.shift() as string);
    });
    return { emitted, state: { ...current, ids: cache } };
  }

  if (strategy === "greatest") {
    const numbers = ids.map((id, index) => numericId(id, index));
    let greatest = current.greatest;
    const emitted: T[] = [];
    emits.forEach((emit, index) => {
      const value = numbers[index] as number;
      if (greatest === undefined || value > greatest) {
        emitted.push(emit);
        greatest = value;
      }
    });
    return { emitted, state: greatest === undefined ? { ...current } : { ...current, greatest } };
  }

  // last
  const cached = current.last;
  const match = cached === undefined ? -1 : ids.findIndex((id) => String(id) === String(cached));
  const emitted = emits.slice(match + 1);
  const lastId = match + 1 < emits.length ? ids[ids.length - 1] : cached;
  return { emitted, state: lastId === undefined ? { ...current } : { ...current, last: lastId } };
}
