import { afterAll, describe, expect, it } from "vitest";
import {
  createSqlStore,
  openPgliteThread,
  pgliteClient,
  pgPoolClient,
  type SqlClient,
} from "../src/index.js";
import { autovacuumStatement } from "../src/sql/autovacuum.js";
import { vacuumsItself } from "../src/sql-store.js";
import { freshPglite } from "./fresh-pglite.js";
import { schemaPool } from "./statement-plans.js";

// PGlite's single-user Postgres never autovacuums, nor does a Postgres server whose `autovacuum` is
// off: the SQL store does it there.
const url = process.env.HOOKLINE_TEST_PG_URL;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** The vacuum and analyze counts of `table` and its dead rows. */
async function stats(db: SqlClient, table: string) {
  const { rows } = await db.query(
    `SELECT (vacuum_count + autovacuum_count)::int AS vacuums, (analyze_count + autoanalyze_count)::int AS analyzes,
       n_dead_tup::int AS dead
     FROM pg_stat_user_tables WHERE relname = $1`,
    [table],
  );
  return rows[0] as { vacuums: number; analyzes: number; dead: number };
}

/** Inserts 2,000 rows into `table` and updates them all twice: 4,000 dead row versions. */
async function churn(db: SqlClient, table: string) {
  await db.query(`CREATE TABLE ${table} (id int PRIMARY KEY, n int NOT NULL)`);
  await db.query(`INSERT INTO ${table} SELECT g, 0 FROM generate_series(1, 2000) g`);
  await db.query(`UPDATE ${table} SET n = n + 1`);
  await db.query(`UPDATE ${table} SET n = n + 1`);
}

// The bound catches a vacuum that never comes, not a slow one: a loaded CI machine may take long.
async function until(check: () => Promise<boolean>, ms = 60_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe("autovacuum on PGlite", () => {
  it("follows Postgres's default thresholds: dead rows over 50 + 20%, changes over 50 + 10%", () => {
    const row = (
      n_live_tup: number,
      n_dead_tup: number,
      n_mod_since_analyze: number,
      n_ins_since_vacuum = 0,
    ) => ({
      relname: 'we"ird',
      n_live_tup,
      n_dead_tup,
      n_mod_since_analyze,
      n_ins_since_vacuum,
    });
    expect(autovacuumStatement(row(1000, 250, 0))).toBeUndefined();
    expect(autovacuumStatement(row(1000, 251, 0))).toBe('VACUUM (ANALYZE, SKIP_LOCKED) "we""ird"');
    expect(autovacuumStatement(row(1000, 0, 151))).toBe('ANALYZE (SKIP_LOCKED) "we""ird"');
    expect(autovacuumStatement(row(1000, 0, 150, 1201))).toBe('VACUUM (ANALYZE, SKIP_LOCKED) "we""ird"');
    expect(autovacuumStatement(row(0, 0, 50, 1000))).toBeUndefined();
  });

  it("vacuums and analyzes a churned table of the store's schema, on the thread as in process", async () => {
    const thread = await openPgliteThread();
    const db = await freshPglite();
    closers.push(
      () => thread.close(),
      () => db.close(),
    );
    for (const client of [thread, pgliteClient(db)]) {
      const store = await createSqlStore(client, { autovacuum: { intervalMs: 50 } });
      closers.push(() => store.close());
      await churn(client, "churned");
      expect(await until(async () => (await stats(client, "churned")).vacuums > 0)).toBe(true);
      expect(await stats(client, "churned")).toMatchObject({ dead: 0, analyzes: 1 });
    }
  }, 180_000);

  it("does nothing when turned off, nor once the store is closed", async () => {
    const db = await freshPglite();
    closers.push(() => db.close());
    const client = pgliteClient(db);
    const off = await createSqlStore(client, { autovacuum: false });
    await churn(client, "left_alone");
    const closed = await createSqlStore(client, { autovacuum: { intervalMs: 50 } });
    await closed.close();
    // Postgres's statistics show the dead rows within a second or so; they stay.
    expect(await until(async () => (await stats(client, "left_alone")).dead > 3000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stats(client, "left_alone")).toMatchObject({ vacuums: 0, analyzes: 0 });
    await off.close();
  });
});

describe("autovacuum on Postgres", () => {
  /** A client of a server whose `autovacuum` setting is `setting`. */
  const server = (setting: string): SqlClient => ({
    query: async (text) => {
      if (!/current_setting\('autovacuum'\)/.test(text)) throw new Error(`unexpected ${text}`);
      return { rows: [{ autovacuum: setting }] };
    },
  });

  it("is the store's own where the server's is off, unless turned off; options turn it on anywhere", async () => {
    expect(await vacuumsItself(server("off"), undefined)).toBe(true);
    expect(await vacuumsItself(server("on"), undefined)).toBe(false);
    expect(await vacuumsItself(server("off"), false)).toBe(false);
    expect(await vacuumsItself(server("on"), { intervalMs: 50 })).toBe(true);
    expect(await vacuumsItself({ ...server("on"), singleConnection: true }, undefined)).toBe(true);
  });

  it.skipIf(!url)(
    "vacuums and analyzes a churned table of the store's schema on a real server",
    async () => {
      const { pool, close } = await schemaPool(url as string, "hl_vacuum", 2);
      closers.push(close);
      const client = pgPoolClient(pool, { listen: false });
      const store = await createSqlStore(client, { autovacuum: { intervalMs: 50 } });
      closers.push(() => store.close());
      await churn(client, "churned");
      expect(await until(async () => (await stats(client, "churned")).vacuums > 0)).toBe(true);
      expect(await stats(client, "churned")).toMatchObject({ dead: 0 });
    },
    120_000,
  );
});
