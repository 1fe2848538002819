// Hookline's SQL delivery queue versus pg-boss on the same Postgres, in one run (`npm run bench:queue`).
//
// Both queues get the same N jobs (enqueued in chunks), then W concurrent workers, each with its own
// pool connection budget, loop "claim a batch of B, complete each job individually" until the queue
// is empty. Hookline: `store.queue.deliveries.claim` (FOR UPDATE SKIP LOCKED under a lease) and
// `store.queue.deliveries.complete`; the jobs are delivery rows written by `store.emits.commit` (the
// outbox: one event, one webhook subscribed). pg-boss: `insert`, `fetch({ batchSize })` and
// `complete(name, id)`, on its own schema. The figure is claimed-and-completed jobs per second.
// Hookline is also run with `perWebhookLimit` (what the engine's delivery worker always passes: the
// set-based per-webhook claim), reported on its own line and compared on the line before the last;
// the last line compares the plain claim with pg-boss's fetch:
//   queue(perWebhookLimit): hookline_per_s=<n> pgboss_per_s=<n> ratio=<x>
//   queue: hookline_per_s=<n> pgboss_per_s=<n> ratio=<x>
//
// Env: HOOKLINE_BENCH_PG_URL or HOOKLINE_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/test),
// BENCH_JOBS (20000), BENCH_BATCH (50), BENCH_WORKERS (8).
import { randomBytes } from "node:crypto";
import { createSqlStore, pgPoolClient } from "@hookline/store-sql";
import pg from "pg";
import PgBoss from "pg-boss";

const url =
  process.env.HOOKLINE_BENCH_PG_URL ??
  process.env.HOOKLINE_TEST_PG_URL ??
  "postgres://postgres@127.0.0.1:5432/test";
const JOBS = Number(process.env.BENCH_JOBS ?? 20_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 50);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 8);
const CHUNK = 1_000;
const suffix = randomBytes(4).toString("hex");

const admin = new pg.Pool({ connectionString: url, max: 1 });

interface Result {
  enqueuePerS: number;
  perS: number;
  ms: number;
}

function rate(n: number, ms: number): number {
  return Math.round(n / (ms / 1000));
}

/** Runs `WORKERS` loops of `step` until each sees an empty batch; returns the jobs done. */
async function drain(step: () => Promise<number>): Promise<number> {
  let done = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      for (;;) {
        const n = await step();
        if (n === 0) return;
        done += n;
      }
    }),
  );
  return done;
}

async function hookline(perWebhookLimit?: number): Promise<Result> {
  const schema = `hl_bench_${suffix}_${perWebhookLimit ?? "plain"}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: WORKERS + 2 });
  try {
    const store = await createSqlStore(pgPoolClient(pool));
    const ws = await store.workspaces.create({ name: "bench" });
    const webhook = await store.webhooks.create({
      workspaceId: ws.id,
      url: "http://127.0.0.1:9/hook",
      active: true,
      secrets: [{ value: "x", createdAt: Date.now() }],
    });
    const emitterId = "dc_bench";
    await store.subscriptions.create({ workspaceId: ws.id, emitterId, listenerId: webhook.id });

    let started = performance.now();
    for (let i = 0; i < JOBS; i += CHUNK) {
      const events = Array.from({ length: Math.min(CHUNK, JOBS - i) }, (_, k) => ({
        channel: "default",
        ts: Date.now(),
        body: { n: i + k },
      }));
      await store.emits.commit({ workspaceId: ws.id, componentId: emitterId, events });
    }
    const enqueueMs = performance.now() - started;

    started = performance.now();
    const done = await drain(async () => {
      const owner = `worker_${randomBytes(4).toString("hex")}`;
      const rows = await store.queue.deliveries.claim({
        owner,
        now: Date.now(),
        leaseMs: 60_000,
        limit: BATCH,
        ...(perWebhookLimit === undefined ? {} : { perWebhookLimit }),
      });
      const ok = await Promise.all(
        rows.map((row) =>
          store.queue.deliveries.complete(row.id, owner, { state: "succeeded", status: 200 }),
        ),
      );
      if (ok.some((x) => !x)) throw new Error("complete lost its lease");
      return rows.length;
    });
    const ms = performance.now() - started;
    if (done !== JOBS) throw new Error(`hookline: ${done} of ${JOBS} jobs done`);
    await store.close();
    return { enqueuePerS: rate(JOBS, enqueueMs), perS: rate(JOBS, ms), ms };
  } finally {
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

async function pgBoss(): Promise<Result> {
  const schema = `pgboss_bench_${suffix}`;
  const boss = new PgBoss({
    connectionString: url,
    schema,
    max: WORKERS + 2,
    supervise: false,
    schedule: false,
  });
  boss.on("error", (error) => console.error("pg-boss:", error));
  await boss.start();
  try {
    const queue = "bench";
    await boss.createQueue(queue);
    let started = performance.now();
    for (let i = 0; i < JOBS; i += CHUNK) {
      const jobs = Array.from({ length: Math.min(CHUNK, JOBS - i) }, (_, k) => ({
        name: queue,
        data: { n: i + k },
      }));
      await boss.insert(jobs);
    }
    const enqueueMs = performance.now() - started;

    started = performance.now();
    const done = await drain(async () => {
      const jobs = await boss.fetch(queue, { batchSize: BATCH });
      await Promise.all(jobs.map((job) => boss.complete(queue, job.id)));
      return jobs.length;
    });
    const ms = performance.now() - started;
    if (done !== JOBS) throw new Error(`pg-boss: ${done} of ${JOBS} jobs done`);
    return { enqueuePerS: rate(JOBS, enqueueMs), perS: rate(JOBS, ms), ms };
  } finally {
    await boss.stop({ graceful: false, wait: true });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

const show = (name: string, r: Result) =>
  console.log(
    `${name.padEnd(34)} enqueue ${String(r.enqueuePerS).padStart(7)}/s   claim+complete ${String(r.perS).padStart(6)}/s (${Math.round(r.ms)} ms)`,
  );

console.log(`queue bench: ${JOBS} jobs, batch ${BATCH}, ${WORKERS} workers, per-job complete`);
const boss = await pgBoss();
show("pg-boss fetch/complete", boss);
const plain = await hookline();
show("hookline claim/complete", plain);
const limited = await hookline(1_000_000);
show("hookline claim(perWebhookLimit)", limited);
await admin.end();
console.log(
  `queue(perWebhookLimit): hookline_per_s=${limited.perS} pgboss_per_s=${boss.perS} ratio=${(limited.perS / boss.perS).toFixed(2)}`,
);
console.log(
  `queue: hookline_per_s=${plain.perS} pgboss_per_s=${boss.perS} ratio=${(plain.perS / boss.perS).toFixed(2)}`,
);
