import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createHookline, type Hookline } from "@hookline/engine";
import { createSqlStore, pgPoolClient } from "@hookline/store-sql";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPg } from "../packages/store-sql/test/load-pg.js";
import type { NodeCommand, NodeReport } from "./multinode/node.js";

// Several Hookline nodes, each its own process, on one Postgres: deliveries, timers and a kill -9.
// Runs only when HOOKLINE_TEST_PG_URL points at a Postgres database (`.ci/run` sets it):
// HOOKLINE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx vitest run --project e2e multinode
const url = process.env.HOOKLINE_TEST_PG_URL;
const NODE_SCRIPT = fileURLToPath(new URL("./multinode/node.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));

const SOURCE = `export default { name: "Emitter", version: "0.1.0", props: { http: "$.interface.http" },
  run(e) { for (const item of e.body.items) this.$emit(item); } };`;
const TIMER_SOURCE = `export default { name: "Ticker", version: "0.1.0",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } },
  run(e) { this.$emit(e); } };`;

/** A loopback webhook receiver answering 200 at once; counts every hit and each distinct `webhook-id`. */
interface Receiver {
  url: string;
  hits: number;
  ids: Set<string>;
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  const r: Receiver = { url: "", hits: 0, ids: new Set(), close: async () => undefined };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      r.hits++;
      r.ids.add(String(req.headers["webhook-id"]));
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

/** One Hookline node in its own process (test/multinode/node.ts). */
class NodeProcess {
  readonly child: ChildProcess;
  readonly errors: string[] = [];
  private readonly waiters: { match: (m: NodeReport) => boolean; resolve: (m: NodeReport) => void }[] = [];
  readonly exited: Promise<number | null>;

  constructor(schema: string, worker: object | false) {
    this.child = spawn(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", NODE_SCRIPT], {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: {
        ...process.env,
        HOOKLINE_TEST_PG_URL: url,
        HOOKLINE_MN_SCHEMA: schema,
        HOOKLINE_MN_WORKER: JSON.stringify(worker),
      },
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.child.on("message", (message: NodeReport) => {
      if ("error" in message) this.errors.push(message.error);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(message) || "error" in message) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    });
  }

  /** Resolves with the first report `match` accepts; rejects on an error report or an exit. */
  next(match: (m: NodeReport) => boolean): Promise<NodeReport> {
    return new Promise((resolve, reject) => {
      this.waiters.push({
        match,
        resolve: (m) => ("error" in m && !match(m) ? reject(new Error(m.error)) : resolve(m)),
      });
      void this.exited.then((code) => reject(new Error(`node exited (${code})`)));
    });
  }

  send(command: NodeCommand): void {
    this.child.send(command);
  }

  async emit(endpointId: string, count: number, offset: number, batch = 10): Promise<void> {
    const done = this.next((m) => "emitted" in m);
    this.send({ emit: { endpointId, count, batch, offset } });
    await done;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.send({ stop: true });
    await this.exited;
  }

  async kill(): Promise<void> {
    this.child.kill("SIGKILL");
    await this.exited;
  }
}

async function startNodes(schema: string, count: number, worker: object | false): Promise<NodeProcess[]> {
  const nodes = Array.from({ length: count }, () => new NodeProcess(schema, worker));
  await Promise.all(nodes.map((n) => n.next((m) => "ready" in m)));
  return nodes;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until every receiver saw `expected` distinct event ids; logs progress every 10 s. */
async function allArrived(receivers: Receiver[], expected: number, timeoutMs: number, label: string) {
  const started = Date.now();
  let lastLog = started;
  for (;;) {
    const arrived = receivers.reduce((sum, r) => sum + r.ids.size, 0);
    if (receivers.every((r) => r.ids.size >= expected)) return;
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${label}: only ${arrived} of ${expected * receivers.length} deliveries arrived`);
    }
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      console.log(`${label}: ${arrived}/${expected * receivers.length} after ${Date.now() - started} ms`);
    }
    await sleep(50);
  }
}

function duplicates(receivers: Receiver[]): { hits: number; unique: number; duplicates: number } {
  const hits = receivers.reduce((sum, r) => sum + r.hits, 0);
  const unique = receivers.reduce((sum, r) => sum + r.ids.size, 0);
  return { hits, unique, duplicates: hits - unique };
}

describe.skipIf(!url)("many nodes on one Postgres", () => {
  const schema = `hl_mn_${randomBytes(6).toString("hex")}`;
  let admin: Pool | undefined;
  let pool: Pool | undefined;
  let hookline: Hookline;
  const nodes: NodeProcess[] = [];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    const pg = loadPg();
    admin = new pg.Pool({ connectionString: url, max: 2 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
    // The test's own engine does the setup only: no worker, never started (no timer loop).
    const store = await createSqlStore(pgPoolClient(pool));
    hookline = createHookline({ store, secretsKey: "multinode", allowPrivateUrls: true, worker: false });
  });

  afterAll(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.kill()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    await hookline?.close();
    await pool?.end();
    if (admin) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  /** A workspace with an HTTP source subscribed by `count` webhooks on fresh loopback receivers. */
  async function setup(name: string, count: number) {
    const ws = (await hookline.workspaces.create({ name })).id;
    const source = await hookline.sources.deploy(ws, { code: { code: SOURCE, filename: "emitter.mjs" } });
    const mine: Receiver[] = [];
    for (let i = 0; i < count; i++) {
      const r = await receiver();
      receivers.push(r);
      mine.push(r);
      const webhook = await hookline.webhooks.create(ws, { url: r.url });
      await hookline.subscriptions.create(ws, { emitterId: source.id, listenerId: webhook.id });
    }
    return { ws, endpointId: source.endpointId as string, receivers: mine };
  }

  async function stopAll() {
    await Promise.all(nodes.splice(0).map((n) => n.stop()));
  }

  it("three nodes deliver 10,000 events to 5 webhooks: every pair arrives, duplicates reported", async () => {
    const { endpointId, receivers: mine } = await setup("spread", 5);
    nodes.push(
      ...(await startNodes(schema, 3, {
        concurrency: 256,
        perWebhookConcurrency: 256,
        attemptTimeoutMs: 5_000,
        pollIntervalMs: 100,
      })),
    );
    const started = Date.now();
    const shares = [3334, 3333, 3333];
    let offset = 0;
    await Promise.all(
      nodes.map((node, i) => {
        const count = shares[i] as number;
        const emitted = node.emit(endpointId, count, offset);
        offset += count;
        return emitted;
      }),
    );
    const emittedMs = Date.now() - started;
    console.log(`10k: emitted in ${emittedMs} ms`);
    await allArrived(mine, 10_000, 220_000, "10k");
    const deliveredMs = Date.now() - started;
    await sleep(500); // late duplicates, if any
    const seen = duplicates(mine);
    console.log(
      `multinode: 10,000 events x 5 webhooks over 3 nodes: emitted in ${emittedMs} ms, all ${seen.unique} ` +
        `delivered in ${deliveredMs} ms (${Math.round(seen.unique / (deliveredMs / 1000))}/s); ` +
        `${seen.hits} requests, duplicates ${seen.duplicates} (${((100 * seen.duplicates) / seen.unique).toFixed(3)} %)`,
    );
    expect(seen.unique).toBe(50_000);
    expect(seen.duplicates / seen.unique).toBeLessThanOrEqual(0.001);
    for (const node of nodes) expect(node.errors).toEqual([]);
    await stopAll();
  }, 240_000);

  it("a node killed with SIGKILL mid-delivery loses nothing: the others finish its deliveries", async () => {
    const { endpointId, receivers: mine } = await setup("crash", 5);
    // A short lease, so the sweep returns the dead node's claims quickly; slow polls keep it claiming.
    const worker = { concurrency: 32, perWebhookConcurrency: 32, attemptTimeoutMs: 2_000, leaseMs: 5_000 };
    nodes.push(...(await startNodes(schema, 2, { ...worker, pollIntervalMs: 100 })));
    const [victim, survivor] = nodes as [NodeProcess, NodeProcess];
    const started = Date.now();
    await Promise.all([victim.emit(endpointId, 1000, 0), survivor.emit(endpointId, 1000, 1000)]);
    const total = 2000 * 5;
    const arrivedNow = () => mine.reduce((sum, r) => sum + r.ids.size, 0);
    while (arrivedNow() < total * 0.3) await sleep(5);
    const atKill = arrivedNow();
    await victim.kill();
    nodes.splice(nodes.indexOf(victim), 1);
    // The same node restarted joins the survivor.
    nodes.push(...(await startNodes(schema, 1, { ...worker, pollIntervalMs: 100 })));
    await allArrived(mine, 2000, 90_000, "crash");
    const seen = duplicates(mine);
    console.log(
      `multinode crash: killed a node at ${atKill}/${total} arrived; all ${seen.unique} delivered ` +
        `${Date.now() - started} ms after the first emit; duplicates ${seen.duplicates} ` +
        `(re-sent after the kill: deliveries the dead node had in flight)`,
    );
    expect(seen.unique).toBe(total);
    // Re-sent rows may still be completing: every row ends succeeded (none failed, none stuck).
    const states = async () =>
      (
        await (pool as Pool).query(
          `SELECT state, count(*)::int AS n FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE w.url = ANY($1) GROUP BY state ORDER BY state`,
          [mine.map((r) => r.url)],
        )
      ).rows;
    const until = Date.now() + 30_000;
    while ((await states()).length > 1 && Date.now() < until) await sleep(200);
    expect(await states()).toEqual([{ state: "succeeded", n: total }]);
    await stopAll();
  }, 150_000);

  it("a 1-second timer ticks exactly once per instant across three nodes; NOTIFY wakes idle workers", async () => {
    const ws = (await hookline.workspaces.create({ name: "timer" })).id;
    // Workers that poll once a minute: after their first poll, only a NOTIFY wakes them.
    nodes.push(...(await startNodes(schema, 3, { pollIntervalMs: 60_000 })));
    const source = await hookline.sources.deploy(ws, {
      code: { code: TIMER_SOURCE, filename: "ticker.mjs" },
    });
    const deployedAt = Date.now();

    // Meanwhile, the test's own engine (no worker) emits to a webhook: the outbox's NOTIFY must wake
    // one of the sleeping workers in the other processes.
    const wake = await setup("wake", 1);
    await sleep(500); // the nodes' first polls are done
    const emittedAt = Date.now();
    const items = Array.from({ length: 50 }, (_, n) => ({ n }));
    const response = await hookline.ingress(wake.endpointId, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ items }),
    });
    expect(response.status).toBe(200);
    await allArrived(wake.receivers, 50, 10_000, "wake");
    console.log(
      `multinode wake: 50 deliveries by sleeping workers ${Date.now() - emittedAt} ms after the emit`,
    );

    await sleep(Math.max(0, 5_500 - (Date.now() - deployedAt)));
    await hookline.sources.deactivate(ws, source.id);
    await stopAll();
    const { rows } = await (pool as Pool).query(
      "SELECT (body::jsonb->>'timestamp')::bigint AS ts FROM events WHERE emitter_id = $1 ORDER BY seq",
      [source.id],
    );
    const stamps = rows.map((row) => Number(row.ts));
    console.log(`multinode timer: ${stamps.length} ticks in ~5.5 s across 3 nodes: ${stamps.join(", ")}`);
    expect(stamps.length).toBeGreaterThanOrEqual(3);
    expect(new Set(stamps).size).toBe(stamps.length);
  }, 60_000);
});
