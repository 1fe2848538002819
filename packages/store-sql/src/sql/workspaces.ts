/** Workspaces in SQL. */
import type { WorkspaceStore } from "@hookline/store";
import { newWorkspace } from "@hookline/store/adapter";
import { cols, toWorkspace, WORKSPACE } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The workspaces of a SQL store. */
export function sqlWorkspaces(c: SqlContext): WorkspaceStore {
  return {
    async create(input) {
      const row = newWorkspace(input, c.clock());
      await c.run(
        "INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)",
        [row.id, row.name, row.createdAt],
        `Workspace ${row.id} exists`,
      );
      return row;
    },
    async get(id) {
      const row = await c.one(`SELECT ${cols(WORKSPACE)} FROM workspaces t WHERE t.id = $1`, [id]);
      return row && toWorkspace(row);
    },
    async list() {
      return (await c.run(`SELECT ${cols(WORKSPACE)} FROM workspaces t ORDER BY t.ord`)).map(toWorkspace);
    },
    async revoke(id) {
      const rows = await c.run(
        "UPDATE workspaces SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id",
        [id, c.clock()],
      );
      return rows.length > 0;
    },
  };
}
