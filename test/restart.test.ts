import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { verifyWebhook } from "@hookline/delivery";
import { createHookline, type EngineWorkerOptions, type Hookline } from "@hookline/engine";
import type { Store } from "@hookline/store";
import { createSqlStore, openPglite, pgliteClient } from "@hookline/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchDeliveries } from "../packages/delivery/test/worker-driver.js";

// Restart persistence: an engine on a PGlite data folder is stopped and a new one opened on the same
// folder (as `pd serve` restarting). Everything must be there, and delivery must resume.

const SOURCE = `export default {
  name: "Keeper", version: "0.1.0",
  props: {
    http: "$.interface.http",
    db: "$.service.db",
    token: { type: "string", secret: true },
    label: { type: "string" },
  },
  hooks: { async deploy() { this.db.set("deployedWith", this.label); } },
  async run(e) {
    const count = (this.db.get("count") ?? 0) + 1;
    this.db.set("count", count);
    this.$emit({ n: e.body.n, count, tokenLength: this.token.length, label: this.label });
  },
};`;
const TOKEN = "s3cr3t-token-value";
const SECRETS_KEY = "restart-test-key";
// A failed attempt is retried 300 ms later; the receiver stays down until the restart.
const WORKER: EngineWorkerOptions = { pollIntervalMs: 50, retrySchedule: [300, 300, 300], jitter: 0 };

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A free loopback port (nothing listens on it once this resolves). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function receiver(port: number, received: Received[]): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return server;
}

const until = async (predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("restart on the same PGlite folder", () => {
  let dir: string;
  let db: PGlite | undefined;
  let store: Store | undefined;
  let hookline: Hookline | undefined;
  let server: Server | undefined;
  let watched: ReturnType<typeof watchDeliveries>;

  /**
   * Opens the data folder and an engine on it, as a server start does; `watch`: its worker's claims
   * are watched (`watched.settle`), and it polls only when woken.
   */
  async function start(watch = false): Promise<Hookline> {
    db = await openPglite(dir);
    store = await createSqlStore(pgliteClient(db));
    watched = watchDeliveries(store);
    const worker = watch ? { ...WORKER, pollIntervalMs: 3_600_000, onAttempt: watched.onAttempt } : WORKER;
    hookline = createHookline({
      store: watch ? watched.store : store,
      secretsKey: SECRETS_KEY,
      allowPrivateUrls: true,
      worker,
    });
    return hookline;
  }

  /** Closes the engine, the store and the database, as a server stop does. */
  async function stop(): Promise<void> {
    await hookline?.close();
    await store?.close();
    await db?.close();
    hookline = undefined;
    store = undefined;
    db = undefined;
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "hookline-restart-"));
  });

  afterAll(async () => {
    await stop();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps sources, props, db values, webhooks, subscriptions, events and pending deliveries; delivery resumes", async () => {
    const port = await freePort();
    const hookUrl = `http://127.0.0.1:${port}/hook`;

    // ---- first run: set up, emit, one failed attempt (the receiver is down), stop ----
    const first = await start(true);
    const ws = await first.workspaces.create({ name: "acme" });
    const source = await first.sources.deploy(ws.id, {
      code: { code: SOURCE, filename: "keeper.mjs" },
      props: { token: TOKEN, label: "blue" },
    });
    const webhook = await first.webhooks.create(ws.id, { url: hookUrl });
    const secret = await first.webhooks.secret(ws.id, webhook.id);
    const subscription = await first.subscriptions.create(ws.id, {
      emitterId: source.id,
      listenerId: webhook.id,
    });
    const post = (node: Hookline, n: number) =>
      node.ingress(source.endpointId as string, {
        method: "POST",
        path: "/",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n }),
      });
    expect((await post(first, 1)).status).toBe(200);
    // One attempt: connection refused, pending, retried in 300 ms (by then the worker is stopped).
    expect(await watched.settle(() => first.worker?.start())).toBe(1);
    await first.worker?.stop();
    expect((await post(first, 2)).status).toBe(200); // never attempted
    const eventsBefore = (await first.sources.events(ws.id, source.id)).items;
    expect(eventsBefore).toHaveLength(2);
    const pendingBefore = (await first.store.deliveries.list(ws.id, { state: "pending" })).items;
    expect(pendingBefore.map((d) => d.attempts).sort()).toEqual([0, 1]);
    await stop();

    // ---- second run on the same folder ----
    const second = await start();
    const sources = await second.sources.list(ws.id);
    expect(sources.map((s) => [s.id, s.slug, s.endpointId, s.active])).toEqual([
      [source.id, source.slug, source.endpointId, true],
    ]);
    expect(sources[0]?.props).toMatchObject({ label: "blue", token: "********" });
    const kv = await second.store.kv.list(source.id);
    expect(kv).toEqual([
      { key: "count", value: 2 },
      { key: "deployedWith", value: "blue" },
    ]);
    expect((await second.webhooks.list(ws.id)).map((w) => [w.id, w.url])).toEqual([[webhook.id, hookUrl]]);
    expect(await second.webhooks.secret(ws.id, webhook.id)).toBe(secret);
    expect((await second.subscriptions.list(ws.id)).map((s) => s.id)).toEqual([subscription.id]);
    const eventsAfter = (await second.sources.events(ws.id, source.id)).items;
    expect(eventsAfter).toEqual(eventsBefore);
    const pendingAfter = (await second.store.deliveries.list(ws.id, { state: "pending" })).items;
    expect(pendingAfter.map((d) => [d.id, d.attempts, d.eventId])).toEqual(
      pendingBefore.map((d) => [d.id, d.attempts, d.eventId]),
    );
    expect(pendingAfter.find((d) => d.attempts === 1)?.lastError).toMatch(/ECONNREFUSED|fetch failed/);

    // The receiver comes up; the real worker resumes and delivers both, signed with the same secret.
    const received: Received[] = [];
    server = await receiver(port, received);
    second.start();
    await until(() => received.length >= 2);
    expect(received.map((r) => JSON.parse(r.body).n).sort()).toEqual([1, 2]);
    for (const r of received) {
      expect(() => verifyWebhook(secret, r.headers as Record<string, string>, r.body)).not.toThrow();
    }
    await until(
      async () => (await second.store.deliveries.list(ws.id, { state: "succeeded" })).items.length === 2,
    );

    // The restored source runs with its decrypted secret prop and its db state.
    expect((await post(second, 3)).status).toBe(200);
    const [latest] = (await second.sources.events(ws.id, source.id)).items;
    expect(latest?.body).toEqual({ n: 3, count: 3, tokenLength: TOKEN.length, label: "blue" });
    await until(() => received.length === 3);
  }, 60_000);
});
