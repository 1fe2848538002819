/**
 * npm run bench:workflow-durable — a five-step manual-triggered workflow (code steps), every
 * execution and step recorded, on PGlite and on Postgres (when HOOKLINE_TEST_PG_URL or
 * HOOKLINE_BENCH_PG_URL is set), against graphile-worker running five chained jobs (each job adds
 * the next) on the same Postgres, in the same run.
 *
 * - runs/s: BENCH_RUNS runs queued at once (`workflows.run(..., { async: true })`, claimed from the
 *   execution queue by the engine's executor), until the last one ended; graphile-worker: as many
 *   first jobs added at once (`addJob`), until every fifth job completed, with BENCH_WORKERS
 *   concurrency over a pool of as many connections (Hookline's store gets the same pool size).
 * - step overhead: BENCH_SEQUENTIAL runs one after another (`workflows.run`, waiting for the end),
 *   the wall time of a run divided by its five steps (the steps do next to nothing).
 *
 * One line per store:
 * `workflow-durable: store=<pglite|postgres> hookline_runs_per_s=<n> graphile_runs_per_s=<n|n/a> ratio=<x|n/a> step_overhead_ms=<n>`.
 *
 * Env: BENCH_RUNS (300), BENCH_SEQUENTIAL (30), BENCH_WORKERS (10).
 */
import { randomBytes } from "node:crypto";
import { createHookline, type Hookline } from "@hookline/engine";
import type { Store } from "@hookline/store";
import {
  createSqlStore,
  openPglite,
  openPgliteThread,
  pgliteClient,
  pgPoolClient,
} from "@hookline/store-sql";
import { Logger, type Runner, run as runGraphile } from "graphile-worker";
import pg from "pg";

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 30);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 10);
const STEPS = 5;
const url = process.env.HOOKLINE_BENCH_PG_URL ?? process.env.HOOKLINE_TEST_PG_URL;
const suffix = randomBytes(4).toString("hex");

const step = (i: number) => `export default defineComponent({
  async run({ steps }) {
    const before = ${i === 0 ? "steps.trigger.event.n" : `steps.s${i - 1}.$return_value`};
    return before + 1;
  },
});`;

interface Figures {
  runsPerS: number;
  stepOverheadMs: number;
}

/** The five-step workflow on `store`: runs/s with all runs queued at once, and the per-step overhead. */
async function hookline(store: Store): Promise<Figures> {
  const engine: Hookline = createHookline({ secretsKey: "bench", store, worker: false });
  try {
    const ws = await engine.workspaces.create({ name: "bench" });
    const wf = await engine.workflows.create(ws.id, {
      name: "durable bench",
      trigger: { type: "manual" },
      steps: Array.from({ length: STEPS }, (_, i) => ({ name: `s${i}`, component_code: step(i) })),
    });
    // Warm the step sandboxes.
    const warm = await engine.workflows.run(ws.id, wf.id, { event: { n: 0 } });
    if (warm.status !== "succeeded")
      throw new Error(`warm-up run ${warm.status}: ${JSON.stringify(warm.error)}`);

    let started = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) {
      const exe = await engine.workflows.run(ws.id, wf.id, { event: { n: i } });
      if (exe.steps[STEPS - 1]?.returnValue !== i + STEPS)
        throw new Error(`run ${i}: ${JSON.stringify(exe)}`);
    }
    const stepOverheadMs = (performance.now() - started) / SEQUENTIAL / STEPS;

    let ended = 0;
    let failed = 0;
    const done = new Promise<void>((resolve) => {
      engine.events.on("execution", (e: { workflowId: string; status: string }) => {
        if (e.workflowId !== wf.id || !["succeeded", "failed", "exited"].includes(e.status)) return;
        if (e.status !== "succeeded") failed++;
        if (++ended === RUNS) resolve();
      });
    });
    started = performance.now();
    await Promise.all(
      Array.from({ length: RUNS }, (_, n) =>
        engine.workflows.run(ws.id, wf.id, { event: { n }, async: true }),
      ),
    );
    await done;
    const ms = performance.now() - started;
    if (failed > 0) throw new Error(`${failed} of ${RUNS} runs did not succeed`);
    return { runsPerS: RUNS / (ms / 1000), stepOverheadMs };
  } finally {
    await engine.close();
  }
}

/** graphile-worker: RUNS chains of five jobs, each job adding the next; runs/s until every chain ended. */
async function graphile(connectionString: string): Promise<number> {
  const schema = `graphile_bench_${suffix}`;
  let ended = 0;
  let resolveDone = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const runner: Runner = await runGraphile({
    connectionString,
    schema,
    concurrency: WORKERS,
    maxPoolSize: WORKERS,
    noHandleSignals: true,
    // Quiet: its default logger prints a line per job, which would be measured too.
    logger: new Logger(() => () => undefined),
    pollInterval: 1000,
    taskList: {
      async step(payload, helpers) {
        const { i, n } = payload as { i: number; n: number };
        if (i + 1 < STEPS) await helpers.addJob("step", { i: i + 1, n: n + 1 });
        else if (++ended === RUNS) resolveDone();
      },
    },
  });
  try {
    const started = performance.now();
    await Promise.all(Array.from({ length: RUNS }, (_, n) => runner.addJob("step", { i: 0, n })));
    await done;
    return RUNS / ((performance.now() - started) / 1000);
  } finally {
    await runner.stop();
    const admin = new pg.Pool({ connectionString, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

async function onPglite(): Promise<Figures> {
  // PGlite on its own thread, as `pd serve` opens it; BENCH_PGLITE=in-process for the old way.
  const inProcess = process.env.BENCH_PGLITE === "in-process";
  const lite = inProcess ? await openPglite() : undefined;
  const thread = inProcess ? undefined : await openPgliteThread();
  const store = await createSqlStore(lite ? pgliteClient(lite) : (thread as NonNullable<typeof thread>));
  try {
    return await hookline(store);
  } finally {
    await store.close();
    await (lite ?? thread)?.close();
  }
}

async function onPostgres(connectionString: string): Promise<Figures> {
  const schema = `hl_durable_bench_${suffix}`;
  const admin = new pg.Pool({ connectionString, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString, options: `-c search_path=${schema}`, max: WORKERS });
  try {
    const store = await createSqlStore(pgPoolClient(pool));
    try {
      return await hookline(store);
    } finally {
      await store.close();
    }
  } finally {
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

const fmt = (n: number) => n.toFixed(n >= 100 ? 0 : 2);
console.log(
  `workflow-durable bench: ${RUNS} runs of ${STEPS} code steps at once, ${SEQUENTIAL} one by one; graphile-worker ${url ? `on ${url.replace(/\/\/[^@]*@/, "//")}` : "not run (no HOOKLINE_TEST_PG_URL)"}, concurrency ${WORKERS}`,
);
const graphileRate = url ? await graphile(url) : undefined;
if (graphileRate !== undefined)
  console.log(`graphile-worker: ${fmt(graphileRate)} runs/s (5 chained jobs each)`);
const results: [string, Figures][] = [["pglite", await onPglite()]];
if (url) results.push(["postgres", await onPostgres(url)]);
for (const [store, f] of results) {
  const ratio = graphileRate === undefined ? "n/a" : (f.runsPerS / graphileRate).toFixed(3);
  console.log(
    `workflow-durable: store=${store} hookline_runs_per_s=${fmt(f.runsPerS)} graphile_runs_per_s=${graphileRate === undefined ? "n/a" : fmt(graphileRate)} ratio=${ratio} step_overhead_ms=${f.stepOverheadMs.toFixed(3)}`,
  );
}
