/**
 * Events: the newest 100 events, then live ones over SSE (resumed from the list's newest `seq`, so
 * nothing falls between the two), a content search (`event_summaries` with a filter), and an
 * inspector with the event's JSON and metadata. For sources and workflows alike.
 */
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, page, seg } from "../api";
import { NO_SEARCH, type SearchInput } from "../event-search";
import { useLoad } from "../hooks";
import { type StreamState, useLiveFeed } from "../sse";
import type { EventSummary } from "../types";
import { ConfirmDialog, CopyButton, ErrorNote, Time } from "../widgets";
import { EventSearchForm, useEventSearch } from "./event-search-form";
import type { SourceContext } from "./source-context";

/** SPEC: the most recent 100 events are inspectable in the UI. */
const KEEP = 100;

function summaryOf(e: EventSummary): string {
  if (e.metadata.summary) return e.metadata.summary;
  const json = JSON.stringify(e.event ?? null);
  return json.length > 80 ? `${json.slice(0, 79)}…` : json;
}

/** The live state in words. */
export function StreamBadge({ state }: { state: StreamState }) {
  const text = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", closed: "Not live" }[
    state
  ];
  return (
    <span class={`badge stream-${state}`} role="status">
      {text}
    </span>
  );
}

/** The Events tab of a source: its events, searched on the server. */
export function EventsTab({ ctx }: { ctx: SourceContext }) {
  return <EventBrowser base={`/v1/sources/${seg(ctx.source.id)}`} server={true} what="this source" />;
}

/**
 * The events of an emitter at `base` (`/v1/sources/{id}` or `/v1/workflows/{id}`): the newest 100
 * kept live over `${base}/sse`, a search (on the server unless `server` is false), the inspector.
 */
export function EventBrowser({ base, server, what }: { base: string; server: boolean; what: string }) {
  const feed = useLiveFeed<EventSummary>(
    `${base}/sse`,
    "emit",
    async () => {
      const first = await page<EventSummary>(`${base}/event_summaries`, { limit: KEEP, expand: "event" });
      // start_cursor is the newest event's seq: the stream sends what came after it.
      return { items: first.data, lastEventId: first.pageInfo.start_cursor ?? "0" };
    },
    (prev, e) => (prev.some((x) => x.id === e.id) ? prev : [e, ...prev].slice(0, KEEP)),
  );
  const { items: events, loaded, error, state } = feed;
  // `?event=evt_...` (a delivery's Event link): selected, and read on its own in case it is older.
  const linked = useLinkedEvent(base, server);
  const [selected, setSelected] = useState<string | undefined>(linked?.id);
  const [search, setSearch] = useState<SearchInput>(NO_SEARCH);
  const [clearing, setClearing] = useState(false);
  const results = useEventSearch(base, search, events, server);

  const shown = results.active ? results.items : events;
  const current =
    shown.find((e) => e.id === selected) ??
    events.find((e) => e.id === selected) ??
    (linked?.event?.id === selected ? linked?.event : undefined);
  let count: string;
  if (!loaded) count = "Loading events…";
  else if (!results.active)
    count = `The newest ${events.length} event${events.length === 1 ? "" : "s"}, live`;
  else if (results.loading) count = "Searching…";
  else if (results.error) count = "No results";
  else if (server)
    count = `${shown.length}${results.more ? "+" : ""} matching event${shown.length === 1 ? "" : "s"} (newest first; live updates paused while searching)`;
  else count = `${shown.length} of the newest ${events.length} event${events.length === 1 ? "" : "s"}`;

  return (
    <div>
      <EventSearchForm value={search} onChange={setSearch} results={results} server={server}>
        <StreamBadge state={state} />
        <button
          type="button"
          class="small danger-text"
          disabled={events.length === 0}
          onClick={() => setClearing(true)}
        >
          Delete events
        </button>
      </EventSearchForm>
      <ErrorNote error={error} label="Could not load the events" />
      <p class="muted small-text" aria-live="polite" data-testid="event-count">
        {count}
      </p>
      <div class="split">
        <div>
          <ol
            class="event-list"
            aria-label={results.active ? "Matching events, newest first" : "Events, newest first"}
          >
            {shown.map((e) => (
              <li key={e.id}>
                <button
                  type="button"
                  class={`event-row${e.id === selected ? " selected" : ""}`}
                  aria-pressed={e.id === selected}
                  onClick={() => setSelected(e.id)}
                >
                  <span class="event-summary">{summaryOf(e)}</span>
                  <span class="muted small-text">
                    <Time ms={e.indexed_at_ms} />
                    {e.metadata.name !== "default" ? ` · ${e.metadata.name}` : ""}
                  </span>
                </button>
              </li>
            ))}
            {loaded && !results.active && events.length === 0 ? (
              <li class="empty">No events yet. They appear here as they arrive.</li>
            ) : null}
            {results.active && !results.loading && !results.error && shown.length === 0 ? (
              <li class="empty">No event matches this search.</li>
            ) : null}
          </ol>
          {results.more ? (
            <button type="button" class="small" onClick={() => void results.more?.()}>
              Older matches
            </button>
          ) : null}
        </div>
        <Inspector event={current} />
      </div>
      <ConfirmDialog
        open={clearing}
        title={`Delete every event of ${what}?`}
        confirmLabel="Delete events"
        onClose={() => setClearing(false)}
        onConfirm={async () => {
          await api("DELETE", `${base}/events`);
          feed.setItems(() => []);
          setSelected(undefined);
        }}
      >
        <p>Deliveries already made are not affected.</p>
      </ConfirmDialog>
    </div>
  );
}

/**
 * The event a link names (`?event=evt_...&at=<epoch s>`), read with an `id` filter around `at`, so
 * the inspector shows it even when it is not among the newest.
 */
function useLinkedEvent(base: string, server: boolean): { id: string; event?: EventSummary } | undefined {
  const { query } = useRoute();
  const id = typeof query.event === "string" && query.event ? query.event : undefined;
  const at = Number(query.at);
  const found = useLoad(async () => {
    if (!id || !server) return undefined;
    const window = Number.isFinite(at) && at > 0 ? { since: at - 600, until: at + 600 } : {};
    const res = await page<EventSummary>(`${base}/event_summaries`, {
      limit: 1,
      expand: "event",
      filter: JSON.stringify({ id }),
      ...window,
    });
    return res.data[0];
  }, [base, id, at, server]);
  if (!id) return undefined;
  return found.data ? { id, event: found.data } : { id };
}

function Inspector({ event }: { event: EventSummary | undefined }) {
  if (!event) {
    return (
      <section class="inspector" aria-label="Event inspector">
        <p class="muted">Select an event to inspect it.</p>
      </section>
    );
  }
  const json = JSON.stringify(event.event, null, 2);
  const m = event.metadata;
  return (
    <section class="inspector" aria-labelledby="inspector-title">
      <h2 id="inspector-title">Event {m.emit_id}</h2>
      <dl class="meta">
        <dt>Channel</dt>
        <dd>{m.name}</dd>
        <dt>Event id</dt>
        <dd class="mono">{m.id ?? "—"}</dd>
        <dt>Summary</dt>
        <dd>{m.summary ?? "—"}</dd>
        <dt>Time (ts)</dt>
        <dd>{new Date(m.ts).toISOString()}</dd>
        <dt>Indexed</dt>
        <dd>{new Date(event.indexed_at_ms).toISOString()}</dd>
        <dt>Emitter</dt>
        <dd class="mono">{m.emitter_id}</dd>
      </dl>
      <div class="row">
        <h3>Event JSON</h3>
        <CopyButton text={json} label="Copy the event JSON" />
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <section class="json" tabIndex={0} aria-label="Event JSON">
        <pre>{json}</pre>
      </section>
    </section>
  );
}
