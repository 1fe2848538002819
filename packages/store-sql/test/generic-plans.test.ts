import { afterAll, describe, expect, it } from "vitest";
import { openPgliteThread, pgPoolClient, type SqlClient } from "../src/index.js";
import { backlogStore, schemaPool } from "./statement-plans.js";

// The hot statements of ingress and delivery are named (prepared) statements, and Postgres keeps a
// statement's generic plan once it costs no more than the plans it made for each run's values. A
// statement whose every run's plan looked cheaper was planned again at each run: the delivery
// outcome, whose completions' array told each plan its size, spent 0.3 ms of PGlite's 0.85 a
// statement planning (decision 0427). Each statement here must be planned at most five times (the
// runs Postgres plans before it compares) however often it runs.
const url = process.env.HOOKLINE_TEST_PG_URL;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** The generic and custom plans so far of the prepared statements whose text includes `marker`. */
async function plansOf(raw: SqlClient, marker: string) {
  const { rows } = await raw.query(
    `SELECT sum(generic_plans)::int AS generic, sum(custom_plans)::int AS custom
     FROM pg_prepared_statements WHERE strpos(statement, $1) > 0`,
    [marker],
  );
  return { generic: Number(rows[0]?.generic ?? 0), custom: Number(rows[0]?.custom ?? 0) };
}

/**
 * Emits a backlog of 1,000 events, takes statistics (as the store's autovacuum does under load),
 * emits 120 more two at a time and delivers 120 in batches of two with their attempts (`handOff`:
 * through `completeAndTakeNext`, as the worker does over a pool), then reads the plans of the emit
 * and outcome statements on `raw`'s (single) connection.
 */
async function hotPlans(raw: SqlClient, handOff: boolean) {
  const { store, ws } = await backlogStore(raw, "dc_generic", 10, closers);
  await raw.query("ANALYZE");
  for (let i = 0; i < 60; i++) {
    await store.emits.commit({
      workspaceId: ws.id,
      componentId: "dc_generic",
      events: [0, 1].map((n) => ({ channel: "default", ts: 1, body: { i, n } })),
    });
  }
  const q = store.queue.deliveries;
  const done = (deliveryId: string) =>
    ({
      state: "succeeded",
      status: 200,
      attempt: { deliveryId, workspaceId: ws.id, at: Date.now(), status: 200, durationMs: 1 },
    }) as const;
  let rows = await q.claim({ owner: "w1", now: Date.now(), leaseMs: 60_000, limit: 2, perWebhookLimit: 2 });
  let delivered = 0;
  while (rows.length > 0 && delivered < 120) {
    delivered += rows.length;
    if (handOff && q.completeAndTakeNext) {
      const take = q.completeAndTakeNext.bind(q);
      const results = await Promise.all(rows.map((row) => take(row.id, "w1", done(row.id), 60_000)));
      rows = results.flatMap((result) => (result.next ? [result.next] : []));
    } else {
      await Promise.all(rows.map((row) => q.complete(row.id, "w1", done(row.id))));
      rows = await q.claim({ owner: "w1", now: Date.now(), leaseMs: 60_000, limit: 2, perWebhookLimit: 2 });
    }
  }
  if (delivered < 120) throw new Error(`delivered ${delivered}`);
  return {
    claim: await plansOf(raw, "WITH RECURSIVE hooks"),
    emit: await plansOf(raw, "INSERT INTO events"),
    outcome: await plansOf(raw, "INSERT INTO attempts"),
  };
}

describe("the hot statements keep their generic plans", () => {
  it("on PGlite's thread", async () => {
    const thread = await openPgliteThread();
    closers.push(() => thread.close());
    const plans = await hotPlans(thread, false);
    expect(plans.claim.generic).toBeGreaterThanOrEqual(50);
    expect(plans.claim.custom).toBeLessThanOrEqual(5);
    expect(plans.emit.generic).toBeGreaterThanOrEqual(50);
    expect(plans.emit.custom).toBeLessThanOrEqual(5);
    expect(plans.outcome.generic).toBeGreaterThanOrEqual(50);
    expect(plans.outcome.custom).toBeLessThanOrEqual(5);
  }, 120_000);

  it.skipIf(!url)(
    "on Postgres, with the hand-off",
    async () => {
      const { pool, close } = await schemaPool(url as string, "hl_generic", 1);
      closers.push(close);
      const plans = await hotPlans(pgPoolClient(pool, { listen: false }), true);
      expect(plans.emit.generic).toBeGreaterThanOrEqual(50);
      expect(plans.emit.custom).toBeLessThanOrEqual(5);
      expect(plans.outcome.generic).toBeGreaterThanOrEqual(50);
      expect(plans.outcome.custom).toBeLessThanOrEqual(5);
    },
    120_000,
  );
});
