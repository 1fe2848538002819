/** Dedupe state in SQL (written by the emit commit). */
import type { DedupeStore } from "@hookline/store";
import type { SqlContext } from "./context.js";
import { fromJson } from "./rows.js";

/** The dedupe state of a SQL store. */
export function sqlDedupe(c: SqlContext): DedupeStore {
  return {
    async get(componentId) {
      const row = await c.one("SELECT state FROM dedupe WHERE component_id = $1", [componentId]);
      return row && fromJson(row.state);
    },
  };
}
