/** Settings in SQL. */
import type { SettingsStore } from "@hookline/store";
import { str } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The settings of a SQL store. */
export function sqlSettings(c: SqlContext): SettingsStore {
  const get = async (key: string): Promise<string | undefined> => {
    const row = await c.one("SELECT value FROM settings WHERE key = $1", [key]);
    return row && str(row.value);
  };
  return {
    get,
    async setIfAbsent(key, value) {
      const inserted = await c.run(
        "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value",
        [key, value],
      );
      if (inserted.length > 0) return value;
      // Another writer won (perhaps concurrently): its value is committed by now.
      const existing = await get(key);
      if (existing === undefined) throw new Error(`The setting ${key} vanished while being set`);
      return existing;
    },
  };
}
