/**
 * The component `db` in SQL. Every change adds one to the component's row in `kv_versions` in the
 * statement that changes its rows, so `snapshot` can answer "unchanged" without reading them.
 */
import type { KvEntry, KvStore, KvWrite } from "@hookline/store";
import { compareText } from "@hookline/store/adapter";
import { fromJson, str, toJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The CTE that moves a component's db version on (`$1` the component), as `bump (version)`. */
const BUMP = `bump AS (
  INSERT INTO kv_versions (component_id, version) VALUES ($1, 1)
  ON CONFLICT (component_id) DO UPDATE SET version = kv_versions.version + 1
  RETURNING version
)`;

/** The component db of a SQL store. */
export function sqlKv(c: SqlContext): KvStore {
  const write = async (componentId: string, writes: readonly KvWrite[]): Promise<number> => {
    // The last write of each key is what stays: applying them in order comes to the same.
    const last = new Map<string, unknown>();
    for (const [key, value] of writes) {
      last.delete(key);
      last.set(key, value);
    }
    const keys = [...last.keys()];
    const values = [...last.values()].map((v, i) => (v === undefined ? null : toJson(v, `db.${keys[i]}`)));
    const rows = await c.run(
      // One statement, so all or none; `deleted` and `upserted` touch different keys.
      `WITH w AS (SELECT * FROM unnest($2::text[], $3::text[]) AS w (key, value)),
       deleted AS (
         DELETE FROM kv WHERE component_id = $1 AND key IN (SELECT key FROM w WHERE value IS NULL)
       ), upserted AS (
         INSERT INTO kv (component_id, key, value) SELECT $1, key, value FROM w WHERE value IS NOT NULL
         ON CONFLICT (component_id, key) DO UPDATE SET value = excluded.value
       ), ${BUMP}
       SELECT version FROM bump`,
      [componentId, keys, values],
    );
    return Number(rows[0]?.version);
  };
  return {
    async get(componentId, key) {
      const row = await c.one("SELECT value FROM kv WHERE component_id = $1 AND key = $2", [
        componentId,
        key,
      ]);
      return row && fromJson(row.value);
    },
    async set(componentId, key, value) {
      await write(componentId, [[key, value]]);
    },
    async delete(componentId, key) {
      const rows = await c.run(
        `WITH gone AS (DELETE FROM kv WHERE component_id = $1 AND key = $2 RETURNING key),
         bump AS (
           UPDATE kv_versions SET version = version + 1
           WHERE component_id = $1 AND EXISTS (SELECT 1 FROM gone)
         )
         SELECT key FROM gone`,
        [componentId, key],
      );
      return rows.length > 0;
    },
    async list(componentId) {
      const rows = await c.run("SELECT key, value FROM kv WHERE component_id = $1", [componentId]);
      // Sorted here, not by the collation: every adapter orders keys the same way.
      return rows
        .map((row): KvEntry => ({ key: str(row.key), value: fromJson(row.value) }))
        .sort((a, b) => compareText(a.key, b.key));
    },
    async snapshot(componentId, known) {
      // The version, and the rows only when it is not `known`: one statement either way.
      const rows = await c.run(
        `WITH v AS (
           SELECT coalesce((SELECT version FROM kv_versions WHERE component_id = $1), 0) AS version
         )
         SELECT v.version, kv.key, kv.value FROM v
         LEFT JOIN kv ON kv.component_id = $1 AND v.version IS DISTINCT FROM $2::bigint`,
        [componentId, known ?? null],
      );
      const version = Number(rows[0]?.version ?? 0);
      if (version === known) return { version };
      const entries = rows
        .filter((row) => row.key !== null && row.key !== undefined)
        .map((row): KvEntry => ({ key: str(row.key), value: fromJson(row.value) }))
        .sort((a, b) => compareText(a.key, b.key));
      return { version, entries: Object.fromEntries(entries.map((e) => [e.key, e.value])) };
    },
    async write(componentId, writes) {
      if (writes.length > 0) return write(componentId, writes);
      const row = await c.one("SELECT version FROM kv_versions WHERE component_id = $1", [componentId]);
      return Number(row?.version ?? 0);
    },
  };
}
