/**
 * npm run bench:ingress — requests per second `pd serve`'s HTTP ingress accepts: a real HTTP server
 * (`@hookline/http/node`, in its own process, as `pd serve` runs it) with one HTTP source that emits
 * each request's body and one subscribed loopback webhook (a receiver in a third process), driven by
 * 10 concurrent keep-alive clients for BENCH_SECONDS (10). The baseline, measured in the same run with
 * the same load loop: a bare `node:http` JSON handler in its own process. Every store is run in turn:
 * memory, PGlite (a new data folder) and Postgres when HOOKLINE_TEST_PG_URL is set (a schema of its
 * own). After each load, the benchmark waits (up to 30 s) for every accepted request's event to reach
 * the receiver. One line per store (the pair with the median ratio, the median p99):
 * `ingress: store=<s> hookline_rps=<n> bare_rps=<n> ratio=<x> p99_ms=<n> delivered=<n>/<n> runs=<n> ratios=<x,...>`.
 *
 * Env: BENCH_SECONDS (10), BENCH_CLIENTS (10), BENCH_STORES (memory,pglite[,postgres]),
 * BENCH_REPEAT (3: pairs of bare and Hookline runs per store; the line gives the median ratio and
 * p99, and every pair's ratio), BENCH_BREAKDOWN=1 (store calls and SQL statements per request, time in the
 * sandbox, the store and delivery, the server's and Postgres's CPU per delivered request, over all
 * pairs; during the loads, the time a request spends in the server, in the emit commit, and the event
 * loop's delay), BENCH_NO_WORKER=1 (no delivery worker: what ingress alone
 * reaches; nothing is delivered then), BENCH_PG_ASYNC=1 (Postgres with `synchronous_commit=off`: what
 * waiting for the WAL flush of each commit costs; not a setting `pd serve` uses).
 */
import { type ChildProcess, fork } from "node:child_process";
import { performance } from "node:perf_hooks";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 10);
const BREAKDOWN = process.env.BENCH_BREAKDOWN === "1";
const REPEAT = Math.max(1, Number(process.env.BENCH_REPEAT ?? 3));
const stores = (
  process.env.BENCH_STORES ??
  ["memory", "pglite", ...(process.env.HOOKLINE_TEST_PG_URL ? ["postgres"] : [])].join(",")
)
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);

/** Waits for the first message of `child` matching `pick`. */
function message<T>(child: ChildProcess, pick: (m: Record<string, unknown>) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: Record<string, unknown>) => {
      const value = pick(m);
      if (value === undefined) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(value);
    };
    const onExit = (code: number) => reject(new Error(`child exited with ${code}`));
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

const receiver = fork(new URL("./_receiver.mjs", import.meta.url));
const receiverPort = await message(receiver, (m) => m.port as number | undefined);
const receiverUrl = `http://127.0.0.1:${receiverPort}/hook`;
/** How many requests the receiver got since the last reset. */
const received = (): Promise<number> => {
  const answer = message(receiver, (m) => (m.received === undefined ? undefined : (m.received as number)));
  receiver.send({ count: true });
  return answer;
};

async function startServer(mode: "bare" | "hookline", store: string) {
  const child = fork(
    new URL("./_ingress-server.ts", import.meta.url),
    [mode, store, receiverUrl, ...(BREAKDOWN ? ["breakdown"] : [])],
    process.env.BENCH_PROF && mode === "hookline"
      ? { execArgv: [...process.execArgv, "--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`] }
      : {},
  );
  const { port, path } = await message(child, (m) =>
    m.port === undefined ? undefined : (m as { port: number; path: string }),
  );
  return {
    port,
    path,
    /** Marks the start and end of a load (the breakdown's latencies are taken within). */
    load: (on: boolean) => child.send({ load: on }),
    report: () => {
      const r = message(child, (m) => m.report as Report | undefined);
      child.send({ report: true });
      return r;
    },
    stop: () => {
      const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
      child.send({ stop: true });
      return exited;
    },
  };
}

/** What the server child reports (totals since it started listening). */
interface Report {
  runs: number;
  sandboxMs: number;
  storeMs: number;
  cpuMs: number;
  /** Every Postgres process's CPU time on the machine (ms): the database's share. */
  dbCpuMs?: number;
  rssMb: number;
  /** Over the loads (breakdown): p50, p90, p99 of the server's time per request, of an emit commit, of the event loop's delay (ms). */
  latency?: { server: number[]; commit: number[]; loopDelay: number[] };
  statements?: number;
  transactions?: number;
  /** Per statement (its first words): count and wall time. */
  sql?: Record<string, { n: number; ms: number }>;
  attempts: { n: number; ms: number };
  calls: Record<string, { n: number; ms: number }>;
}

interface Load {
  ok: number;
  failed: number;
  rps: number;
  p99: number;
  p50: number;
  /** The slowest request (ms). */
  max: number;
}

/**
 * CLIENTS clients POSTing a small JSON body in a loop for `seconds` with `fetch` (undici, keep-alive:
 * the client of the issue's measurement and of bench:delivery's baseline); 2xx responses counted.
 */
async function drive(port: number, path: string, seconds: number): Promise<Load> {
  const url = `http://127.0.0.1:${port}${path}`;
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let n = 0;
  const post = async (): Promise<number> => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n: n++, at: Date.now(), payload: "x".repeat(100) }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const status = await post().catch(() => 0);
        latencies.push(performance.now() - t);
        if (status >= 200 && status < 300) ok++;
        else failed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  return { ok, failed, rps: ok / elapsed, p99: at(0.99), p50: at(0.5), max: latencies.at(-1) ?? 0 };
}

const round = (x: number, digits = 0) => Number(x.toFixed(digits));
const lines: string[] = [];

/** Waits until the receiver's count stops moving (at most 30 s); returns it. */
async function settled(): Promise<number> {
  const deadline = performance.now() + 30_000;
  let before = await received();
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await received();
    if (now === before || performance.now() > deadline) return now;
    before = now;
  }
}

/** The median of numbers (the lower middle one of an even count). */
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;

for (const store of stores) {
  // Both servers wait side by side, idle when not driven; each pair of runs drives the bare baseline
  // then Hookline with the same load loop, REPEAT times, so that a slow spell of the machine (the
  // figures swing by a quarter from one minute to the next on shared cores) shows in both.
  const bare = await startServer("bare", store);
  const server = await startServer("hookline", store);
  receiver.send({ expect: Number.POSITIVE_INFINITY });
  await drive(bare.port, bare.path, 1);
  await drive(server.port, server.path, Math.min(2, SECONDS)); // warmup: JIT, sandbox, pool
  await settled(); // the warmup's deliveries
  const pairs: { base: Load; load: Load; delivered: number; drainMs: number }[] = [];
  const r0 = await server.report();
  for (let round = 0; round < REPEAT; round++) {
    const base = await drive(bare.port, bare.path, SECONDS);
    const countBefore = await received();
    server.load(true);
    const load = await drive(server.port, server.path, SECONDS);
    server.load(false);
    const afterLoad = performance.now();
    let delivered = 0;
    while (performance.now() < afterLoad + 30_000) {
      delivered = (await received()) - countBefore;
      if (delivered >= load.ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    pairs.push({ base, load, delivered, drainMs: performance.now() - afterLoad });
  }
  const r1 = await server.report();
  await server.stop();
  await bare.stop();

  for (const { base, load, drainMs } of pairs) {
    console.log(
      `${store}: bare ${round(base.rps)} req/s (p99 ${round(base.p99, 1)} ms); hookline ${round(load.rps)} req/s accepted, ${load.failed} refused, p50 ${round(load.p50, 1)} ms, p99 ${round(load.p99, 1)} ms, max ${round(load.max)} ms, ratio ${round(load.rps / base.rps, 2)}; all delivered ${round(drainMs)} ms after the load`,
    );
  }
  if (BREAKDOWN) {
    const runs = r1.runs - r0.runs || 1;
    console.log(
      `  per request: sandbox ${round((r1.sandboxMs - r0.sandboxMs) / runs, 3)} ms, store calls (wall, overlapping) ${round((r1.storeMs - r0.storeMs) / runs, 3)} ms, server CPU ${round((r1.cpuMs - r0.cpuMs) / runs, 3)} ms${store === "postgres" ? `, Postgres CPU ${round(((r1.dbCpuMs ?? 0) - (r0.dbCpuMs ?? 0)) / runs, 3)} ms` : ""}; delivery attempts ${r1.attempts.n - r0.attempts.n} (${round((r1.attempts.ms - r0.attempts.ms) / Math.max(1, r1.attempts.n - r0.attempts.n), 2)} ms each); server RSS ${round(r1.rssMb)} MB`,
    );
    if (r1.latency) {
      const ms = (values: number[]) => values.map((v) => round(v, 2)).join("/");
      console.log(
        `  during the loads (p50/p90/p99 ms): in the server ${ms(r1.latency.server)}, of which the emit commit ${ms(r1.latency.commit)}; event loop delay ${ms(r1.latency.loopDelay)}`,
      );
    }
    if (r1.statements !== undefined)
      console.log(
        `  SQL: ${round((r1.statements - (r0.statements ?? 0)) / runs, 2)} statements/request (BEGIN and COMMIT not counted), ${round(((r1.transactions ?? 0) - (r0.transactions ?? 0)) / runs, 2)} transactions/request`,
      );
    const sqlRows = Object.entries(r1.sql ?? {})
      .map(([text, c]) => {
        const prev = r0.sql?.[text] ?? { n: 0, ms: 0 };
        return { text, n: c.n - prev.n, ms: c.ms - prev.ms };
      })
      .filter((c) => c.n > 0)
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 8);
    for (const c of sqlRows) {
      console.log(`  sql ${round(c.n / runs, 2)}/request, ${round(c.ms / c.n, 3)} ms each (wall): ${c.text}`);
    }
    for (const [name, c] of Object.entries(r1.calls).sort((a, b) => b[1].ms - a[1].ms)) {
      const prev = r0.calls[name] ?? { n: 0, ms: 0 };
      const n = c.n - prev.n;
      if (n === 0) continue;
      console.log(
        `  ${name.padEnd(32)} ${round(n / runs, 2)} calls/request, ${round((c.ms - prev.ms) / n, 3)} ms each`,
      );
    }
  }
  // The median pair by ratio: its figures, and whether every pair delivered everything.
  const ratios = pairs.map((p) => p.load.rps / p.base.rps);
  const mid = pairs[ratios.indexOf(median(ratios))] ?? pairs[0];
  if (!mid) continue;
  const delivered = pairs.reduce((n, p) => n + p.delivered, 0);
  const accepted = pairs.reduce((n, p) => n + p.load.ok, 0);
  lines.push(
    `ingress: store=${store} hookline_rps=${round(mid.load.rps)} bare_rps=${round(mid.base.rps)} ratio=${round(median(ratios), 2)} p99_ms=${round(median(pairs.map((p) => p.load.p99)), 1)} delivered=${delivered}/${accepted} runs=${pairs.length} ratios=${ratios.map((r) => round(r, 2)).join(",")}`,
  );
}
receiver.send({ stop: true });
console.log(
  "targets: ratio >= 0.3 (pglite, postgres), >= 0.5 (memory); p99 <= 50 ms (pglite); all delivered",
);
for (const line of lines) console.log(line);
