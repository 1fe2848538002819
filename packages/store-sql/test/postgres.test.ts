import { randomBytes } from "node:crypto";
import type { StoreNotice } from "@hookline/store";
import { createFaultPlan, runStoreConformance } from "@hookline/store/testing";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlStore, MIGRATIONS, migrate, pgPoolClient } from "../src/index.js";
import { faultyClient } from "./faulty-client.js";
import { loadPg } from "./load-pg.js";

// Runs only when HOOKLINE_TEST_PG_URL points at a Postgres database, such as
// HOOKLINE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx vitest run --project store-sql
const url = process.env.HOOKLINE_TEST_PG_URL;

const until = async (predicate: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

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

  const faults = createFaultPlan();
  runStoreConformance("postgres", () => createSqlStore(faultyClient(pgPoolClient(poolFor(schema)), faults)), {
    timeout: 30_000,
    notifications: true,
    faultInjection: faults,
    workflows: true,
    handOff: true,
    multiProcess: () => createSqlStore(pgPoolClient(poolFor(schema))),
  });

  describe("notifications over LISTEN/NOTIFY", () => {
    it("reach another node's store; a killed LISTEN connection is re-opened and resyncs", async () => {
      if (!pg || !admin) throw new Error("HOOKLINE_TEST_PG_URL is not set");
      const appName = `hl_listen_${randomBytes(4).toString("hex")}`;
      const listenConfig = {
        connectionString: url,
        options: `-c search_path=${schema}`,
        application_name: appName,
      };
      const a = await createSqlStore(pgPoolClient(poolFor(schema), { listen: listenConfig }), {
        notifications: { reconnectMinMs: 50 },
      });
      const b = await createSqlStore(pgPoolClient(poolFor(schema)));
      const off = await createSqlStore(pgPoolClient(poolFor(schema), { listen: false }));
      expect(off.notifications).toBeUndefined();
      const seen: StoreNotice[] = [];
      const unsubscribe = a.notifications?.subscribe((notice) => seen.push(notice));
      const listening = async () =>
        (
          await admin!.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [
            appName,
          ])
        ).rows[0].n as number;
      await until(async () => (await listening()) === 1);

      const ws = await b.workspaces.create({ name: "n" });
      const emit = () =>
        b.emits.commit({
          workspaceId: ws.id,
          componentId: "dc_pg",
          events: [{ channel: "default", ts: 1, body: {} }],
        });
      const [first] = await emit();
      await until(() => seen.length > 0);
      expect(seen).toEqual([
        { kind: "events", local: false, workspaceId: ws.id, emitterId: "dc_pg", seqs: [first?.seq] },
      ]);

      seen.length = 0;
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [appName],
      );
      await until(() => seen.some((n) => n.kind === "resync"));
      expect(await listening()).toBe(1);
      const [second] = await emit();
      await until(() => seen.some((n) => n.kind === "events"));
      expect(seen.find((n) => n.kind === "events")).toMatchObject({ seqs: [second?.seq], local: false });

      unsubscribe?.();
      await until(async () => (await listening()) === 0);
      await Promise.all([a.close(), b.close(), off.close()]);
    });
  });

  describe("named statements", () => {
    it("are prepared once per connection, and prepared again after a table's columns change", async () => {
      const pool = poolFor(schema);
      const client = pgPoolClient(pool, { listen: false });
      await client.query("CREATE TABLE named_t (a integer)");
      await client.query("INSERT INTO named_t VALUES (1)");
      const text = "SELECT * FROM named_t WHERE a = $1";
      for (let i = 0; i < 3; i++) expect((await client.query(text, [1])).rows).toEqual([{ a: 1 }]);
      // On a connection that ran it: one prepared statement of that text.
      const prepared = await client.transaction!(async (tx) => {
        await tx.query(text, [1]);
        return (await tx.query("SELECT name FROM pg_prepared_statements WHERE statement = $1", [text])).rows;
      });
      expect(prepared).toEqual([{ name: expect.stringMatching(/^hookline_\d+$/) }]);
      // A migration adds a column: Postgres refuses the kept plan ("cached plan must not change
      // result type"); the statement is prepared again and answers with the new column.
      await client.query("ALTER TABLE named_t ADD COLUMN b text DEFAULT 'x'");
      for (let i = 0; i < 12; i++) expect((await client.query(text, [1])).rows).toEqual([{ a: 1, b: "x" }]);
    });
  });

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
