/**
 * Listing events in SQL, with a scan budget: a page examines at most `scan` of the emitter's events
 * from its cursor (the window, read on the `(emitter_id, seq)` index), and only those are checked
 * against the channel, the time window and the filter. So a filter no index answers (a range with no
 * match) costs the same as any other: the budget, not the table.
 */
import type { EventPage, ListEventsOptions, StoredEvent } from "@hookline/store";
import {
  clampLimit,
  eventMatches,
  hasConditions,
  pageOf,
  parseSeqCursor,
  scanBudget,
} from "@hookline/store/adapter";
import { filterSql, UNINDEXED_BODY } from "./event-filter-sql.js";
import { cols, EVENT, toEvent } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { countOf } from "./statement-text.js";

/**
 * One page of an emitter's events (see `EventStore.list`), the same page the memory store gives.
 *
 * @param c - The store's context.
 * @param workspaceId - The workspace.
 * @param emitterId - The emitter.
 * @param options - Page, cursor, conditions and scan budget.
 * @example
 * ```ts
 * const page = await listEvents(c, ws, dc, { filter, scan: 10_000 });
 * ```
 */
export async function listEvents(
  c: SqlContext,
  workspaceId: string,
  emitterId: string,
  options: ListEventsOptions,
): Promise<EventPage> {
  const limit = clampLimit(options.limit, 10, 100);
  const scan = scanBudget(options.scan);
  const before = parseSeqCursor(options.before, "before");
  const after = parseSeqCursor(options.after, "after");
  const asc = options.order === "asc";
  const dir = asc ? "ASC" : "DESC";
  const params: unknown[] = [workspaceId, emitterId];
  let where = "t.workspace_id = $1 AND t.emitter_id = $2";
  const add = (condition: string, value: unknown): void => {
    params.push(value);
    where += ` AND ${condition} $${params.length}`;
  };
  if (before !== undefined) add("t.seq <", before);
  if (after !== undefined) add("t.seq >", after);
  if (!hasConditions(options)) {
    // Every event examined is kept: the page fills long before the budget (at least 100).
    params.push(limit + 1);
    const rows = await c.run(
      `SELECT ${cols(EVENT)} FROM events t WHERE ${where} ORDER BY t.seq ${dir} LIMIT $${params.length}`,
      params,
    );
    const page = pageOf(rows.map(toEvent), limit, (row) => String(row.seq));
    return { ...page, scanned: page.items.length, budgetReached: false };
  }
  // The window: its last seq (`edge`) and its size, one row more telling whether the scan could go on.
  const window = await c.one(
    `SELECT count(*) AS n, ${asc ? "max" : "min"}(w.seq) FILTER (WHERE w.r <= ${scan}) AS edge
     FROM (SELECT t.seq, row_number() OVER (ORDER BY t.seq ${dir}) AS r FROM events t
           WHERE ${where} ORDER BY t.seq ${dir} LIMIT ${scan + 1}) w`,
    params,
  );
  const windowWhere = where;
  const windowParams = [...params];
  const size = Number(window?.n ?? 0);
  if (size === 0) return { items: [], scanned: 0, budgetReached: false };
  const edge = Number(window?.edge);
  add(asc ? "t.seq <=" : "t.seq >=", edge);
  if (options.channel !== undefined) add("t.channel =", options.channel);
  if (options.since !== undefined) add("t.created_at >=", options.since);
  if (options.until !== undefined) add("t.created_at <", options.until);
  const kept = await matching(c, where, params, options, limit);
  const page = pageOf(kept, limit, (row) => String(row.seq));
  if (kept.length > limit) {
    // The page filled: it examined the window up to its last item.
    const last = page.items[page.items.length - 1] as StoredEvent;
    const counted = [...windowParams, last.seq];
    const rows = await c.run(
      `SELECT count(*) AS n FROM events t WHERE ${windowWhere} AND t.seq ${asc ? "<=" : ">="} $${counted.length}`,
      counted,
    );
    return { ...page, scanned: countOf(rows), budgetReached: false };
  }
  const budgetReached = size > scan;
  if (budgetReached) page.nextCursor = String(edge);
  return { ...page, scanned: Math.min(size, scan), budgetReached };
}

/**
 * Up to `limit + 1` events of the window matching the options, in page order. The SQL condition is
 * implied by the filter for rows with a jsonb body; rows without one are read by a second query (a
 * partial index, usually empty). Each row read is re-checked with the filter, and reading goes on
 * (from the last seq read) until the page is full or the window is exhausted.
 */
async function matching(
  c: SqlContext,
  where: string,
  params: unknown[],
  options: ListEventsOptions,
  limit: number,
): Promise<StoredEvent[]> {
  const asc = options.order === "asc";
  const conditionParams = [...params];
  const condition = options.filter ? filterSql(options.filter, conditionParams) : { sql: "TRUE" };
  const kept: StoredEvent[] = [];
  let from: number | undefined;
  const read = async (extra: string, base: unknown[]) => {
    const round = [...base];
    let bound = "";
    if (from !== undefined) {
      round.push(from);
      bound = ` AND t.seq ${asc ? ">" : "<"} $${round.length}`;
    }
    round.push(limit + 1);
    const rows = await c.run(
      `SELECT ${cols(EVENT)} FROM events t WHERE ${where} AND ${extra}${bound}
       ORDER BY t.seq ${asc ? "ASC" : "DESC"} LIMIT $${round.length}`,
      round,
    );
    return rows.map(toEvent);
  };
  for (;;) {
    const [indexed, unindexed] = options.filter
      ? await Promise.all([
          read(`(${condition.sql}) AND NOT (${UNINDEXED_BODY})`, conditionParams),
          read(UNINDEXED_BODY, params),
        ])
      : [await read("TRUE", params), []];
    const rows = [...indexed, ...unindexed]
      .sort((a, b) => (asc ? a.seq - b.seq : b.seq - a.seq))
      .slice(0, limit + 1);
    for (const row of rows) if (kept.length <= limit && eventMatches(row, options)) kept.push(row);
    const last = rows[rows.length - 1];
    if (kept.length > limit || rows.length <= limit || !last) return kept;
    from = last.seq;
  }
}
