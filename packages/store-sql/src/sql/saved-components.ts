/** Saved components in SQL. */
import type { SavedComponentStore } from "@hookline/store";
import { newestComponent, newSavedComponent } from "@hookline/store/adapter";
import { cols, SAVED, toJson, toSaved } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The saved components of a SQL store. */
export function sqlSavedComponents(c: SqlContext): SavedComponentStore {
  return {
    async create(input) {
      const row = newSavedComponent(input, c.clock());
      await c.run(
        `INSERT INTO saved_components
           (id, workspace_id, code, code_hash, filename, bundle, description, key, version, published, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          row.id,
          row.workspaceId,
          row.code,
          row.codeHash,
          row.filename,
          row.bundle,
          toJson(row.description, "description"),
          row.key ?? null,
          row.version ?? null,
          row.published,
          row.createdAt,
        ],
        `Component ${input.key}@${input.version} exists`,
      );
      return structuredClone(row);
    },
    async get(workspaceId, id) {
      const row = await c.one(
        `SELECT ${cols(SAVED)} FROM saved_components t WHERE t.workspace_id = $1 AND t.id = $2`,
        [workspaceId, id],
      );
      return row && toSaved(row);
    },
    async list(workspaceId) {
      const rows = await c.run(
        `SELECT ${cols(SAVED)} FROM saved_components t WHERE t.workspace_id = $1 ORDER BY t.ord`,
        [workspaceId],
      );
      return rows.map(toSaved);
    },
    async findByKey(workspaceId, key, version) {
      const params: unknown[] = [workspaceId, key];
      let where = "t.key = $2 AND (t.workspace_id = $1 OR t.published = 'public')";
      if (version !== undefined) {
        params.push(version);
        where += " AND t.version = $3";
      }
      const rows = await c.run(
        `SELECT ${cols(SAVED)} FROM saved_components t WHERE ${where} ORDER BY t.ord`,
        params,
      );
      return newestComponent(rows.map(toSaved), workspaceId);
    },
  };
}
