/** API keys in SQL. */
import type { ApiKeyStore } from "@hookline/store";
import { newApiKey } from "@hookline/store/adapter";
import { API_KEY, cols, toApiKey } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The API keys of a SQL store. */
export function sqlApiKeys(c: SqlContext): ApiKeyStore {
  return {
    async create(input) {
      const row = newApiKey(input, c.clock());
      await c.run(
        `INSERT INTO api_keys (id, workspace_id, name, hash, hint, role, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [row.id, row.workspaceId, row.name, row.hash, row.hint, row.role, row.createdAt],
        "An API key with this hash exists",
      );
      return row;
    },
    async findByHash(hash) {
      const row = await c.one(
        `SELECT ${cols(API_KEY)} FROM api_keys t WHERE t.hash = $1 AND t.revoked_at IS NULL`,
        [hash],
      );
      return row && toApiKey(row);
    },
    async list(workspaceId) {
      const rows = await c.run(
        `SELECT ${cols(API_KEY)} FROM api_keys t WHERE t.workspace_id = $1 ORDER BY t.ord`,
        [workspaceId],
      );
      return rows.map(toApiKey);
    },
    async revoke(workspaceId, id) {
      const rows = await c.run(
        `UPDATE api_keys SET revoked_at = $3
         WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING id`,
        [workspaceId, id, c.clock()],
      );
      return rows.length > 0;
    },
    async get(id) {
      const row = await c.one(`SELECT ${cols(API_KEY)} FROM api_keys t WHERE t.id = $1`, [id]);
      return row && toApiKey(row);
    },
    async touch(id, at, withinMs) {
      await c.run(
        `UPDATE api_keys SET last_used_at = $2
         WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)`,
        [id, at, at - withinMs],
      );
    },
  };
}
