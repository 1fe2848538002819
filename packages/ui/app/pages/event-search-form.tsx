/**
 * The events inspector's search: a free-text box, and under "Advanced" a JSON filter and a time
 * window; {@link useEventSearch} asks `event_summaries` (or, on a server that cannot search these
 * events, filters the loaded ones in the browser).
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type ApiError, page } from "../api";
import { isSearching, matchesLocally, type SearchInput, searchQuery } from "../event-search";
import { asApiError } from "../hooks";
import type { EventSummary } from "../types";

/** Results of a search: the matching events (newest first), or the API's refusal. */
export interface SearchResults {
  active: boolean;
  items: EventSummary[];
  loading: boolean;
  error: ApiError | undefined;
  /** Reads the next page of matches, when there is one. */
  more?: () => Promise<void>;
}

/** How long typing pauses before the search is sent. */
const DEBOUNCE_MS = 300;

/**
 * Searches `${base}/event_summaries` (100 a page) whenever the input changes (after a pause).
 * `server: false` filters `known` in the browser instead (free text and time window only).
 */
export function useEventSearch(
  base: string,
  input: SearchInput,
  known: EventSummary[],
  server: boolean,
): SearchResults {
  const active = isSearching(input);
  const [state, setState] = useState<{ items: EventSummary[]; cursor: string | null }>({
    items: [],
    cursor: null,
  });
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const knownRef = useRef(known);
  knownRef.current = known;
  const run = useRef(0);
  const query = useRef<Record<string, string | number>>({});

  useEffect(() => {
    const n = ++run.current;
    if (!active || !server) {
      setError(undefined);
      setLoading(false);
      return;
    }
    setLoading(true);
    const timer = setTimeout(async () => {
      query.current = { ...searchQuery(input, knownRef.current), expand: "event", limit: 100 };
      try {
        const res = await page<EventSummary>(`${base}/event_summaries`, query.current);
        if (n !== run.current) return;
        setState({ items: res.data, cursor: res.pageInfo.end_cursor });
        setError(undefined);
      } catch (e) {
        if (n === run.current) setError(asApiError(e));
      } finally {
        if (n === run.current) setLoading(false);
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [base, active, server, input.text, input.filter, input.since, input.until]);

  if (!active) return { active, items: [], loading: false, error: undefined };
  if (!server) return { active, items: known.filter((e) => matchesLocally(e, input)), loading: false, error };
  const cursor = state.cursor;
  return {
    active,
    items: error ? [] : state.items,
    loading,
    error,
    ...(cursor && !error
      ? {
          more: async () => {
            const n = run.current;
            const res = await page<EventSummary>(`${base}/event_summaries`, {
              ...query.current,
              after: cursor,
            });
            if (n === run.current)
              setState((s) => ({ items: [...s.items, ...res.data], cursor: res.pageInfo.end_cursor }));
          },
        }
      : {}),
  };
}

/** The API's reasons for refusing a filter (`details.problems`), else its message. */
function reasons(error: ApiError): string[] {
  const problems = (error.details?.problems ?? []) as { path?: string; message?: string }[];
  const listed = problems
    .filter((p) => p.message)
    .map((p) => (p.path ? `${p.path}: ${p.message}` : `${p.message}`));
  return listed.length > 0 ? listed : [error.message];
}

/**
 * The search form; `server: false` says that only free text and the window apply, in the browser.
 * `children` go in the toolbar after the search box.
 */
export function EventSearchForm({
  value,
  onChange,
  results,
  server,
  children,
}: {
  value: SearchInput;
  onChange: (value: SearchInput) => void;
  results: SearchResults;
  server: boolean;
  children?: ComponentChildren;
}) {
  const set = (patch: Partial<SearchInput>) => onChange({ ...value, ...patch });
  const err = results.error;
  const errorId = "event-search-error";
  return (
    <div class="event-search">
      <div class="toolbar">
        <label for="event-search">Search events</label>
        <input
          id="event-search"
          type="search"
          placeholder="Text in the event, its summary or id"
          value={value.text}
          aria-invalid={err ? true : undefined}
          aria-describedby={err ? errorId : undefined}
          onInput={(e) => set({ text: e.currentTarget.value })}
        />
        {children}
      </div>
      <details class="advanced" open={Boolean(value.filter || value.since || value.until)}>
        <summary>Advanced search</summary>
        {server ? (
          <div class="field">
            <label for="event-filter">Filter (JSON)</label>
            <textarea
              id="event-filter"
              class="mono"
              rows={2}
              placeholder='{"event.total": {"$gte": 100}}'
              value={value.filter}
              aria-invalid={err ? true : undefined}
              aria-describedby={err ? `${errorId} event-filter-hint` : "event-filter-hint"}
              onInput={(e) => set({ filter: e.currentTarget.value })}
            />
            <p class="hint" id="event-filter-hint">
              Operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $contains $and $or $not, on dotted paths
              such as event.customer.id or metadata.name.
            </p>
          </div>
        ) : (
          <p class="hint">This server cannot search these events: the search reads the loaded ones.</p>
        )}
        <div class="row wrap">
          <div class="field">
            <label for="event-since">Stored from</label>
            <input
              id="event-since"
              type="datetime-local"
              value={value.since}
              onInput={(e) => set({ since: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="event-until">Stored before</label>
            <input
              id="event-until"
              type="datetime-local"
              value={value.until}
              onInput={(e) => set({ until: e.currentTarget.value })}
            />
          </div>
        </div>
      </details>
      {err ? (
        <div class="error" role="alert" id={errorId}>
          {err.status === 422 ? "The server refused this search:" : "Could not search:"}
          <ul>
            {reasons(err).map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
