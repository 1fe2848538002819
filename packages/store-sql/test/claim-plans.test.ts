import { randomBytes } from "node:crypto";
import type { Pool } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createSqlStore, pgliteClient, pgPoolClient, type SqlClient } from "../src/index.js";
import { freshPglite } from "./fresh-pglite.js";
import { loadPg } from "./load-pg.js";
import { subscribedWebhook } from "./subscribed-webhook.js";

// A claim's cost must not grow with the rows delivered, whatever the statistics the planner last
// read (Postgres's autovacuum analyzes a minute apart at best, PGlite's every 10 s): it walks the
// webhooks that have pending rows through the pending rows' index. Through the index of all a
// webhook's rows (`deliveries_webhook`, which statistics taken while the backlog was pending made
// look as good), it stepped over every row of the webhook delivered since.
const url = process.env.HOOKLINE_TEST_PG_URL;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** Every index a plan (EXPLAIN's JSON) reads. */
function indexesOf(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) indexesOf(item, into);
  else if (node && typeof node === "object") {
    const record = node as Record<string, unknown>;
    if (typeof record["Index Name"] === "string") into.push(record["Index Name"]);
    for (const value of Object.values(record)) indexesOf(value, into);
  }
  return into;
}

/**
 * Drives 2,800 of 3,000 deliveries through the store (emitted, analyzed, claimed four at a time,
 * succeeded) and returns the indexes read by the plans of the last claim, made on the statistics of
 * the backlog and again on statistics taken once it was delivered.
 */
async function claimPlans(raw: SqlClient): Promise<string[]> {
  const claims: { text: string; params: unknown[] }[] = [];
  const watched = (lane: SqlClient): SqlClient => {
    const { transaction } = lane;
    return {
      ...lane,
      query: (text, params) => {
        if (text.includes("WITH RECURSIVE hooks")) claims.push({ text, params: params ?? [] });
        return lane.query(text, params);
      },
      // A claim bounded per webhook runs in a transaction over a pool (it takes a lock first).
      ...(transaction && { transaction: (fn) => transaction((tx) => fn(watched(tx))) }),
    };
  };
  // Claims go through the background lane where the client has one (a pool).
  const client: SqlClient = {
    ...watched(raw),
    ...(raw.background && { background: watched(raw.background) }),
  };
  const store = await createSqlStore(client, { autovacuum: false });
  closers.push(() => store.close());
  const { ws } = await subscribedWebhook(store, "dc_plan");
  const emit = (n: number) =>
    store.emits.commit({
      workspaceId: ws.id,
      componentId: "dc_plan",
      events: Array.from({ length: n }, (_, i) => ({ channel: "default", ts: 1, body: { i } })),
    });
  const q = store.queue.deliveries;
  for (let i = 0; i < 30; i++) await emit(100);
  // Statistics taken while the whole backlog is pending, as a busy queue's often are.
  await raw.query("ANALYZE deliveries");
  const take = () => q.claim({ owner: "w1", now: Date.now(), leaseMs: 60_000, limit: 4, perWebhookLimit: 4 });
  // A worker's pace: four in flight, each claim taking the slots freed; 200 rows left pending.
  for (let delivered = 0; delivered < 2_800; ) {
    const rows = await take();
    if (rows.length === 0) throw new Error(`a claim found nothing after ${delivered} deliveries`);
    await Promise.all(rows.map((row) => q.complete(row.id, "w1", { state: "succeeded", status: 200 })));
    delivered += rows.length;
  }
  const claim = claims.at(-1);
  if (!claim || !raw.transaction) throw new Error("no claim statement, or no transaction");
  const { transaction } = raw;
  /**
   * The indexes the plans of `statement` read: its generic plan (a named statement's after its first
   * runs) and its plan for the parameters it ran with (its first runs', and any run whose generic plan
   * looks costlier).
   */
  const planOf = (statement: { text: string; params: unknown[] }) =>
    transaction(async (tx) => {
      const indexes = (rows: Record<string, unknown>[]) => {
        const plan = rows[0]?.["QUERY PLAN"];
        return indexesOf(typeof plan === "string" ? JSON.parse(plan) : plan);
      };
      const custom = indexes(
        (await tx.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.params)).rows,
      );
      await tx.query("SET LOCAL plan_cache_mode = force_generic_plan");
      await tx.query(`PREPARE queue_plan AS ${statement.text}`);
      const nulls = statement.params.map(() => "NULL").join(", ");
      const generic = indexes((await tx.query(`EXPLAIN (FORMAT JSON) EXECUTE queue_plan(${nulls})`)).rows);
      await tx.query("DEALLOCATE queue_plan");
      return [...custom, ...generic];
    });
  // Planned on the statistics of the pending backlog, then on statistics taken now (few pending).
  const stale = await planOf(claim);
  await raw.query("ANALYZE deliveries");
  return [...stale, ...(await planOf(claim))];
}

/** The rule above. */
function expectThePendingIndex(indexes: string[]): void {
  expect(indexes).toContain("deliveries_pending_webhook");
  expect(indexes).not.toContain("deliveries_webhook");
}

describe("a claim's plans", () => {
  it("walk the pending rows' index after thousands of deliveries (PGlite)", async () => {
    const db = await freshPglite();
    closers.push(() => db.close());
    expectThePendingIndex(await claimPlans(pgliteClient(db)));
  }, 120_000);

  it.skipIf(!url)(
    "walk the pending rows' index after thousands of deliveries (Postgres)",
    async () => {
      const pg = loadPg();
      const schema = `hl_plan_${randomBytes(6).toString("hex")}`;
      const admin: Pool = new pg.Pool({ connectionString: url, max: 1 });
      await admin.query(`CREATE SCHEMA ${schema}`);
      const pool: Pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
      closers.push(async () => {
        await pool.end();
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      });
      expectThePendingIndex(await claimPlans(pgPoolClient(pool, { listen: false })));
    },
    120_000,
  );
});
