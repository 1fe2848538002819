/**
 * The event summary: how a stored event reads outside the store, as Pipedream's `event_summaries`
 * items (`{id, indexed_at_ms, metadata: {emit_id, emitter_id, name, id, summary, ts}, event?}`).
 * The one definition of that shape: the REST API and its SSE stream answer with it, event filters
 * are evaluated on it, the CLI and the UI read it.
 */
import Type, { type Static } from "typebox";

/** The schema of an event summary; `event` is there when the event was asked for (`expand=event`). */
export const EventSummarySchema = Type.Object({
  id: Type.String({ description: "The `evt_` id" }),
  indexed_at_ms: Type.Integer({ description: "When it was stored (epoch ms)" }),
  event: Type.Optional(Type.Unknown({ description: "The emitted event (with `expand=event`)" })),
  metadata: Type.Object({
    emit_id: Type.String({ description: "The `evt_` id" }),
    emitter_id: Type.String({ description: "The source (or workflow) that emitted it" }),
    name: Type.String({ description: "The channel" }),
    id: Type.Union([Type.String(), Type.Null()], { description: "The dedupe id" }),
    summary: Type.Union([Type.String(), Type.Null()]),
    ts: Type.Integer({ description: "The event time (epoch ms)" }),
  }),
});

/** An event summary (see {@link EventSummarySchema}). */
export type EventSummary = Static<typeof EventSummarySchema>;

/** What a summary is built from: the fields of a stored event it shows. */
export interface SummarizedEvent {
  /** `evt_` id. */
  id: string;
  /** The emitter. */
  emitterId: string;
  /** The channel. */
  channel: string;
  /** The summary. */
  summary?: string;
  /** The dedupe id. */
  eventId?: string;
  /** The event time. */
  ts: number;
  /** When it was stored. */
  createdAt: number;
  /** The emitted event. */
  body: unknown;
}

/**
 * The summary of a stored event, with the event itself when `expand` (its body is the stored value,
 * not a copy).
 *
 * @example
 * ```ts
 * const item = eventSummary(storedEvent, true);
 * item.metadata.name; // the channel, e.g. "default"
 * ```
 */
export function eventSummary(e: SummarizedEvent, expand: boolean): EventSummary {
  const out: EventSummary = {
    id: e.id,
    indexed_at_ms: e.createdAt,
    metadata: {
      emit_id: e.id,
      emitter_id: e.emitterId,
      name: e.channel,
      id: e.eventId ?? null,
      summary: e.summary ?? null,
      ts: e.ts,
    },
  };
  if (expand) out.event = e.body;
  return out;
}
