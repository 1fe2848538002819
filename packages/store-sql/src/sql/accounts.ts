/** Connected accounts in SQL, and their refresh leases. */
import type { AccountPatch, AccountStore } from "@hookline/store";
import { newAccount } from "@hookline/store/adapter";
import { ACCOUNT, cols, toAccount } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { patcher } from "./statement-text.js";

/** The `SET` list of a patch (with `updated_at`), its values pushed onto `params`. */
function patchSets(params: unknown[], patch: AccountPatch, now: number): string[] {
  const { sets, set } = patcher(params);
  if (patch.name !== undefined) set("name", patch.name);
  if (patch.credentials !== undefined) set("credentials", patch.credentials);
  if (patch.status !== undefined) set("status", patch.status);
  if (patch.expiresAt !== undefined) set("expires_at", patch.expiresAt);
  set("updated_at", now);
  return sets;
}

/** The connected accounts of a SQL store. */
export function sqlAccounts(c: SqlContext): AccountStore {
  return {
    async create(input) {
      const row = newAccount(input, c.clock());
      await c.run(
        `INSERT INTO accounts (id, workspace_id, app, name, credentials, oauth, status, external_user_id,
           expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          row.id,
          row.workspaceId,
          row.app,
          row.name,
          row.credentials,
          row.oauth,
          row.status,
          row.externalUserId ?? null,
          row.expiresAt ?? null,
          row.createdAt,
          row.updatedAt,
        ],
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
        where += ` AND t.app = $${params.length}`;
      }
      if (filter.externalUserId !== undefined) {
        params.push(filter.externalUserId);
        where += ` AND t.external_user_id = $${params.length}`;
      }
      const rows = await c.run(
        `SELECT ${cols(ACCOUNT)} FROM accounts t WHERE ${where} ORDER BY t.ord`,
        params,
      );
      return rows.map(toAccount);
    },
    async update(workspaceId, id, patch) {
      const params: unknown[] = [workspaceId, id];
      const sets = patchSets(params, patch, c.clock());
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
    async listExpiring(before, limit) {
      const rows = await c.run(
        `SELECT ${cols(ACCOUNT)} FROM accounts t
         WHERE t.oauth AND t.status = 'active' AND t.expires_at <= $1
         ORDER BY t.expires_at LIMIT $2`,
        [before, limit],
      );
      return rows.map(toAccount);
    },
    async claimRefresh(workspaceId, id, owner, leaseMs) {
      const now = c.clock();
      // One statement: of two nodes claiming at once, the row lock lets one through and the
      // other re-checks the condition against the winner's lease.
      const row = await c.one(
        `UPDATE accounts t SET refresh_owner = $3, refresh_until = $4
         WHERE t.workspace_id = $1 AND t.id = $2
           AND (t.refresh_owner IS NULL OR t.refresh_owner = $3 OR t.refresh_until <= $5)
         RETURNING ${cols(ACCOUNT)}`,
        [workspaceId, id, owner, now + leaseMs, now],
      );
      return row && toAccount(row);
    },
    async endRefresh(workspaceId, id, owner, patch) {
      const params: unknown[] = [workspaceId, id, owner];
      const sets = patchSets(params, patch, c.clock());
      const row = await c.one(
        `UPDATE accounts t SET ${sets.join(", ")}, refresh_owner = NULL, refresh_until = NULL
         WHERE t.workspace_id = $1 AND t.id = $2 AND t.refresh_owner = $3
         RETURNING ${cols(ACCOUNT)}`,
        params,
      );
      return row && toAccount(row);
    },
  };
}
