// Event search on Postgres (`npm run bench:search`): filtered `event_summaries` queries over
// 1,000,000 stored events of one source, beside a full scan of the same events in the same run.
//
// Fixture: one source's events inserted in bulk with SQL (generate_series; with BENCH_GIN=1 the GIN
// index of migration 5 is built after the load), then ANALYZE, bodies like
//   {"type":"order.created","total":417,"customer":{"id":"c4417","tier":"gold"},"tags":["eu","vip"],"note":"..."}
// Each query is `store.events.list(ws, source, { filter, limit: 20 })`, what `GET
// /v1/sources/{id}/event_summaries?filter=...` runs: one page with the default scan budget
// (EVENT_SCAN.default events examined at most, newest first), timed as the median of BENCH_RUNS
// runs. Beside it, one page with the largest budget (the whole source: what a page cost before the
// budget) and the full scan: the same filter evaluated on every event of the source from the
// lossless text column (`body::jsonb` per row: no jsonb twin, no index), one run each.
// Lines:
//   search <name>: page=<items> scanned=<n> budget_reached=<bool> page_ms=<median>
//     whole_source_page_ms=<ms> total_matches=<n> full_scan_ms=<ms> ratio=<full/page>
//
// Env: HOOKLINE_BENCH_PG_URL or HOOKLINE_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/test),
// BENCH_EVENTS (1000000), BENCH_RUNS (15), BENCH_GIN (0; 1 adds the GIN index of migration 5).
import { randomBytes } from "node:crypto";
import { parseEventFilter } from "@hookline/core";
import { EVENT_SCAN } from "@hookline/store";
import { createSqlStore, pgPoolClient } from "@hookline/store-sql";
import pg from "pg";

const url =
  process.env.HOOKLINE_BENCH_PG_URL ??
  process.env.HOOKLINE_TEST_PG_URL ??
  "postgres://postgres@127.0.0.1:5432/test";
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
/**
 * BENCH_GIN=1 adds the GIN index on body_json (jsonb_path_ops) that migration 5 made and migration
 * 8 dropped: what the pages cost with it.
 */
const GIN = process.env.BENCH_GIN === "1";
const schema = `hl_search_${randomBytes(4).toString("hex")}`;

/** The filters measured: name, filter, and the SQL of the same condition on `body::jsonb` (`b`). */
const QUERIES: [string, Record<string, unknown>, string][] = [
  ["rare equality (1 in 10,000)", { "event.customer.id": "c4417" }, "b->'customer'->>'id' = 'c4417'"],
  ["common equality (1 in 4)", { "event.type": "order.created" }, "b->>'type' = 'order.created'"],
  [
    "two equalities (1 in 1,000)",
    { "event.type": "order.paid", "event.total": 417 },
    "b->>'type' = 'order.paid' AND (b->'total')::numeric = 417",
  ],
  ["range (1 in 1,000)", { "event.total": { $gte: 999 } }, "(b->'total')::numeric >= 999"],
  [
    "$in on a rare value",
    { "event.customer.id": { $in: ["c1", "c2", "c3"] } },
    "b->'customer'->>'id' IN ('c1','c2','c3')",
  ],
  ["substring (1 in 100)", { "event.note": { $contains: "promo-7" } }, "strpos(b->>'note', 'promo-7') > 0"],
  ["no match (range)", { "event.total": { $gt: 5000 } }, "(b->'total')::numeric > 5000"],
  ["no match (equality)", { "event.customer.id": "nobody" }, "b->'customer'->>'id' = 'nobody'"],
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
  try {
    const store = await createSqlStore(pgPoolClient(pool));
    const ws = (await store.workspaces.create({ name: "bench" })).id;
    const source = "dc_bench_search";
    const loadStart = performance.now();
    await pool.query("DROP INDEX IF EXISTS events_body_json");
    const CHUNK = 100_000;
    for (let start = 0; start < EVENTS; start += CHUNK) {
      await pool.query(
        `INSERT INTO events (id, workspace_id, emitter_id, channel, ts, body, created_at)
         SELECT 'evt_bench_' || n, $1, $2, 'default', 1767225600000 + n, json_build_object(
           'type', (ARRAY['order.created','order.paid','order.shipped','refund'])[n % 4 + 1],
           'total', n % 1000,
           'customer', json_build_object('id', 'c' || (n % 10000), 'tier', (ARRAY['gold','silver','bronze','none'])[n % 10 % 4 + 1]),
           'tags', CASE WHEN n % 3 = 0 THEN json_build_array('eu', 'vip') ELSE json_build_array('us') END,
           'note', 'order ' || n || ' promo-' || (n % 100))::text, 1767225600000 + n
         FROM generate_series($3::bigint, $4::bigint) AS n`,
        [ws, source, start, Math.min(EVENTS, start + CHUNK) - 1],
      );
    }
    if (GIN) await pool.query("CREATE INDEX events_body_json ON events USING gin (body_json jsonb_path_ops)");
    await pool.query("ANALYZE events");
    console.log(
      `fixture: ${EVENTS} events of one source loaded${GIN ? " and indexed" : " (no GIN index)"} in ${Math.round(performance.now() - loadStart)} ms`,
    );

    console.log(`scan budget: ${EVENT_SCAN.default} events per page (largest: ${EVENT_SCAN.max})`);
    for (const [name, raw, scanSql] of QUERIES) {
      const filter = parseEventFilter(raw);
      const times: number[] = [];
      let page = await store.events.list(ws, source, { filter, limit: 20 });
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        page = await store.events.list(ws, source, { filter, limit: 20 });
        times.push(performance.now() - t0);
      }
      const w0 = performance.now();
      await store.events.list(ws, source, { filter, limit: 20, scan: EVENT_SCAN.max });
      const wholeMs = performance.now() - w0;
      const t0 = performance.now();
      const full = await pool.query(
        `SELECT count(*) AS n FROM (SELECT body::jsonb AS b FROM events WHERE emitter_id = $1) e WHERE ${scanSql}`,
        [source],
      );
      const scanMs = performance.now() - t0;
      const indexed = median(times);
      console.log(
        `search ${name}: page=${page.items.length} scanned=${page.scanned} budget_reached=${page.budgetReached} page_ms=${indexed.toFixed(1)} whole_source_page_ms=${wholeMs.toFixed(0)} total_matches=${full.rows[0].n} full_scan_ms=${scanMs.toFixed(0)} ratio=${(scanMs / indexed).toFixed(0)}`,
      );
    }
    await store.close();
  } finally {
    await pool.end();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

await main();
