// The server side of `npm run bench:ingress`, in its own process (as `pd serve` is): either a bare
// `node:http` JSON handler (the baseline) or Hookline behind its node adapter, on one store.
// argv: <mode: bare|hookline> <store: memory|pglite|postgres> <receiver url> [breakdown]
// It sends { port, path } once listening; on { report: true } it answers with its counters
// (store calls per method, time in the sandbox, in the store, in delivery); on { stop: true } it exits.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";

const [mode, storeKind, receiverUrl, breakdownArg] = process.argv.slice(2) as [
  string,
  string,
  string,
  string?,
];
const breakdown = breakdownArg === "breakdown";

/**
 * The CPU time (ms) of every Postgres server process on this machine so far (their backends, WAL
 * writer, checkpointer...), read from /proc: what a request costs the database, beside the server's
 * own CPU. Zero where /proc is missing. Other sessions' use of the same Postgres counts too.
 */
function postgresCpuMs(): number {
  let ticks = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (comm !== "postgres") continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux.
}
const send = (msg: unknown) => process.send?.(msg);

/** The 50th, 90th and 99th percentiles of `values` (ms). */
function percentiles(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return [0.5, 0.9, 0.99].map((q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0);
}

if (mode === "bare") {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" }).end('{"success":true}');
    });
  });
  server.listen(0, "127.0.0.1", () => send({ port: (server.address() as AddressInfo).port, path: "/" }));
  process.on("message", (msg: { stop?: boolean; report?: boolean }) => {
    if (msg.report) send({ report: {} });
    if (msg.stop) server.close(() => process.exit(0));
  });
} else {
  const [{ createHookline }, { createHandler }, { toNodeListener }, sql, { createMemoryStore }] =
    await Promise.all([
      import("@hookline/engine"),
      import("@hookline/http"),
      import("@hookline/http/node"),
      import("@hookline/store-sql"),
      import("@hookline/store"),
    ]);
  type Store = ReturnType<typeof createMemoryStore>;
  type SqlClient = Parameters<typeof sql.createSqlStore>[0];
  // Breakdown: SQL statements (BEGIN and COMMIT not counted) and transactions the store sends.
  const sqlCounts = { statements: 0, transactions: 0 };
  // ... and each statement's count and wall time, by its first words.
  const statementTimes = new Map<string, { n: number; ms: number }>();
  const counted = (client: SqlClient): SqlClient => {
    if (!breakdown) return client;
    const wrapped: SqlClient = {
      ...client,
      query: (text, params) => {
        sqlCounts.statements++;
        const started = performance.now();
        const key = text.replace(/\s+/g, " ").trim().slice(0, 70);
        return client.query(text, params).finally(() => {
          const entry = statementTimes.get(key) ?? { n: 0, ms: 0 };
          entry.n++;
          entry.ms += performance.now() - started;
          statementTimes.set(key, entry);
        });
      },
    };
    const pipeline = client.pipeline?.bind(client);
    if (pipeline)
      wrapped.pipeline = (statements, options) => {
        sqlCounts.statements += statements.length;
        const started = performance.now();
        const key =
          `[pipeline] ${statements.map((s) => s.text.replace(/\s+/g, " ").trim().slice(0, 50)).join(" ; ")}`.slice(
            0,
            110,
          );
        return pipeline(statements, options).finally(() => {
          const entry = statementTimes.get(key) ?? { n: 0, ms: 0 };
          entry.n++;
          entry.ms += performance.now() - started;
          statementTimes.set(key, entry);
        });
      };
    const transaction = client.transaction?.bind(client);
    if (transaction)
      wrapped.transaction = (fn) => {
        sqlCounts.transactions++;
        return transaction((tx) => fn(counted(tx)));
      };
    if (client.background) wrapped.background = counted(client.background);
    return wrapped;
  };
  let store: Store;
  let cleanup: () => Promise<void> = async () => undefined;
  if (storeKind === "memory") store = createMemoryStore();
  else if (storeKind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "hl-ingress-"));
    // PGlite on its own thread, as `pd serve` opens it; BENCH_PGLITE=in-process for the old way.
    let client: SqlClient;
    let closeDb: () => Promise<void>;
    if (process.env.BENCH_PGLITE === "in-process") {
      const db = await sql.openPglite(join(dir, "pglite"));
      client = sql.pgliteClient(db);
      closeDb = () => db.close();
    } else {
      // BENCH_PROF=<dir>: the database thread is profiled too (the server's process is, by the bench).
      const prof = process.env.BENCH_PROF;
      const db = await sql.openPgliteThread(join(dir, "pglite"), {
        execArgv: prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : [],
      });
      client = db;
      closeDb = () => db.close();
    }
    store = await sql.createSqlStore(counted(client));
    cleanup = async () => {
      await closeDb();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const { default: pg } = await import("pg");
    const url = process.env.HOOKLINE_TEST_PG_URL as string;
    const schema = `hl_ingress_${process.pid}`;
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    // The pool `pd serve` makes (`new pg.Pool({ connectionString })`), on a schema of its own.
    const pool = new pg.Pool({
      connectionString: url,
      options: `-c search_path=${schema}${process.env.BENCH_PG_ASYNC ? " -c synchronous_commit=off" : ""}`,
    });
    store = await sql.createSqlStore(counted(sql.pgPoolClient(pool)));
    cleanup = async () => {
      await pool.end();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    };
  }

  // Breakdown: every store call counted and timed (wall time of each awaited call).
  const calls = new Map<string, { n: number; ms: number }>();
  let storeMs = 0;
  const timed = <T extends object>(name: string, target: T): T =>
    new Proxy(target, {
      get(obj, key, receiver) {
        const value = Reflect.get(obj, key, receiver);
        if (typeof value !== "function") return value;
        if (typeof key !== "string") return value;
        if (value.length === 0 && key === "close") return value.bind(obj);
        return (...args: unknown[]) => {
          const started = performance.now();
          const result = value.apply(obj, args);
          if (!(result instanceof Promise)) return result;
          return result.finally(() => {
            const ms = performance.now() - started;
            const entry = calls.get(`${name}.${key}`) ?? { n: 0, ms: 0 };
            entry.n++;
            entry.ms += ms;
            calls.set(`${name}.${key}`, entry);
            storeMs += ms;
          });
        };
      },
    });
  if (breakdown) {
    const wrapped = { ...store } as Record<string, unknown>;
    for (const [name, sub] of Object.entries(store)) {
      if (sub && typeof sub === "object" && name !== "notifications") wrapped[name] = timed(name, sub);
    }
    const queue = store.queue as unknown as Record<string, object>;
    wrapped.queue = { ...queue, deliveries: timed("queue.deliveries", queue.deliveries as object) };
    store = wrapped as unknown as Store;
  }

  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  const attempts = { n: 0, ms: 0 };
  const hookline = createHookline({
    store,
    // BENCH_SANDBOXES=pool: sandboxes on worker threads, as `pd serve` runs them by default.
    ...(process.env.BENCH_SANDBOXES === "pool" ? { sandboxes: { mode: "pool" as const } } : {}),
    secretsKey: "bench",
    baseUrl: `http://127.0.0.1:${port}`,
    allowPrivateUrls: true,
    worker: process.env.BENCH_NO_WORKER
      ? (false as const)
      : {
          ...(breakdown
            ? {
                onAttempt: ({ durationMs }: { durationMs?: number }) => {
                  attempts.n++;
                  attempts.ms += durationMs ?? 0;
                },
              }
            : {}),
        },
  });
  let sandboxMs = 0;
  let runs = 0;
  hookline.events.on("invocation", (e) => {
    runs++;
    sandboxMs += e.durationMs ?? 0;
  });
  await hookline.start();
  const ws = (await hookline.workspaces.create({ name: "bench" })).id;
  const source = await hookline.sources.deploy(ws, {
    code: {
      code: `export default { name: "Ingress", version: "0.1.0", props: { http: "$.interface.http" },
        run(e) { this.$emit(e.body); } };`,
    },
  });
  const webhook = await hookline.webhooks.create(ws, { url: receiverUrl });
  await hookline.subscriptions.create(ws, { emitterId: source.id, listenerId: webhook.id });
  // What `pd serve` mounts, without the per-endpoint and per-workspace rate limits: they would answer
  // 429 past 400 and 800 requests/s, and this measures what the stack accepts, not the caps.
  const listener = toNodeListener(
    createHandler(hookline, { ingressRateLimit: false, workspaceIngressRateLimit: false }),
  );
  // Breakdown: while a load runs (between { load: true } and { load: false }), each request's time in
  // the server (arrival to response sent), each emit commit's, and the event loop's delay.
  const latency = { on: false, server: [] as number[], commit: [] as number[] };
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  if (breakdown) {
    const commitRun = store.emits.commitRun.bind(store.emits);
    store.emits.commitRun = async (input) => {
      const started = performance.now();
      try {
        return await commitRun(input);
      } finally {
        if (latency.on) latency.commit.push(performance.now() - started);
      }
    };
  }
  server.on("request", (req, res) => {
    if (latency.on) {
      const started = performance.now();
      res.on("finish", () => latency.server.push(performance.now() - started));
    }
    listener(req, res);
  });
  process.on("message", (msg: { load?: boolean }) => {
    if (msg.load === undefined || !breakdown) return;
    latency.on = msg.load;
    if (msg.load) loopDelay.enable();
    else loopDelay.disable();
  });
  calls.clear();
  storeMs = 0;
  sqlCounts.statements = 0;
  sqlCounts.transactions = 0;
  const cpuAtStart = process.cpuUsage();
  send({ port, path: `/http/${source.endpointId}` });
  process.on("message", async (msg: { stop?: boolean; report?: boolean }) => {
    if (msg.report) {
      const cpu = process.cpuUsage(cpuAtStart);
      send({
        report: {
          runs,
          sandboxMs,
          storeMs,
          calls: Object.fromEntries(calls),
          attempts,
          cpuMs: (cpu.user + cpu.system) / 1000,
          dbCpuMs: postgresCpuMs(),
          ...sqlCounts,
          sql: Object.fromEntries(statementTimes),
          rssMb: process.memoryUsage().rss / 2 ** 20,
          latency: {
            server: percentiles(latency.server),
            commit: percentiles(latency.commit),
            loopDelay: [50, 90, 99].map((p) => loopDelay.percentile(p) / 1e6),
          },
        },
      });
    }
    if (msg.stop) {
      server.closeAllConnections();
      server.close();
      await hookline.close();
      await store.close();
      await cleanup();
      process.exit(0);
    }
  });
}
