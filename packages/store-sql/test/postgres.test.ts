import { randomBytes } from "node:crypto";
import { runStoreConformance } from "@hookline/store/testing";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlStore, MIGRATIONS, migrate, pgPoolClient } from "../src/index.js";
import { loadPg } from "./load-pg.js";

// Runs only when HOOKLINE_TEST_PG_URL points at a Postgres database, such as
// HOOKLINE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx vitest run --project store-sql
const url = process.env.HOOKLINE_TEST_PG_URL;

describe.skipIf(!url)("Postgres", () => {
  const schema = `hl_test_${randomBytes(6).toString("hex")}`;
  const pg = url ? loadPg() : undefined;
  let admin: Pool | undefined;
  const pools: Pool[] = [];
  /** A pool whose connections use the test schema. */
  const poolFor = (name: string): Pool => {
    if (!pg) throw new Error("HOOKLINE_TEST_PG_URL is not set");
    const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${name}`, max: 10 });
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    if (!pg) return;
    admin = new pg.Pool({ connectionString: url, max: 2 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE SCHEMA ${schema}_mig`);
  });

  afterAll(async () => {
    for (const pool of pools) await pool.end();
    if (admin) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.query(`DROP SCHEMA IF EXISTS ${schema}_mig CASCADE`);
      await admin.end();
    }
  });

  runStoreConformance("postgres", () => createSqlStore(pgPoolClient(poolFor(schema))), { timeout: 30_000 });

  describe("migrations", () => {
    it("applies every migration once; concurrent migrate calls do not fail", async () => {
      const clients = Array.from({ length: 4 }, () => pgPoolClient(poolFor(`${schema}_mig`)));
      const results = await Promise.all(clients.map((client) => migrate(client)));
      expect(results.flat().sort()).toEqual(MIGRATIONS.map((m) => m.id).sort());
      expect(await migrate(clients[0]!)).toEqual([]);
      const { rows } = await clients[0]!.query("SELECT id FROM hookline_migrations ORDER BY id");
      expect(rows.map((row) => Number(row.id))).toEqual(MIGRATIONS.map((m) => m.id));
    });
  });
});
