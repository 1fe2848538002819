/** Dedupe state in SQL (written by the emit commit). */
import type { DedupeStore } from "@hookline/store";
import { fromJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The dedupe state of a SQL store. */
export function sqlDedupe(c: SqlContext): DedupeStore {
  return {
    async get(componentId) {
      const row = await c.one("SELECT state FROM dedupe WHERE component_id = $1", [componentId]);
      return row && fromJson(row.state);
    },
  };
}
