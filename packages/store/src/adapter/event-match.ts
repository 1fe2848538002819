/** Which events a list with a filter and a time window returns: one rule for every adapter. */
import { filterDocument, matchesFilter } from "@hookline/core";
import type { ListEventsOptions, StoredEvent } from "../types/index.js";

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
