/** The workspace's environment variables in SQL (values encrypted by the caller). */
import type { EnvStore } from "@hookline/store";
import { compareText } from "@hookline/store/adapter";
import type { SqlContext } from "./sql-context.js";
import { toEnvVar } from "./workflow-rows.js";

const ENV_COLUMNS = "workspace_id, name, value, created_at, updated_at";

/** The environment variables of a SQL store. */
export function sqlEnv(c: SqlContext): EnvStore {
  return {
    async set(workspaceId, name, value) {
      const rows = await c.run(
        `INSERT INTO env_vars (${ENV_COLUMNS}) VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (workspace_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
         RETURNING ${ENV_COLUMNS}`,
        [workspaceId, name, value, c.clock()],
      );
      return toEnvVar(rows[0] ?? {});
    },
    async get(workspaceId, name) {
      const row = await c.one(`SELECT ${ENV_COLUMNS} FROM env_vars WHERE workspace_id = $1 AND name = $2`, [
        workspaceId,
        name,
      ]);
      return row && toEnvVar(row);
    },
    async list(workspaceId) {
      const rows = await c.run(`SELECT ${ENV_COLUMNS} FROM env_vars WHERE workspace_id = $1`, [workspaceId]);
      return rows.map(toEnvVar).sort((a, b) => compareText(a.name, b.name));
    },
    async delete(workspaceId, name) {
      const rows = await c.run("DELETE FROM env_vars WHERE workspace_id = $1 AND name = $2 RETURNING name", [
        workspaceId,
        name,
      ]);
      return rows.length > 0;
    },
  };
}
