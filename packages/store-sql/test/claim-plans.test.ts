import { afterAll, describe, expect, it } from "vitest";
import { createSqlStore, pgliteClient, pgPoolClient, type SqlClient } from "../src/index.js";
import { freshPglite } from "./fresh-pglite.js";
import { schemaPool, statementPlans, watchStatements } from "./statement-plans.js";
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
  const { client, ran } = watchStatements(raw, (text) => text.includes("WITH RECURSIVE hooks"));
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
  const claim = ran.at(-1);
  if (!claim) throw new Error("no claim statement");
  // Planned on the statistics of the pending backlog, then on statistics taken now (few pending).
  const stale = await statementPlans(raw, claim);
  await raw.query("ANALYZE deliveries");
  return indexesOf([...stale, ...(await statementPlans(raw, claim))]);
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
      const { pool, close } = await schemaPool(url as string, "hl_plan");
      closers.push(close);
      expectThePendingIndex(await claimPlans(pgPoolClient(pool, { listen: false })));
    },
    120_000,
  );
});
