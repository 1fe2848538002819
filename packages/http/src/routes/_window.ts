/** Parameters shared by the routes that take a time window and an event filter. */
import { HooklineError } from "@hookline/core";
import { EVENT_SCAN, type EventPage } from "@hookline/store";
import { scanBudget } from "@hookline/store/adapter";
import Type from "typebox";
import type { PageInfo } from "../_define.js";

/** A time: epoch seconds or an ISO 8601 date. */
export const TimeParam = (description: string) =>
  Type.Optional(Type.Union([Type.Integer(), Type.String()], { description }));

/** An event filter: a JSON object (in a JSON body) or its JSON text (in the query string). */
export const FilterParam = Type.Optional(
  Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())], {
    description:
      'An event filter (docs/rest-api.md#filters): Mongo-style operators on dotted paths, such as {"event.total":{"$gte":100}}',
  }),
);

/** The scan budget of an event page (`scan`): how many stored events it examines at most. */
export const ScanParam = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: EVENT_SCAN.max,
    description: `At most this many stored events are examined for this page (default ${EVENT_SCAN.default}, at least ${EVENT_SCAN.min}); page_info.budget_reached says the page stopped on it`,
  }),
);

/**
 * The `page_info` of an event page: cursors, `has_more`, and what its scan examined.
 *
 * @example
 * ```ts
 * return { list, cursor: (i) => String(page.items[i]?.seq), pageInfo: eventPageInfo(page, params.scan) };
 * ```
 */
export function eventPageInfo(page: EventPage, scan: number | undefined): PageInfo {
  return {
    count: page.items.length,
    start_cursor: page.items[0] ? String(page.items[0].seq) : null,
    end_cursor: page.nextCursor ?? null,
    has_more: page.nextCursor !== undefined,
    scanned: page.scanned,
    scan_budget: scanBudget(scan),
    budget_reached: page.budgetReached,
  };
}

/** `since` and `until` (optional) as the window's parameters. */
export const WindowParams = {
  since: TimeParam("Only what happened at or after this time: epoch seconds or an ISO 8601 date"),
  until: TimeParam("Only what happened before this time: epoch seconds or an ISO 8601 date"),
};

/** A time parameter in epoch milliseconds; a bad one is `422 validation_failed` naming it. */
export function toMs(name: string, value: number | string): number {
  const ms = typeof value === "number" || /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  if (Number.isSafeInteger(ms)) return ms;
  const message = `${name} must be epoch seconds or an ISO 8601 date such as 2026-01-31T12:00:00Z`;
  throw new HooklineError("validation_failed", `Invalid parameters: ${message}`, {
    problems: [{ code: "invalid_value", path: name, message }],
  });
}

/** The window of `since`/`until` in epoch milliseconds (absent bounds left out). */
export function windowOf(params: { since?: number | string; until?: number | string }): {
  since?: number;
  until?: number;
} {
  return {
    ...(params.since === undefined ? {} : { since: toMs("since", params.since) }),
    ...(params.until === undefined ? {} : { until: toMs("until", params.until) }),
  };
}
