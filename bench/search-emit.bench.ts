// What event search costs on the emit path (`npm run bench:search-emit`): emits per second into the
// SQL store with the jsonb twin of the body and its GIN index (migration 5, as shipped), beside the
// same store without the GIN index and without the twin at all (the text column only), in the same
// run, on PGlite and on Postgres.
//
// Each variant is a fresh store (PGlite in memory; a Postgres schema), altered after migrating:
//   jsonb+gin   the GIN index of migration 5 again (jsonb_path_ops, fastupdate on, the default)
//   jsonb       as migrated (body_json generated from body; migration 8 dropped the GIN index)
//   text        ALTER TABLE events DROP COLUMN body_json (and the partial index over it)
// Workloads, through `store.emits.commit` with a ~400-byte webhook body, no subscriptions:
//   single   BENCH_SINGLE commits of one event, BENCH_CONCURRENCY at a time (group commit)
//   batch    commits of 100 events, BENCH_BATCH events in all
// Variants run in turn, BENCH_ROUNDS rounds; each line is the median over rounds:
//   emit <db> <workload> <variant>: events_per_s=<n> (vs text: <ratio>)
//
// Env: HOOKLINE_BENCH_PG_URL or HOOKLINE_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/test),
// BENCH_SINGLE (2000), BENCH_BATCH (20000), BENCH_CONCURRENCY (8), BENCH_ROUNDS (3), BENCH_DBS
// (pglite,postgres).
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import type { EventInput, Store } from "@hookline/store";
import { createSqlStore, pgliteClient, pgPoolClient } from "@hookline/store-sql";
import pg from "pg";

const url =
  process.env.HOOKLINE_BENCH_PG_URL ??
  process.env.HOOKLINE_TEST_PG_URL ??
  "postgres://postgres@127.0.0.1:5432/test";
const SINGLE = Number(process.env.BENCH_SINGLE ?? 2000);
const BATCH = Number(process.env.BENCH_BATCH ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DBS = (process.env.BENCH_DBS ?? "pglite,postgres").split(",");

const VARIANTS: [string, string[]][] = [
  ["jsonb+gin", ["CREATE INDEX events_body_json ON events USING gin (body_json jsonb_path_ops)"]],
  ["jsonb", []],
  ["text", ["ALTER TABLE events DROP COLUMN body_json CASCADE"]],
];

const body = (n: number) => ({
  type: ["order.created", "order.paid", "order.shipped", "refund"][n % 4],
  id: `ord_${n}`,
  total: n % 1000,
  currency: "EUR",
  customer: { id: `c${n % 10_000}`, email: `customer${n % 10_000}@example.com`, tier: "gold" },
  items: [
    { sku: `SKU-${n % 97}`, qty: 1 + (n % 3), price: 19.99 },
    { sku: `SKU-${n % 89}`, qty: 1, price: 5.5 },
  ],
  tags: n % 3 === 0 ? ["eu", "vip"] : ["us"],
  note: `order ${n} promo-${n % 100}`,
});
const event = (n: number): EventInput => ({
  channel: "default",
  ts: n,
  summary: `order ${n}`,
  body: body(n),
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Opens a fresh, migrated store of `db`, with `alter` applied; returns it and how to drop it. */
async function open(db: string, alter: string[]): Promise<{ store: Store; close(): Promise<void> }> {
  if (db === "pglite") {
    const lite = await PGlite.create();
    const store = await createSqlStore(pgliteClient(lite));
    for (const statement of alter) await lite.query(statement);
    return {
      store,
      async close() {
        await store.close();
        await lite.close();
      },
    };
  }
  const schema = `hl_emit_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: url, max: 8, options: `-c search_path=${schema}` });
  const store = await createSqlStore(pgPoolClient(pool));
  for (const statement of alter) await pool.query(statement);
  return {
    store,
    async close() {
      await store.close();
      await pool.end();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** Events per second of one workload on a fresh store of one variant. */
async function measure(db: string, alter: string[], workload: "single" | "batch"): Promise<number> {
  const { store, close } = await open(db, alter);
  try {
    const ws = (await store.workspaces.create({ name: "bench" })).id;
    const commit = (events: EventInput[]) =>
      store.emits.commit({ workspaceId: ws, componentId: "dc_bench_emit", events });
    await commit([event(0)]); // warm-up
    const t0 = performance.now();
    if (workload === "single") {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < SINGLE) await commit([event(next++)]);
        }),
      );
      return SINGLE / ((performance.now() - t0) / 1000);
    }
    for (let start = 0; start < BATCH; start += 100) {
      await commit(Array.from({ length: 100 }, (_, i) => event(start + i)));
    }
    return BATCH / ((performance.now() - t0) / 1000);
  } finally {
    await close();
  }
}

async function main(): Promise<void> {
  for (const db of DBS) {
    for (const workload of ["single", "batch"] as const) {
      const rates = new Map<string, number[]>(VARIANTS.map(([name]) => [name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, alter] of VARIANTS) rates.get(name)?.push(await measure(db, alter, workload));
      }
      const text = median(rates.get("text") ?? []);
      for (const [name] of VARIANTS) {
        const rate = median(rates.get(name) ?? []);
        console.log(
          `emit ${db} ${workload} ${name}: events_per_s=${rate.toFixed(0)} (vs text: ${(rate / text).toFixed(2)})`,
        );
      }
    }
  }
}

await main();
