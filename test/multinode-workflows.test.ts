import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createHookline, type Hookline } from "@hookline/engine";
import type { Store } from "@hookline/store";
import { createSqlStore, pgPoolClient } from "@hookline/store-sql";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPg } from "../packages/store-sql/test/load-pg.js";
import type { NodeReport } from "./multinode/node.js";

// Durable workflow runs across nodes (issue 20): two nodes, each its own process, share a five-step
// workflow's runs on one Postgres; the node running some of them is killed (SIGKILL) mid-step. Every
// run finishes on the other node; no step that finished runs again; at most the interrupted step
// runs twice (steps tell a loopback receiver each time they start).
// HOOKLINE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx vitest run --project e2e multinode-workflows
const url = process.env.HOOKLINE_TEST_PG_URL;
const NODE_SCRIPT = fileURLToPath(new URL("./multinode/node.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LEASE_MS = 2_000;
const RUNS = 12;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback receiver of `?exe=&step=&attempt=` hits: the starts of each step of each run. */
async function startsReceiver() {
  const starts: { exe: string; step: string; attempt: number }[] = [];
  const server: Server = createServer((req, res) => {
    const q = new URL(req.url ?? "/", "http://x").searchParams;
    starts.push({
      exe: String(q.get("exe")),
      step: String(q.get("step")),
      attempt: Number(q.get("attempt")),
    });
    req.resume();
    res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/start`;
  return { base, starts, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A node (test/multinode/node.ts) with a short execution lease and no delivery worker. */
function startNode(
  schema: string,
  id: string,
): { id: string; child: ChildProcess; ready: Promise<void>; exited: Promise<unknown> } {
  const child = spawn(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", NODE_SCRIPT], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: {
      ...process.env,
      HOOKLINE_TEST_PG_URL: url,
      HOOKLINE_MN_SCHEMA: schema,
      HOOKLINE_MN_WORKER: "false",
      HOOKLINE_MN_LEASE_MS: String(LEASE_MS),
      HOOKLINE_MN_NODE_ID: id,
    },
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.on("message", (m: NodeReport) => ("ready" in m ? resolve() : undefined));
    void exited.then(() => reject(new Error("node exited before it was ready")));
  });
  return { id, child, ready, exited };
}

const STEP = (base: string) => `export default defineComponent({ async run({ $ }) {
  const c = $.context;
  await fetch("${base}?exe=" + c.execution_id + "&step=" + c.step + "&attempt=" + c.attempt);
  await new Promise((resolve) => setTimeout(resolve, 250));
  return c.step;
} })`;

describe.skipIf(!url)("durable workflow runs on two nodes", () => {
  const schema = `hl_mnwf_${randomBytes(6).toString("hex")}`;
  let admin: Pool | undefined;
  let pool: Pool | undefined;
  let hookline: Hookline;
  let store: Store;
  const nodes: ReturnType<typeof startNode>[] = [];
  let receiver: Awaited<ReturnType<typeof startsReceiver>> | undefined;

  beforeAll(async () => {
    const pg = loadPg();
    admin = new pg.Pool({ connectionString: url, max: 2 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
    // The test's own engine sets up and queues the runs; never started, it runs none of them.
    store = await createSqlStore(pgPoolClient(pool));
    hookline = createHookline({ store, secretsKey: "multinode", allowPrivateUrls: true, worker: false });
  });

  afterAll(async () => {
    for (const node of nodes.splice(0)) {
      node.child.kill("SIGKILL");
      await node.exited;
    }
    await receiver?.close();
    await hookline?.close();
    await pool?.end();
    if (admin) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  it("kill -9 mid-run: every run finishes on the other node, finished steps never rerun", {
    timeout: 120_000,
  }, async () => {
    receiver = await startsReceiver();
    const ws = (await hookline.workspaces.create({ name: "durable" })).id;
    const names = ["one", "two", "three", "four", "five"];
    const wf = await hookline.workflows.create(ws, {
      name: "five steps",
      trigger: { type: "manual" },
      retry: { count: 0 },
      steps: names.map((name) => ({ name, component_code: STEP(receiver?.base ?? "") })),
    });
    nodes.push(startNode(schema, "node_a"), startNode(schema, "node_b"));
    await Promise.all(nodes.map((n) => n.ready));
    const runs = [];
    // Queued in the store (this process's engine would claim what it enqueues): the nodes claim them.
    for (let i = 0; i < RUNS; i++) {
      const exe = await store.executions?.create({
        workspaceId: ws,
        workflowId: wf.id,
        trigger: "manual",
        event: { i },
        status: "queued",
        steps: names.map((name) => ({ name, status: "pending" as const, logs: [], attempts: 0 })),
      });
      runs.push(exe?.id as string);
    }

    // Kill the node running some run once that run is past its second step.
    let victim: string | undefined;
    for (let i = 0; i < 400 && !victim; i++) {
      await sleep(25);
      const page = await hookline.workflows.executions(ws, wf.id, { status: "running", limit: 100 });
      const exe = page.items.find((e) => e.steps.filter((s) => s.status === "succeeded").length >= 2);
      if (exe) victim = (await store.executions?.get(ws, exe.id))?.leaseOwner;
    }
    const killed = nodes.find((n) => n.id === victim);
    if (!killed) throw new Error(`no node runs a run past its second step (owner ${victim})`);
    killed.child.kill("SIGKILL");
    await killed.exited;
    const held = [];
    for (const id of runs) {
      const exe = await store.executions?.get(ws, id);
      if (exe?.status === "running" && exe.leaseOwner === victim) held.push(id);
    }
    const deadline = Date.now() + 60_000;
    let finished = 0;
    while (Date.now() < deadline) {
      const page = await hookline.workflows.executions(ws, wf.id, { limit: 100 });
      finished = page.items.filter((e) => e.status === "succeeded").length;
      if (finished === RUNS) break;
      await sleep(200);
    }
    expect(finished).toBe(RUNS);

    let twice = 0;
    let takenOver = 0;
    for (const id of runs) {
      const exe = await hookline.workflows.execution(ws, wf.id, id);
      expect(exe.steps.map((s) => s.returnValue)).toEqual(names);
      const starts = receiver.starts.filter((s) => s.exe === id);
      const perStep = names.map((name) => starts.filter((s) => s.step === name).length);
      // Every step started once, but for at most one: the step its node died in, started twice,
      // its second start seen as attempt 2 and recorded as such.
      expect(
        perStep.every((n) => n === 1 || n === 2),
        `${id}: ${perStep}`,
      ).toBe(true);
      const again = names.filter((_, i) => perStep[i] === 2);
      expect(again.length, `${id}: ${perStep}`).toBeLessThanOrEqual(1);
      for (const name of again) {
        // Its record counts every try that started (one may have died before it reached the
        // receiver); each earlier one is recorded as interrupted.
        const record = exe.steps.find((s) => s.name === name);
        const seen = starts.filter((s) => s.step === name).map((s) => s.attempt);
        expect(seen[0]).toBeLessThan(seen[1] as number);
        expect(record?.attempts).toBe(seen[1]);
        expect(record?.attemptErrors?.map((e) => e.code)).toEqual(
          Array((record?.attempts ?? 1) - 1).fill("interrupted"),
        );
        twice++;
      }
      if (exe.steps.some((s) => s.attempts >= 2)) takenOver++;
    }
    // The runs the killed node held all finished on the other one (a run it held between two steps
    // resumes at the next with attempt 1; one it held mid-step reruns that step as attempt 2).
    expect(held.length).toBeGreaterThan(0);
    for (const id of held) {
      expect((await hookline.workflows.execution(ws, wf.id, id)).status).toBe("succeeded");
    }
    console.log(
      `multinode workflows: ${RUNS} five-step runs on 2 nodes, one killed mid-run (holding ${held.length}): all finished on the other node; ${takenOver} reran an interrupted step (${twice} steps started twice)`,
    );
  });
});
