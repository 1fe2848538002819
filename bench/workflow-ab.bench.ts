/**
 * npm run bench:workflow-ab — bench:workflow's HTTP-triggered three-step workflow (memory store)
 * run by several checkouts of Hookline in ONE process, interleaved: round after round, each
 * checkout serves `BENCH_N` requests and the server's CPU time per execution is taken; the line
 * gives each checkout's median over `BENCH_ROUNDS` rounds. On a shared, loaded machine the absolute
 * figures move with the load, but every checkout sees the same load, so their ratio holds where two
 * runs of bench:workflow one after the other differ by 30 %. This is how the drop from 2026-11-28's
 * figures was told from a change of machine (docs/benchmarks.md).
 *
 * Each checkout is a folder holding a tree of Hookline with its `node_modules` (packages resolve
 * each other through it, so two checkouts never share a module). To make one from a commit:
 *
 *   mkdir -p /tmp/ab/old && git archive <commit> | tar -x -C /tmp/ab/old
 *   cp -al node_modules /tmp/ab/old/ && cp -al packages/runtime/node_modules /tmp/ab/old/packages/runtime/
 *
 * (hard links: no copy; the workspace links in `node_modules/@hookline` are relative, so they point
 * into the new tree). Then:
 *
 *   BENCH_TREES=/tmp/ab/old,. npm run bench:workflow-ab
 *
 * Env: BENCH_TREES (comma-separated folders; `.` is this checkout), BENCH_N (200 executions per
 * round and checkout), BENCH_ROUNDS (12), BENCH_CONCURRENCY (8), BENCH_HTTP=0 (call the fetch
 * handler directly instead of through `node:http` and the node adapter; the client then runs in
 * the same process either way, and its cost is the same for every checkout).
 * One line: `workflow-ab: <tree>=<median us/execution> ... ratio=<last/first>`.
 */
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_HANDLER_OPTIONS, BODY, createBenchWorkflow } from "./_workflow-setup.js";

const TREES = (process.env.BENCH_TREES ?? ".").split(",").map((t) => resolve(t.trim()));
const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const HTTP = process.env.BENCH_HTTP !== "0";

/** A module of a checkout's package, by its source file. */
const source = (tree: string, pkg: string, file = "index.ts") =>
  import(pathToFileURL(`${tree}/packages/${pkg}/src/${file}`).href);

/** Runs `count` requests with CONCURRENCY in flight. */
async function spread(count: number, one: () => Promise<void>): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await one();
    }),
  );
}

/** What to close at the end (each checkout's engine, with its bundler service). */
const closers: (() => Promise<void>)[] = [];

/** One checkout's engine with the workflow created: a function that runs `n` executions. */
async function setup(tree: string): Promise<(n: number) => Promise<void>> {
  const { createHookline } = await source(tree, "engine");
  const { createHandler } = await source(tree, "http");
  const hookline = createHookline({
    secretsKey: "bench",
    baseUrl: "http://127.0.0.1:9",
    allowPrivateUrls: true,
  });
  await hookline.start();
  closers.push(() => hookline.close());
  const handler: (request: Request) => Promise<Response> = createHandler(hookline, BENCH_HANDLER_OPTIONS);
  const url = new URL((await createBenchWorkflow(hookline)).url);
  if (!HTTP) {
    const one = async () => {
      const res = await handler(
        new Request(url, { method: "POST", body: BODY, headers: { "content-type": "application/json" } }),
      );
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${tree}: ${res.status} ${text}`);
    };
    return (n) => spread(n, one);
  }
  const { toNodeListener } = await source(tree, "http", "adapters/node.ts");
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  server.unref();
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const one = () =>
    new Promise<void>((ok, fail) => {
      const req = request({ agent, host: "127.0.0.1", port, path: url.pathname, method: "POST" }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => (res.statusCode === 200 ? ok() : fail(new Error(`${tree}: ${text}`))));
      });
      req.setHeader("content-type", "application/json");
      req.on("error", fail);
      req.end(BODY);
    });
  return (n) => spread(n, one);
}

const runs: ((n: number) => Promise<void>)[] = [];
for (const tree of TREES) runs.push(await setup(tree));
// Warm every checkout (JIT, caches) before measuring any.
for (let i = 0; i < 3; i++) for (const run of runs) await run(200);
const times = runs.map((): number[] => []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, run] of runs.entries()) {
    const cpu = process.cpuUsage();
    await run(N);
    const used = process.cpuUsage(cpu);
    times[i]?.push((used.user + used.system) / N);
  }
  process.stderr.write(".");
}
process.stderr.write("\n");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const medians = times.map(median);
console.log(
  `workflow-ab: ${TREES.map((t, i) => `${t}=${(medians[i] ?? 0).toFixed(0)}us`).join(" ")} ` +
    `ratio=${((medians.at(-1) ?? 0) / (medians[0] ?? 1)).toFixed(3)} (CPU per execution, median of ${ROUNDS} rounds of ${N})`,
);
for (const close of closers) await close();
// Sockets of the keep-alive agents would keep the process alive.
process.exit(0);
