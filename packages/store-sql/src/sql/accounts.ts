/** Connected accounts in SQL. */
import type { AccountStore } from "@hookline/store";
import { newAccount } from "@hookline/store/adapter";
import { patcher, type SqlContext } from "./context.js";
import { ACCOUNT, cols, toAccount } from "./rows.js";

/** The connected accounts of a SQL store. */
export function sqlAccounts(c: SqlContext): AccountStore {
  return {
    async create(input) {
      const row = newAccount(input, c.clock());
      await c.run(
        `INSERT INTO accounts (id, workspace_id, app, name, credentials, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [row.id, row.workspaceId, row.app, row.name, row.credentials, row.createdAt, row.updatedAt],
      );
      return row;
    },
    async get(workspaceId, id) {
      const row = await c.one(
        `SELECT ${cols(ACCOUNT)} FROM accounts t WHERE t.workspace_id = $1 AND t.id = $2`,
        [workspaceId, id],
      );
      return row && toAccount(row);
    },
    async list(workspaceId, filter = {}) {
      const params: unknown[] = [workspaceId];
      let where = "t.workspace_id = $1";
      if (filter.app !== undefined) {
        params.push(filter.app);
        where += " AND t.app = $2";
      }
      const rows = await c.run(
        `SELECT ${cols(ACCOUNT)} FROM accounts t WHERE ${where} ORDER BY t.ord`,
        params,
      );
      return rows.map(toAccount);
    },
    async update(workspaceId, id, patch) {
      const params: unknown[] = [workspaceId, id];
      const { sets, set } = patcher(params);
      if (patch.name !== undefined) set("name", patch.name);
      if (patch.credentials !== undefined) set("credentials", patch.credentials);
      set("updated_at", c.clock());
      const row = await c.one(
        `UPDATE accounts t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2
         RETURNING ${cols(ACCOUNT)}`,
        params,
      );
      return row && toAccount(row);
    },
    async delete(workspaceId, id) {
      const rows = await c.run("DELETE FROM accounts WHERE workspace_id = $1 AND id = $2 RETURNING id", [
        workspaceId,
        id,
      ]);
      return rows.length > 0;
    },
  };
}
