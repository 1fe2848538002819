/** Events in SQL: reads, deletes and retention. */
import type { EventStore, RetentionLimits, StoredEvent } from "@hookline/store";
import { clampLimit, eventMatches, pageOf, parseSeqCursor } from "@hookline/store/adapter";
import { cancelDeliveriesSql, countOf, type SqlContext } from "./context.js";
import { filterSql, UNINDEXED_BODY } from "./event-filter-sql.js";
import { cols, EVENT, toEvent } from "./rows.js";

/**
 * Retention for `table` (events or logs, both with `seq` and a `bytes` column) of one owner: the rule
 * of `keptByRetention` in SQL. Rows are numbered from the newest (`n`, from 1) with a running total
 * of bytes; a row goes when `n > count`, or when `n > 1` and the total is over `bytes`. `after` adds
 * statements over the deleted rows (`gone`, with their `id` for events), with the store clock as `$4`.
 */
export async function trimSql(
  c: SqlContext,
  table: "events" | "logs",
  ownerColumn: string,
  owner: string,
  limits: RetentionLimits,
  after = "",
): Promise<number> {
  c.open();
  if (limits.count === undefined && limits.bytes === undefined) return 0;
  const returning = table === "events" ? "id" : "1";
  const rows = await c.run(
    `WITH ranked AS (
       SELECT seq, row_number() OVER w AS n, sum(bytes) OVER w AS total
       FROM ${table} WHERE ${ownerColumn} = $1
       WINDOW w AS (ORDER BY seq DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
     ), cut AS (
       SELECT max(seq) AS seq FROM ranked WHERE n > $2::bigint OR (n > 1 AND total > $3::bigint)
     ), gone AS (
       DELETE FROM ${table} WHERE ${ownerColumn} = $1 AND seq <= (SELECT seq FROM cut) RETURNING ${returning}
     )${after}
     SELECT count(*) AS n FROM gone`,
    [owner, limits.count ?? null, limits.bytes ?? null, ...(after ? [c.clock()] : [])],
  );
  return countOf(rows);
}

/** The events of a SQL store. */
export function sqlEvents(c: SqlContext): EventStore {
  return {
    async list(workspaceId, emitterId, options = {}) {
      const limit = clampLimit(options.limit, 10, 100);
      const before = parseSeqCursor(options.before, "before");
      const after = parseSeqCursor(options.after, "after");
      const asc = options.order === "asc";
      const params: unknown[] = [workspaceId, emitterId];
      let where = "t.workspace_id = $1 AND t.emitter_id = $2";
      const filter = (condition: string, value: unknown): void => {
        params.push(value);
        where += ` AND ${condition} $${params.length}`;
      };
      if (options.channel !== undefined) filter("t.channel =", options.channel);
      if (before !== undefined) filter("t.seq <", before);
      if (after !== undefined) filter("t.seq >", after);
      if (options.since !== undefined) filter("t.created_at >=", options.since);
      if (options.until !== undefined) filter("t.created_at <", options.until);
      if (options.filter === undefined) {
        params.push(limit + 1);
        const rows = await c.run(
          `SELECT ${cols(EVENT)} FROM events t WHERE ${where}
           ORDER BY t.seq ${asc ? "ASC" : "DESC"} LIMIT $${params.length}`,
          params,
        );
        return pageOf(rows.map(toEvent), limit, (row) => String(row.seq));
      }
      // The SQL condition is implied by the filter for rows with a jsonb body; rows without one are
      // read by a second query (a partial index, usually empty). Each row read is re-checked with the
      // filter, and reading goes on (from the last seq read) until the page is full or nothing is left.
      const conditionParams = [...params];
      const condition = filterSql(options.filter, conditionParams);
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
        const [matched, unindexed] = await Promise.all([
          read(`(${condition.sql}) AND NOT (${UNINDEXED_BODY})`, conditionParams),
          read(UNINDEXED_BODY, params),
        ]);
        const rows = [...matched, ...unindexed]
          .sort((a, b) => (asc ? a.seq - b.seq : b.seq - a.seq))
          .slice(0, limit + 1);
        for (const row of rows) if (kept.length <= limit && eventMatches(row, options)) kept.push(row);
        const last = rows[rows.length - 1];
        if (kept.length > limit || rows.length <= limit || !last) break;
        from = last.seq;
      }
      return pageOf(kept, limit, (row) => String(row.seq));
    },
    async get(workspaceId, id) {
      const row = await c.one(`SELECT ${cols(EVENT)} FROM events t WHERE t.workspace_id = $1 AND t.id = $2`, [
        workspaceId,
        id,
      ]);
      return row && toEvent(row);
    },
    async getById(id) {
      const row = await c.one(`SELECT ${cols(EVENT)} FROM events t WHERE t.id = $1`, [id]);
      return row && toEvent(row);
    },
    async delete(workspaceId, emitterId, ids) {
      if (ids !== undefined && ids.length === 0) {
        c.open();
        return 0;
      }
      const params: unknown[] = [workspaceId, emitterId, c.clock()];
      let where = "workspace_id = $1 AND emitter_id = $2";
      if (ids !== undefined) {
        const marks = ids.map((id) => {
          params.push(id);
          return `$${params.length}`;
        });
        where += ` AND id IN (${marks.join(", ")})`;
      }
      const rows = await c.run(
        `WITH gone AS (DELETE FROM events WHERE ${where} RETURNING id),
         cancelled AS (${cancelDeliveriesSql("event_deleted", "$3", "event_id IN (SELECT id FROM gone)")})
         SELECT count(*) AS n FROM gone`,
        params,
      );
      return countOf(rows);
    },
    trim: (emitterId, limits) =>
      trimSql(
        c,
        "events",
        "emitter_id",
        emitterId,
        limits,
        `, cancelled AS (${cancelDeliveriesSql("event_deleted", "$4", "event_id IN (SELECT id FROM gone)")})`,
      ),
  };
}
