/** Logs: the source's log lines (what its code printed, its errors), then live ones over SSE. */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { page, seg } from "../api";
import { useLiveFeed } from "../sse";
import type { LogLine } from "../types";
import { ErrorNote, SearchField } from "../widgets";
import type { SourceContext } from "./source-context";
import { StreamBadge } from "./source-events";

const KEEP = 1000;

/** The Logs tab. */
export function LogsTab({ ctx }: { ctx: SourceContext }) {
  const id = ctx.source.id;
  const {
    items: lines,
    loaded,
    error,
    state,
  } = useLiveFeed<LogLine>(
    `/v1/sources/${seg(id)}/logs/sse`,
    "log",
    async () => {
      // Oldest first: walk every page, keep the newest lines.
      let all: LogLine[] = [];
      let after: string | undefined;
      do {
        const res = await page<LogLine>(`/v1/sources/${seg(id)}/logs`, {
          limit: 100,
          ...(after ? { after } : {}),
        });
        all = [...all, ...res.data].slice(-KEEP);
        after = res.pageInfo.end_cursor ?? undefined;
      } while (after);
      return { items: all, lastEventId: String(all[all.length - 1]?.seq ?? 0) };
    },
    (prev, line) => (prev.some((l) => l.seq === line.seq) ? prev : [...prev, line].slice(-KEEP)),
  );
  const [filter, setFilter] = useState("");
  const box = useRef<HTMLElement>(null);
  const stick = useRef(true);

  const shown = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q ? lines.filter((l) => `${l.level} ${l.message}`.toLowerCase().includes(q)) : lines;
  }, [lines, filter]);

  // Follow new lines while scrolled to the bottom.
  useEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [shown.length]);

  return (
    <div>
      <div class="toolbar">
        <SearchField id="log-filter" label="Filter logs" value={filter} onChange={setFilter} />
        <StreamBadge state={state} />
      </div>
      <ErrorNote error={error} label="Could not load the logs" />
      {loaded && lines.length === 0 ? (
        <p class="empty">No logs yet. What the source prints appears here.</p>
      ) : null}
      <section
        class="logs"
        ref={box}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
        aria-label="Log lines, oldest first"
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
        }}
      >
        <ol class="log-lines">
          {shown.map((l) => (
            <li key={l.seq} class={`log log-${l.level}`}>
              <time dateTime={new Date(l.ts).toISOString()} class="muted">
                {new Date(l.ts).toLocaleTimeString()}
              </time>
              <span class="log-level">{l.level}</span>
              <span class="log-message">{l.message}</span>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
