// The stores REST tests run on: memory, PGlite, and Postgres when HOOKLINE_TEST_PG_URL is set
// (each Postgres run in a schema of its own, dropped at close).
import { randomBytes } from "node:crypto";
import { createMemoryStore, type Store } from "@hookline/store";
import { createSqlStore, pgliteClient, pgPoolClient } from "@hookline/store-sql";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";
import { loadPg } from "../../store-sql/test/load-pg.js";

export type OpenStore = () => Promise<{ store: Store; close(): Promise<void> }>;

export const STORES: [string, OpenStore][] = [
  ["memory", async () => ({ store: createMemoryStore(), close: async () => undefined })],
  [
    "PGlite",
    async () => {
      const db = await freshPglite();
      const store = await createSqlStore(pgliteClient(db));
      return { store, close: () => db.close() };
    },
  ],
];
const url = process.env.HOOKLINE_TEST_PG_URL;
if (url) {
  STORES.push([
    "Postgres",
    async () => {
      const pg = loadPg();
      const schema = `hl_rest_${randomBytes(6).toString("hex")}`;
      const admin = new pg.Pool({ connectionString: url, max: 1 });
      await admin.query(`CREATE SCHEMA ${schema}`);
      const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
      const store = await createSqlStore(pgPoolClient(pool));
      return {
        store,
        async close() {
          await pool.end();
          await admin.query(`DROP SCHEMA ${schema} CASCADE`);
          await admin.end();
        },
      };
    },
  ]);
}

/** A source whose run emits `event.events` (`[{ body, channel?, summary? }]`) in order. */
export const BATCH_SOURCE = `export default {
  name: "Batch", version: "0.1.0",
  run(event) { for (const e of event.events) this.$emit(e.body, { name: e.channel, summary: e.summary }); },
};`;
