/** Events in SQL: reads, deletes and retention. */
import type { EventStore, RetentionLimits } from "@hookline/store";
import { listEvents } from "./event-list.js";
import { cols, EVENT, toEvent } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { cancelDeliveriesSql, countOf } from "./statement-text.js";

/**
 * Retention for `table` (events or logs, both with `seq` and a `bytes` column) of one owner: the rule
 * of `keptByRetention` in SQL. Rows are numbered from the newest (`n`, from 1) with a running total
 * of bytes; a row goes when `n > count`, or when `n > 1` and the total is over `bytes`. `keep` is a
 * condition on a row (`t`) that keeps it even so.
 */
export async function trimSql(
  c: SqlContext,
  table: "events" | "logs",
  ownerColumn: string,
  owner: string,
  limits: RetentionLimits,
  keep = "false",
): Promise<number> {
  c.open();
  if (limits.count === undefined && limits.bytes === undefined) return 0;
  // Planned for each run, and never as a nested loop: the statistics cannot follow how many
  // deliveries wait (thousands during a load, none a minute later), and on an estimate of one the
  // planner compared every trimmed event with every waiting delivery: 52 million comparisons, a
  // 13 s trim that held PGlite's one thread (EXPLAIN ANALYZE during bench:ingress). A hash join is
  // linear whatever the counts. A sweep runs every few seconds: planning it each time costs nothing.
  const rows = await c.transaction(async (tx) => {
    await tx.query("SET LOCAL plan_cache_mode = force_custom_plan");
    await tx.query("SET LOCAL enable_nestloop = off");
    return c.run(
      `WITH ranked AS (
       SELECT seq, row_number() OVER w AS n, sum(bytes) OVER w AS total
       FROM ${table} WHERE ${ownerColumn} = $1
       WINDOW w AS (ORDER BY seq DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
     ), cut AS (
       SELECT max(seq) AS seq FROM ranked WHERE n > $2::bigint OR (n > 1 AND total > $3::bigint)
     ), gone AS (
       DELETE FROM ${table} t WHERE ${ownerColumn} = $1 AND seq <= (SELECT seq FROM cut) AND NOT (${keep})
       RETURNING 1
     )
     SELECT count(*) AS n FROM gone`,
      [owner, limits.count ?? null, limits.bytes ?? null],
      undefined,
      tx,
    );
  });
  return countOf(rows);
}

/** The events of a SQL store. */
export function sqlEvents(c: SqlContext): EventStore {
  return {
    list: (workspaceId, emitterId, options = {}) => listEvents(c, workspaceId, emitterId, options),
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
    // An event whose deliveries still wait is kept (deliveries_event index).
    trim: (emitterId, limits) =>
      trimSql(
        c,
        "events",
        "emitter_id",
        emitterId,
        limits,
        `EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = t.id
           AND d.state IN ('pending', 'paused', 'delivering'))`,
      ),
  };
}
