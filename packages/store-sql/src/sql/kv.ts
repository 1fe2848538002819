/** The component `db` in SQL. */
import type { KvEntry, KvStore } from "@hookline/store";
import { compareText } from "@hookline/store/adapter";
import { fromJson, str, toJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The component db of a SQL store. */
export function sqlKv(c: SqlContext): KvStore {
  return {
    async get(componentId, key) {
      const row = await c.one("SELECT value FROM kv WHERE component_id = $1 AND key = $2", [
        componentId,
        key,
      ]);
      return row && fromJson(row.value);
    },
    async set(componentId, key, value) {
      await c.run(
        `INSERT INTO kv (component_id, key, value) VALUES ($1, $2, $3)
         ON CONFLICT (component_id, key) DO UPDATE SET value = excluded.value`,
        [componentId, key, toJson(value, "value")],
      );
    },
    async delete(componentId, key) {
      const rows = await c.run("DELETE FROM kv WHERE component_id = $1 AND key = $2 RETURNING key", [
        componentId,
        key,
      ]);
      return rows.length > 0;
    },
    async list(componentId) {
      const rows = await c.run("SELECT key, value FROM kv WHERE component_id = $1", [componentId]);
      // Sorted here, not by the collation: every adapter orders keys the same way.
      return rows
        .map((row): KvEntry => ({ key: str(row.key), value: fromJson(row.value) }))
        .sort((a, b) => compareText(a.key, b.key));
    },
  };
}
