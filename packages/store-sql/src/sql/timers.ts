/** Timer schedules in SQL (their ticks are claimed from the queue). */
import type { TimerStore } from "@hookline/store";
import { cols, TIMER, toTimer } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The timer schedules of a SQL store. */
export function sqlTimers(c: SqlContext): TimerStore {
  return {
    async upsert(input) {
      await c.run(
        `INSERT INTO timers (component_id, workspace_id, next_at) VALUES ($1, $2, $3)
         ON CONFLICT (component_id) DO UPDATE SET workspace_id = excluded.workspace_id,
           next_at = excluded.next_at, lease_owner = NULL, lease_expires_at = NULL`,
        [input.componentId, input.workspaceId, input.nextAt],
      );
      return { componentId: input.componentId, workspaceId: input.workspaceId, nextAt: input.nextAt };
    },
    async get(workspaceId, componentId) {
      const row = await c.one(
        `SELECT ${cols(TIMER)} FROM timers t WHERE t.workspace_id = $1 AND t.component_id = $2`,
        [workspaceId, componentId],
      );
      return row && toTimer(row);
    },
    async delete(componentId) {
      const rows = await c.run("DELETE FROM timers WHERE component_id = $1 RETURNING component_id", [
        componentId,
      ]);
      return rows.length > 0;
    },
  };
}
