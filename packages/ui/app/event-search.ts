/**
 * The events inspector's content search, as `event_summaries` filters (docs/rest-api.md#filters):
 * free text becomes a `$contains` on every text field the loaded events have (and the summary and
 * event id), an advanced JSON filter is sent as typed, and a time window as `since`/`until`.
 */
import type { EventSummary } from "./types";

/** What the search form holds. */
export interface SearchInput {
  /** Free text. */
  text: string;
  /** A JSON filter in the API's language, as typed. */
  filter: string;
  /** `datetime-local` values (the browser's time zone); empty for no bound. */
  since: string;
  until: string;
}

/** An empty search. */
export const NO_SEARCH: SearchInput = { text: "", filter: "", since: "", until: "" };

/** Whether the form asks for anything. */
export const isSearching = (s: SearchInput): boolean =>
  Boolean(s.text.trim() || s.filter.trim() || s.since || s.until);

/** Paths of the free text: the summary and event id, then every text field seen (the API allows 64 conditions). */
const MAX_TEXT_PATHS = 40;
const MAX_DEPTH = 5;

/** The dotted paths of the string values in `value` (an array's elements by index), under `prefix`. */
export function textPaths(value: unknown, prefix: string, out: Set<string>, depth = 0): void {
  if (out.size >= MAX_TEXT_PATHS || depth > MAX_DEPTH) return;
  if (typeof value === "string") {
    out.add(prefix);
  } else if (Array.isArray(value)) {
    value.slice(0, 5).forEach((v, i) => {
      textPaths(v, `${prefix}.${i}`, out, depth + 1);
    });
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      // A key with a dot cannot be named by a dotted path.
      if (!k.includes(".") && k !== "") textPaths(v, `${prefix}.${k}`, out, depth + 1);
    }
  }
}

/**
 * The filter of free text: any of the text fields (of the loaded events) containing it.
 *
 * @example
 * textFilter("ada", events) // {"$or": [{"metadata.summary": {"$contains": "ada"}}, {"event.name": {...}}, ...]}
 */
export function textFilter(text: string, known: EventSummary[]): Record<string, unknown> {
  const paths = new Set<string>(["metadata.summary", "metadata.id"]);
  for (const e of known) textPaths(e.event, "event", paths);
  return { $or: [...paths].map((p) => ({ [p]: { $contains: text } })) };
}

/** `datetime-local` text as epoch seconds (undefined when empty or invalid). */
function epochSeconds(local: string): number | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/**
 * The query of `event_summaries` for a search: `filter` (JSON text; the advanced filter as typed
 * when it is not JSON, so that the API names the problem), `since`, `until`.
 */
export function searchQuery(
  s: SearchInput,
  known: EventSummary[],
): { filter?: string; since?: number; until?: number } {
  const text = s.text.trim();
  const advanced = s.filter.trim();
  let filter: string | undefined;
  if (advanced && !text) filter = advanced;
  else if (text && !advanced) filter = JSON.stringify(textFilter(text, known));
  else if (text && advanced) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(advanced);
    } catch {
      parsed = undefined;
    }
    filter = parsed === undefined ? advanced : JSON.stringify({ $and: [textFilter(text, known), parsed] });
  }
  const since = epochSeconds(s.since);
  const until = epochSeconds(s.until);
  return {
    ...(filter ? { filter } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  };
}

/** The same search over events already in the browser (for a server that cannot search them). */
export function matchesLocally(e: EventSummary, s: SearchInput): boolean {
  const text = s.text.trim().toLowerCase();
  if (text && !JSON.stringify([e.event, e.metadata]).toLowerCase().includes(text)) return false;
  const since = epochSeconds(s.since);
  const until = epochSeconds(s.until);
  if (since !== undefined && e.indexed_at_ms < since * 1000) return false;
  if (until !== undefined && e.indexed_at_ms >= until * 1000) return false;
  return true;
}
