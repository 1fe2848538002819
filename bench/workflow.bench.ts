/**
 * npm run bench:workflow — an HTTP-triggered workflow of three steps (a code step, an action that
 * calls `$.export`, a code step that calls `$.respond`) under concurrent load, on the memory store
 * and on PGlite (every execution and step recorded), against a baseline measured in the same run:
 * the same three functions called directly behind `node:http`. The load comes from another
 * process (bench/_load.mjs) over keep-alive sockets; latency is request sent to response read.
 * The workload is bench/_workflow-setup.ts's. One line per store:
 * `workflow(<store>): executions_per_s=<n> p99_ms=<n> baseline_per_s=<n> baseline_p99_ms=<n> ratio=<x>`.
 *
 * Env: BENCH_REQUESTS (3000 per measure), BENCH_CONCURRENCY (32), BENCH_STORES (memory,pglite),
 * BENCH_PGLITE=in-process (PGlite in the server's thread instead of its own, as before).
 */
import { fork } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHookline } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import { toNodeListener } from "@hookline/http/node";
import {
  createSqlStore,
  openPglite,
  openPgliteThread,
  pgliteClient,
  type SqlClient,
} from "@hookline/store-sql";
import { BENCH_HANDLER_OPTIONS, BODY, createBenchWorkflow } from "./_workflow-setup.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP = 300;

/** The baseline: the same three functions, called in order with a `steps` object and a `$`. */
function baselineHandler(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    const event = {
      method: req.method,
      path: req.url,
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
    };
    const steps: Record<string, Record<string, unknown>> = { trigger: { event } };
    const $ = (name: string) => ({
      export: (key: string, value: unknown) => {
        const step = steps[name] ?? {};
        step[key] = value;
        steps[name] = step;
      },
      respond: async (r: { status: number; headers: Record<string, string>; body: unknown }) => {
        res.writeHead(r.status, r.headers).end(JSON.stringify(r.body));
      },
    });
    const total = async ({ steps: s }: { steps: any }) => {
      const items = s.trigger.event.body.items as Array<{ price: number; qty: number }>;
      return { count: items.length, total: items.reduce((n, i) => n + i.price * i.qty, 0) };
    };
    const tax = async function (
      this: { total: number; rate: number },
      { $: d }: { $: ReturnType<typeof $> },
    ) {
      const t = Math.round((this.total * this.rate) / 100);
      d.export("tax", t);
      return { gross: this.total + t };
    };
    const respond = async ({ steps: s, $: d }: { steps: any; $: ReturnType<typeof $> }) => {
      await d.respond({
        status: 200,
        headers: { "content-type": "application/json" },
        body: { count: s.total.$return_value.count, tax: s.tax.tax, gross: s.tax.$return_value.gross },
      });
    };
    steps.total = { $return_value: await total({ steps }) };
    const props = { total: (steps.total.$return_value as { total: number }).total, rate: 20 };
    const gross = await tax.call(props, { $: $("tax") });
    steps.tax = { ...steps.tax, $return_value: gross };
    steps.respond = { $return_value: await respond({ steps, $: $("respond") }) };
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const close = (server: Server) =>
  new Promise<void>((ok) => {
    server.closeAllConnections();
    server.close(() => ok());
  });

interface LoadResult {
  perS: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  errors: number;
  sample?: string;
  /** CPU time of this (the server's) process per request, microseconds: independent of other load. */
  cpuUs?: number;
}

/** Loads `url` with `count` requests and measures this process's CPU time meanwhile. */
async function measured(url: string, count: number): Promise<LoadResult> {
  const cpu = process.cpuUsage();
  const result = await load(url, count, expected);
  const used = process.cpuUsage(cpu);
  return { ...result, cpuUs: (used.user + used.system) / count };
}

const loader = fork(new URL("./_load.mjs", import.meta.url));
await new Promise((ok) => loader.once("message", ok));
const load = (url: string, count: number, expect?: string) =>
  new Promise<LoadResult>((resolve) => {
    loader.once("message", (m: LoadResult) => resolve(m));
    loader.send({ url, count, concurrency: CONCURRENCY, body: BODY, expect });
  });

/** What both answer, computed by the baseline once. */
let expected = "";

async function baseline(): Promise<LoadResult> {
  const server = createServer(baselineHandler);
  const url = await listen(server);
  const probe = await fetch(url, {
    method: "POST",
    body: BODY,
    headers: { "content-type": "application/json" },
  });
  expected = await probe.text();
  await load(url, WARMUP, expected);
  const result = await measured(url, REQUESTS);
  await close(server);
  return result;
}

async function workflow(store: "memory" | "pglite"): Promise<LoadResult> {
  let listener: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => listener?.(req, res));
  const base = await listen(server);
  // PGlite on its own thread, as `pd serve` opens it; BENCH_PGLITE=in-process for the old way.
  let db: { client: SqlClient; close: () => Promise<void> } | undefined;
  if (store === "pglite" && process.env.BENCH_PGLITE === "in-process") {
    const lite = await openPglite();
    db = { client: pgliteClient(lite), close: () => lite.close() };
  } else if (store === "pglite") {
    const thread = await openPgliteThread();
    db = { client: thread, close: () => thread.close() };
  }
  const sqlStore = db ? await createSqlStore(db.client) : undefined;
  const hookline = createHookline({
    secretsKey: "bench",
    baseUrl: base,
    allowPrivateUrls: true,
    ...(sqlStore ? { store: sqlStore } : {}),
  });
  try {
    await hookline.start();
    return await measure(hookline, (handler) => {
      listener = handler;
    });
  } finally {
    listener = undefined;
    await close(server);
    await hookline.close();
    await sqlStore?.close();
    await db?.close();
  }
}

/** Creates the workflow, loads its endpoint, and checks that the runs were recorded. */
async function measure(
  hookline: ReturnType<typeof createHookline>,
  serve: (handler: (req: IncomingMessage, res: ServerResponse) => void) => void,
): Promise<LoadResult> {
  serve(toNodeListener(createHandler(hookline, BENCH_HANDLER_OPTIONS)));
  const { workspaceId, workflowId, url } = await createBenchWorkflow(hookline);
  await load(url, WARMUP, expected);
  const result = await measured(url, REQUESTS);
  // Every run was recorded with its three steps.
  const runs = await hookline.workflows.executions(workspaceId, workflowId, { limit: 100 });
  const last = runs.items[0];
  if (last?.status !== "succeeded" || last.steps.some((step) => step.status !== "succeeded")) {
    throw new Error(`the last execution was not recorded as succeeded: ${JSON.stringify(last)}`);
  }
  return result;
}

const fmt = (n: number) => n.toFixed(n >= 100 ? 0 : 2);
const lines: string[] = [];
const STORES = (process.env.BENCH_STORES ?? "memory,pglite").split(",") as Array<"memory" | "pglite">;
for (const store of STORES) {
  const base = await baseline();
  let ours: LoadResult;
  try {
    ours = await workflow(store);
  } catch (error) {
    // Said, not skipped: the line names the store and why, and the run exits 1.
    lines.push(`workflow(${store}): not measured: ${(error as Error).message}`);
    process.exitCode = 1;
    continue;
  }
  if (ours.errors > 0 || base.errors > 0) {
    throw new Error(
      `${store}: ${ours.errors} workflow and ${base.errors} baseline responses differ from ${expected}; e.g. ${ours.sample ?? base.sample}`,
    );
  }
  console.log(
    `${store}: workflow ${fmt(ours.perS)} executions/s (p50 ${fmt(ours.p50)} ms, p99 ${fmt(ours.p99)} ms); ` +
      `node:http baseline ${fmt(base.perS)} req/s (p99 ${fmt(base.p99)} ms); ${REQUESTS} requests, concurrency ${CONCURRENCY}; ` +
      `server CPU per request: workflow ${fmt(ours.cpuUs ?? 0)} us, baseline ${fmt(base.cpuUs ?? 0)} us`,
  );
  lines.push(
    `workflow(${store}): executions_per_s=${fmt(ours.perS)} p99_ms=${fmt(ours.p99)} baseline_per_s=${fmt(base.perS)} baseline_p99_ms=${fmt(base.p99)} ratio=${(ours.perS / base.perS).toFixed(3)} cpu_us_per_exe=${fmt(ours.cpuUs ?? 0)} cpu_exe_per_s=${fmt(1e6 / (ours.cpuUs ?? 1))}`,
  );
}
loader.send({ stop: true });
console.log("targets: executions_per_s >= 1000 (memory), >= 440 (pglite)");
for (const line of lines) console.log(line);
