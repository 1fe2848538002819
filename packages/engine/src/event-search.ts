/**
 * Event search: the one engine function behind `event_summaries` of sources (and of workflows,
 * which are emitters too): a page of an emitter's stored events, by channel, time window and filter.
 */
import { type EventFilterInput, type FilterNode, parseEventFilter } from "@hookline/core";
import type { EventPage, Store } from "@hookline/store";

/** What to search for. */
export interface EventSearchOptions {
  /** Page size (at most 100). */
  limit?: number;
  /** Only events older than this cursor (a page's `nextCursor`). */
  before?: string;
  /** Only events newer than this cursor. */
  after?: string;
  /** Only events of this channel. */
  channel?: string;
  /**
   * A filter (see docs/rest-api.md#filters): an object, its JSON text, or an already parsed tree.
   * An invalid one is `validation_failed` (422) naming each problem's path.
   */
  filter?: EventFilterInput | string | FilterNode;
  /** Only events stored at or after this time (epoch ms). */
  since?: number;
  /** Only events stored before this time (epoch ms). */
  until?: number;
  /** `desc` (newest first, the default) or `asc`. */
  order?: "asc" | "desc";
  /** The page's scan budget: at most this many stored events examined (see `ListEventsOptions.scan`). */
  scan?: number;
}

const isParsed = (filter: unknown): filter is FilterNode =>
  typeof filter === "object" && filter !== null && "kind" in filter && typeof filter.kind === "string";

/**
 * Parses a filter given as an object or JSON text (a parsed tree is returned as is).
 *
 * @example
 * ```ts
 * toFilter('{"event.total":{"$gt":10}}'); // the parsed tree
 * ```
 */
export function toFilter(filter: EventFilterInput | string | FilterNode, field = "filter"): FilterNode {
  return isParsed(filter) ? filter : parseEventFilter(filter, field);
}

/**
 * A page of an emitter's events matching `options`, newest first unless `order: "asc"`.
 *
 * @param store - The engine's store.
 * @param workspaceId - The workspace.
 * @param emitterId - The emitter (a source's `dc_` id, a workflow's `p_` id).
 * @param options - Page, channel, window and filter.
 * @example
 * ```ts
 * const page = await searchEvents(store, ws.id, source.id, { filter: { "event.type": "order.created" } });
 * ```
 */
export function searchEvents(
  store: Store,
  workspaceId: string,
  emitterId: string,
  options: EventSearchOptions = {},
): Promise<EventPage> {
  const { filter, ...rest } = options;
  return store.events.list(workspaceId, emitterId, {
    ...rest,
    ...(filter === undefined ? {} : { filter: toFilter(filter) }),
  });
}
