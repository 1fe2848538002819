/**
 * Autovacuum for PGlite, and for a Postgres server whose `autovacuum` is off (sql-store.ts decides).
 * PGlite runs Postgres in single-user mode, where the autovacuum launcher never starts: without
 * this, no table is ever vacuumed or analyzed. Dead row versions then pile up
 * (every delivery is updated three times), the partial indexes of the delivery queue fill with
 * entries of rows that left them, and the planner keeps the statistics of the empty tables of the
 * first start. Measured on `bench:ingress`: the delivery claim's plan, made on those statistics,
 * hashed every pending row (2.1 ms of a 2.9 ms claim under a backlog of 2,500).
 *
 * Every `intervalMs` one pass reads `pg_stat_user_tables` and vacuums (or only analyzes) each table
 * of the store's schema past Postgres's own default thresholds. The statements go through the
 * background client: on the PGlite thread they wait while a request's statement is in flight. They
 * skip a table another session is vacuuming (`SKIP_LOCKED`: several nodes over one Postgres each
 * run passes).
 */
import type { SqlRow } from "../clients.js";
import type { SqlContext } from "./sql-context.js";

/** Options of the store's own autovacuum (`SqlStoreOptions.autovacuum`). */
export interface AutovacuumOptions {
  /** How often a pass looks for tables to vacuum or analyze (10 s by default). */
  intervalMs?: number;
}

/** The default pause between two passes. */
export const DEFAULT_AUTOVACUUM_INTERVAL_MS = 10_000;

// Postgres's defaults (autovacuum_vacuum_threshold and _scale_factor, the insert and analyze ones).
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;
const INSERT_BASE = 1000;
const INSERT_SCALE = 0.2;
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;

const STATS = `SELECT relname, n_live_tup, n_dead_tup, n_mod_since_analyze, n_ins_since_vacuum
  FROM pg_stat_user_tables WHERE schemaname = current_schema()`;

/** What a table needs, by Postgres's autovacuum rules: `VACUUM (ANALYZE)`, `ANALYZE` or nothing. */
export function autovacuumStatement(row: SqlRow): string | undefined {
  const live = Number(row.n_live_tup ?? 0);
  const vacuum =
    Number(row.n_dead_tup ?? 0) > VACUUM_BASE + VACUUM_SCALE * live ||
    Number(row.n_ins_since_vacuum ?? 0) > INSERT_BASE + INSERT_SCALE * live;
  const analyze = Number(row.n_mod_since_analyze ?? 0) > ANALYZE_BASE + ANALYZE_SCALE * live;
  const table = `"${String(row.relname).replace(/"/g, '""')}"`;
  if (vacuum) return `VACUUM (ANALYZE, SKIP_LOCKED) ${table}`;
  return analyze ? `ANALYZE (SKIP_LOCKED) ${table}` : undefined;
}

/** One pass: the tables past their thresholds, vacuumed or analyzed one after the other. */
export async function autovacuumPass(c: SqlContext): Promise<string[]> {
  const done: string[] = [];
  const { rows } = await c.background.query(STATS);
  for (const row of rows) {
    const statement = autovacuumStatement(row);
    if (statement === undefined) continue;
    c.open();
    await c.background.query(statement);
    done.push(statement);
  }
  return done;
}

/**
 * Starts the passes (see the module comment); `stop` ends them. A failing pass (the store closing
 * under it) is ignored: the next one tries again.
 */
export function startAutovacuum(c: SqlContext, options: AutovacuumOptions = {}): { stop(): void } {
  const intervalMs = options.intervalMs ?? DEFAULT_AUTOVACUUM_INTERVAL_MS;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      await autovacuumPass(c).catch(() => undefined);
      schedule();
    }, intervalMs);
    timer.unref?.();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
