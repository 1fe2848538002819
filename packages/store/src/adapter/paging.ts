/** Page sizes and cursors, the same in every adapter. */
import { isId } from "@hookline/core";
import { type Page, StoreError } from "../types/index.js";

/**
 * A page size: `fallback` when absent or not a number, otherwise clamped to `[1, max]`.
 *
 * @example
 * ```ts
 * clampLimit(undefined, 10, 100); // 10
 * clampLimit(1000, 10, 100); // 100
 * ```
 */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(max, Math.floor(limit)));
}

/**
 * Parses a `seq` cursor (events, logs): a non-negative integer as text. Anything else is an
 * `invalid` {@link StoreError} naming `field`.
 *
 * @example
 * ```ts
 * parseSeqCursor("42", "after"); // 42
 * parseSeqCursor("abc", "after"); // throws StoreError("invalid", ..., "after")
 * ```
 */
export function parseSeqCursor(cursor: string | undefined, field: string): number | undefined {
  if (cursor === undefined) return undefined;
  const value = /^\d{1,16}$/.test(cursor) ? Number(cursor) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw invalidCursor(cursor, field);
  return value;
}

/**
 * Checks an id cursor (deliveries page by id): an id with `prefix` as `newId` makes them. Anything
 * else is an `invalid` {@link StoreError} naming `field`.
 *
 * @example
 * ```ts
 * parseIdCursor("dlv_01jd3k6y2f8q4m7c1x9zb5t0ne", "dlv", "before"); // the id
 * ```
 */
export function parseIdCursor(cursor: string | undefined, prefix: string, field: string): string | undefined {
  if (cursor === undefined) return undefined;
  if (!isId(cursor, prefix)) throw invalidCursor(cursor, field);
  return cursor;
}

function invalidCursor(cursor: string, field: string): StoreError {
  const shown = cursor.length > 40 ? `${cursor.slice(0, 40)}...` : cursor;
  return new StoreError("invalid", `Invalid cursor in ${field}: ${JSON.stringify(shown)}`, field);
}

/**
 * The page of `rows`, which holds up to `limit + 1` matching rows in page order: the first `limit`,
 * and a `nextCursor` (the cursor of the last one) when there were more.
 *
 * @example
 * ```ts
 * pageOf([a, b, c], 2, (row) => String(row.seq)); // { items: [a, b], nextCursor: String(b.seq) }
 * ```
 */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => string): Page<T> {
  const items = rows.length > limit ? rows.slice(0, limit) : rows;
  const page: Page<T> = { items };
  const last = items[items.length - 1];
  if (rows.length > limit && last !== undefined) page.nextCursor = cursorOf(last);
  return page;
}
