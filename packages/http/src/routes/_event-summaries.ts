/**
 * The `event_summaries` list of an emitter (a source or a workflow): one set of parameters, one
 * mapping to the engine's event search, one page shape, so both routes take and answer the same.
 */
import { eventSummary } from "@hookline/core";
import type { EventSearchOptions } from "@hookline/engine";
import type { EventPage } from "@hookline/store";
import Type, { type Static } from "typebox";
import { ListParams, SeqCursor } from "./_schemas.js";
import { eventPageInfo, FilterParam, ScanParam, WindowParams, windowOf } from "./_window.js";

/** Query parameters of `GET /v1/{sources|workflows}/{id}/event_summaries`. */
export const EventSummaryParams = Type.Object({
  ...ListParams,
  after: SeqCursor,
  expand: Type.Optional(Type.Literal("event")),
  event_name: Type.Optional(Type.String({ description: "Only this channel" })),
  filter: FilterParam,
  scan: ScanParam,
  ...WindowParams,
});

type Params = Static<typeof EventSummaryParams>;

/** The engine's search options for these parameters (20 events by default). */
export function eventSearchOf(params: Params): EventSearchOptions {
  return {
    limit: params.limit ?? 20,
    ...(params.after ? { before: params.after } : {}),
    ...(params.event_name ? { channel: params.event_name } : {}),
    ...(params.filter === undefined ? {} : { filter: params.filter }),
    ...(params.scan === undefined ? {} : { scan: params.scan }),
    ...windowOf(params),
  };
}

/** A page of events as the list answer: summaries (with the event on `expand=event`), seq cursors, scan info. */
export function eventSummaryList(page: EventPage, params: Params) {
  return {
    list: page.items.map((e) => eventSummary(e, params.expand === "event")),
    cursor: (index: number) => String(page.items[index]?.seq),
    pageInfo: eventPageInfo(page, params.scan),
  };
}
