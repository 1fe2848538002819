import { afterAll, describe, expect, it } from "vitest";
import { pgliteClient, pgPoolClient, type SqlClient } from "../src/index.js";
import { freshPglite } from "./fresh-pglite.js";
import { backlogStore, schemaPool, statementPlans, watchStatements } from "./statement-plans.js";

// A delivery's outcome statement (its attempt, its completion and, on Postgres, the hand-off of its
// slot to the next row of its webhook) reads the rows it changes by their keys, whatever the
// statistics: its cost must not grow with the rows delivered or pending. Planned on statistics taken
// while a backlog was pending (as autovacuum's are under load), the hand-off's estimate of the rows
// it picks made Postgres hash every event and sequentially scan `deliveries` at every outcome (4 ms
// a statement at 8,000 rows, against 0.4); without statistics, the completion read every entry of
// the in-flight index, whose entries of delivered rows stay until VACUUM.
const url = process.env.HOOKLINE_TEST_PG_URL;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** The scans of `deliveries` and `events` in a plan (EXPLAIN's JSON) that do not read by a key. */
function unkeyedScans(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) unkeyedScans(item, into);
  else if (node && typeof node === "object") {
    const n = node as Record<string, unknown>;
    const type = String(n["Node Type"] ?? "");
    const index = typeof n["Index Name"] === "string" ? n["Index Name"] : "";
    const table = n["Relation Name"] ?? index.split("_")[0];
    if (table === "deliveries" || table === "events") {
      if (type === "Seq Scan" || (/Index/.test(type) && n["Index Cond"] === undefined))
        into.push(`${type} on ${index || String(table)}`);
    }
    for (const value of Object.values(n)) unkeyedScans(value, into);
  }
  return into;
}

/**
 * Emits 3,000 deliveries, takes `statistics` (none, or of the pending backlog), delivers 400 of them
 * four at a time (handing each slot on where the store can) and returns the unkeyed scans of the
 * plans of the last outcome statement: its plan for its parameters and its generic plan.
 */
async function outcomeScans(raw: SqlClient, statistics: "backlog" | "none"): Promise<string[]> {
  const { client, ran } = watchStatements(raw, (text) => text.includes("INSERT INTO attempts"));
  const { store } = await backlogStore(client, "dc_plan", 30, closers);
  if (statistics === "backlog") await raw.query("ANALYZE");
  const q = store.queue.deliveries;
  const handOff = q.completeAndTakeNext?.bind(q);
  const claim = () =>
    q.claim({ owner: "w1", now: Date.now(), leaseMs: 60_000, limit: 4, perWebhookLimit: 4 });
  let rows = await claim();
  for (let delivered = 0; delivered < 400; delivered += rows.length) {
    const done = { state: "succeeded", status: 200 } as const;
    if (handOff) {
      const results = await Promise.all(rows.map((row) => handOff(row.id, "w1", done, 60_000)));
      rows = results.flatMap((result) => (result.next ? [result.next] : []));
    } else {
      await Promise.all(rows.map((row) => q.complete(row.id, "w1", done)));
      rows = await claim();
    }
    if (rows.length === 0) throw new Error(`nothing left to deliver after ${delivered}`);
  }
  const outcome = ran.at(-1);
  if (!outcome) throw new Error("no outcome statement");
  if (handOff && !outcome.text.includes("handed AS")) throw new Error("the last outcome handed nothing on");
  const [custom, generic] = await statementPlans(raw, outcome);
  return [
    ...unkeyedScans(custom).map((scan) => `custom: ${scan}`),
    ...unkeyedScans(generic).map((scan) => `generic: ${scan}`),
  ];
}

describe("an outcome's plans read the rows they change by key", () => {
  for (const statistics of ["backlog", "none"] as const) {
    it(`PGlite, statistics: ${statistics}`, async () => {
      const db = await freshPglite();
      closers.push(() => db.close());
      expect(await outcomeScans(pgliteClient(db), statistics)).toEqual([]);
    }, 120_000);

    it.skipIf(!url)(
      `Postgres (with the hand-off), statistics: ${statistics}`,
      async () => {
        const { pool, close } = await schemaPool(url as string, "hl_plan");
        closers.push(close);
        expect(await outcomeScans(pgPoolClient(pool, { listen: false }), statistics)).toEqual([]);
      },
      120_000,
    );
  }
});
