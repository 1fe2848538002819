/** Which events a list with a filter and a time window returns: one rule for every adapter. */
import { filterDocument, matchesFilter } from "@hookline/core";
import { EVENT_SCAN, type ListEventsOptions, type StoredEvent } from "../types/index.js";
import { clampLimit } from "./paging.js";

/**
 * Whether `event` is in `options`' window (`since` <= `createdAt` < `until`) and matches its
 * `filter` (evaluated on the event's `filterDocument`). Adapters that translate filters to queries
 * re-check their rows with it, so that every adapter returns the same events.
 *
 * @example
 * ```ts
 * eventMatches(event, { filter: parseEventFilter({ "event.total": { $gt: 10 } }), since: 0 });
 * ```
 */
export function eventMatches(
  event: StoredEvent,
  options: Pick<ListEventsOptions, "filter" | "since" | "until">,
): boolean {
  if (options.since !== undefined && event.createdAt < options.since) return false;
  if (options.until !== undefined && event.createdAt >= options.until) return false;
  return options.filter === undefined || matchesFilter(options.filter, filterDocument(event));
}

/**
 * The scan budget of a page ({@link ListEventsOptions.scan}): `EVENT_SCAN.default` when absent,
 * otherwise clamped to `[EVENT_SCAN.min, EVENT_SCAN.max]`.
 *
 * @example
 * ```ts
 * scanBudget(undefined); // 10000
 * scanBudget(5); // 100
 * ```
 */
export function scanBudget(scan: number | undefined): number {
  return Math.max(EVENT_SCAN.min, clampLimit(scan, EVENT_SCAN.default, EVENT_SCAN.max));
}

/**
 * Whether a list has conditions beyond its cursor (channel, window, filter): without any, every
 * event examined is kept, and the page fills before its scan budget.
 *
 * @example
 * ```ts
 * hasConditions({ channel: "orders" }); // true
 * ```
 */
export function hasConditions(options: ListEventsOptions): boolean {
  return (
    options.channel !== undefined ||
    options.filter !== undefined ||
    options.since !== undefined ||
    options.until !== undefined
  );
}
