/**
 * What operators read of the SQL store: its health (reachable, migrations applied) for `/readyz`,
 * and the delivery queue's depth for `/metrics`. Neither runs on a request's hot path.
 */
import type { QueueDepth, StoreHealth } from "@hookline/store";
import { MIGRATIONS } from "../migrations.js";
import type { SqlContext } from "./sql-context.js";

/** Postgres's "undefined table": the migrations table does not exist yet. */
const UNDEFINED_TABLE = "42P01";

/** The store's health: one small read of the migrations table (rejects when the database is unreachable). */
export function sqlHealth(c: SqlContext): () => Promise<StoreHealth> {
  return async () => {
    let applied: Set<number>;
    try {
      const rows = await c.run("SELECT id FROM hookline_migrations");
      applied = new Set(rows.map((row) => Number(row.id)));
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNDEFINED_TABLE) throw error;
      applied = new Set();
    }
    return { pendingMigrations: MIGRATIONS.map((m) => m.id).filter((id) => !applied.has(id)) };
  };
}

/** The delivery queue's depth, on the background client (over the partial index of pending rows). */
export function sqlQueueDepth(c: SqlContext): (now: number) => Promise<QueueDepth> {
  return async (now) => {
    const rows = await c.run(
      `SELECT
         count(*) FILTER (WHERE state = 'pending') AS pending,
         count(*) FILTER (WHERE state = 'pending' AND next_attempt_at <= $1) AS due,
         count(*) FILTER (WHERE state = 'delivering') AS delivering,
         count(*) FILTER (WHERE state = 'paused') AS paused,
         min(next_attempt_at) FILTER (WHERE state = 'pending' AND next_attempt_at <= $1) AS oldest_due_at
       FROM deliveries WHERE state IN ('pending', 'delivering', 'paused')`,
      [now],
      undefined,
      c.background,
    );
    const row = rows[0] ?? {};
    return {
      pending: Number(row.pending ?? 0),
      due: Number(row.due ?? 0),
      delivering: Number(row.delivering ?? 0),
      paused: Number(row.paused ?? 0),
      ...(row.oldest_due_at == null ? {} : { oldestDueAt: Number(row.oldest_due_at) }),
    };
  };
}
