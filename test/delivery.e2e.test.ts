import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "@hookline/delivery";
import { createFakeClock, createHookline, type Hookline } from "@hookline/engine";
import { createMemoryStore } from "@hookline/store";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type WatchedDeliveries, watchDeliveries } from "../packages/delivery/test/worker-driver.js";

// End to end through the engine's public API: a source emits, the outbox writes deliveries, the
// engine's delivery worker POSTs them to real receivers on loopback. A fake clock drives retries;
// the worker's claims are watched (packages/delivery/test/worker-driver.ts) so that a test waits
// until it is idle, not for some time.

interface Receiver {
  url: string;
  bodies: string[];
  headers: Record<string, string | string[] | undefined>[];
  reply: (n: number) => { status: number; headers?: Record<string, string>; hang?: boolean };
  close(): Promise<void>;
}

async function receiver(reply: Receiver["reply"] = () => ({ status: 200 })): Promise<Receiver> {
  const r: Receiver = { url: "", bodies: [], headers: [], reply, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const answer = r.reply(r.bodies.length);
      r.bodies.push(Buffer.concat(chunks).toString("utf8"));
      r.headers.push(req.headers);
      if (answer.hang) return;
      res.writeHead(answer.status, answer.headers ?? {}).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

const SOURCE = `export default { name: "Emitter", version: "0.1.0", props: { http: "$.interface.http" },
  run(e) { for (const item of e.body.items) this.$emit(item, { name: item.channel }); } };`;

let clock: ReturnType<typeof createFakeClock>;
let hookline: Hookline;
let watched: WatchedDeliveries;
let ws: string;
const receivers: Receiver[] = [];

/**
 * A fresh engine. Attempts get 5 s by default: on a loaded CI machine a 300 ms attempt to a
 * loopback receiver has timed out, and the retry then waited on the fake clock. Only the test of a
 * hanging receiver asks for a short one.
 */
async function start(attemptTimeoutMs = 5_000) {
  // Near real time: the standardwebhooks package checks timestamps against the wall clock.
  clock = createFakeClock(Date.now());
  watched = watchDeliveries(createMemoryStore());
  hookline = createHookline({
    clock,
    store: watched.store,
    allowPrivateUrls: true,
    secretsKey: "e2e",
    worker: {
      attemptTimeoutMs,
      jitter: 0,
      perWebhookConcurrency: 8,
      pollIntervalMs: 3_600_000,
      onAttempt: watched.onAttempt,
    },
  });
  await hookline.start();
  ws = (await hookline.workspaces.create({ name: "e2e" })).id;
}

beforeEach(() => start());
afterEach(async () => {
  await hookline.close();
  for (const r of receivers.splice(0)) await r.close();
});

async function setup(count: number, reply?: Receiver["reply"], eventName?: string) {
  const source = await hookline.sources.deploy(ws, { code: { code: SOURCE } });
  const hooks = [];
  for (let i = 0; i < count; i++) {
    const r = await receiver(reply);
    receivers.push(r);
    const webhook = await hookline.webhooks.create(ws, { url: r.url });
    await hookline.subscriptions.create(ws, {
      emitterId: source.id,
      listenerId: webhook.id,
      ...(eventName ? { eventName } : {}),
    });
    hooks.push({ receiver: r, webhook });
  }
  const emit = (items: unknown[]) =>
    hookline.ingress(source.endpointId as string, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ items }),
    });
  return { source, hooks, emit };
}

/** Wakes the worker and waits until it is idle: nothing due now that it may send. */
async function drain() {
  await watched.settle(() => hookline.worker?.wake());
}

describe("delivery end to end", () => {
  it("three webhooks each get every event once, signed (verifyWebhook and standardwebhooks)", async () => {
    const { hooks, emit } = await setup(3);
    await emit([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await emit([{ n: 4 }]);
    await drain();
    for (const { receiver: r, webhook } of hooks) {
      expect(r.bodies.map((b) => JSON.parse(b).n).sort()).toEqual([1, 2, 3, 4]);
      const secret = await hookline.webhooks.secret(ws, webhook.id);
      r.bodies.forEach((body, i) => {
        const headers = r.headers[i] as Record<string, string>;
        expect(() => verifyWebhook(secret, headers, body, { now: clock.now() })).not.toThrow();
        expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
      });
    }
    await drain();
    expect(hooks.map((h) => h.receiver.bodies.length)).toEqual([4, 4, 4]);
  });

  it("signs with both secrets during a rotation", async () => {
    const { hooks, emit } = await setup(1);
    const { webhook, receiver: r } = hooks[0] as (typeof hooks)[number];
    const old = await hookline.webhooks.secret(ws, webhook.id);
    const fresh = await hookline.webhooks.rotateSecret(ws, webhook.id);
    await emit([{ n: 1 }]);
    await drain();
    const headers = r.headers[0] as Record<string, string>;
    expect(String(headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(() => new Webhook(secret).verify(r.bodies[0] as string, headers)).not.toThrow();
    }
  });

  it("retries a 500 on the schedule, then succeeds", async () => {
    const { hooks, emit } = await setup(1, (n) => ({ status: n === 0 ? 500 : 200 }));
    await emit([{ n: 1 }]);
    await drain();
    const r = (hooks[0] as (typeof hooks)[number]).receiver;
    expect(r.bodies).toHaveLength(1);
    clock.advance(4_000);
    await drain();
    expect(r.bodies).toHaveLength(1);
    clock.advance(1_000);
    await drain();
    expect(r.bodies).toHaveLength(2);
    const page = await hookline.webhooks.deliveries(ws, (hooks[0] as (typeof hooks)[number]).webhook.id);
    expect(page.items[0]).toMatchObject({ state: "succeeded", attempts: 2 });
    expect(page.items[0]?.attemptsLog.map((a) => a.status)).toEqual([500, 200]);
  });

  it("a 302 is a failure and is not followed; 410 disables the webhook; Retry-After is honoured", async () => {
    const redirect = await setup(1, () => ({
      status: 302,
      headers: { location: "http://127.0.0.1:1/elsewhere" },
    }));
    await redirect.emit([{ n: 1 }]);
    await drain();
    const r302 = redirect.hooks[0] as (typeof redirect.hooks)[number];
    const d302 = (await hookline.webhooks.deliveries(ws, r302.webhook.id)).items[0];
    expect(d302).toMatchObject({ state: "pending", lastStatus: 302 });
    expect(r302.receiver.bodies).toHaveLength(1);

    const gone = await setup(1, () => ({ status: 410 }));
    await gone.emit([{ n: 1 }]);
    await drain();
    const g = gone.hooks[0] as (typeof gone.hooks)[number];
    expect(await hookline.webhooks.get(ws, g.webhook.id)).toMatchObject({
      active: false,
      disabledReason: "gone",
    });

    const busy = await setup(1, (n) => ({ status: n === 0 ? 429 : 200, headers: { "retry-after": "120" } }));
    await busy.emit([{ n: 1 }]);
    await drain();
    const b = busy.hooks[0] as (typeof busy.hooks)[number];
    clock.advance(119_000);
    await drain();
    expect(b.receiver.bodies).toHaveLength(1);
    clock.advance(1_000);
    await drain();
    expect(b.receiver.bodies).toHaveLength(2);
  });

  it("a hanging receiver times out and is retried", async () => {
    await hookline.close();
    await start(300);
    const { hooks, emit } = await setup(1, (n) => (n === 0 ? { status: 200, hang: true } : { status: 200 }));
    await emit([{ n: 1 }]);
    await drain();
    const h = hooks[0] as (typeof hooks)[number];
    const first = (await hookline.webhooks.deliveries(ws, h.webhook.id)).items[0];
    expect(first).toMatchObject({ state: "pending", lastError: "timeout" });
    clock.advance(5_000);
    await drain();
    expect((await hookline.webhooks.deliveries(ws, h.webhook.id)).items[0]).toMatchObject({
      state: "succeeded",
    });
  });

  it("a channel subscription only gets its channel", async () => {
    const { hooks, emit } = await setup(1, undefined, "paid");
    await emit([{ n: 1, channel: "paid" }, { n: 2 }, { n: 3, channel: "refunded" }]);
    await drain();
    expect((hooks[0] as (typeof hooks)[number]).receiver.bodies.map((b) => JSON.parse(b).n)).toEqual([1]);
  });

  it("deleting a webhook mid-retry stops its deliveries", async () => {
    const { hooks, emit } = await setup(1, () => ({ status: 500 }));
    await emit([{ n: 1 }]);
    await drain();
    const h = hooks[0] as (typeof hooks)[number];
    await hookline.webhooks.delete(ws, h.webhook.id);
    clock.advance(60 * 60_000);
    await drain();
    expect(h.receiver.bodies).toHaveLength(1);
  });

  it("a receiver down for a while gets everything once it is back", async () => {
    let up = false;
    const { hooks, emit } = await setup(1, () => ({ status: up ? 200 : 503 }));
    for (let i = 0; i < 5; i++) await emit([{ n: i }]);
    await drain();
    // Down for about 40 minutes: retries at 5 s, 5 min, 30 min fail.
    for (const step of [5_000, 300_000, 1_800_000]) {
      clock.advance(step);
      await drain();
    }
    up = true;
    clock.advance(2 * 3_600_000);
    await drain();
    const r = (hooks[0] as (typeof hooks)[number]).receiver;
    const delivered = new Set(
      r.bodies.filter((_, i) => i >= r.bodies.length - 5).map((b) => JSON.parse(b).n),
    );
    expect([...delivered].sort()).toEqual([0, 1, 2, 3, 4]);
    const all = (
      await hookline.webhooks.deliveries(ws, (hooks[0] as (typeof hooks)[number]).webhook.id, { limit: 100 })
    ).items;
    expect(all.map((d) => d.state)).toEqual(Array(5).fill("succeeded"));
  });

  it("the guard refuses private addresses by default", async () => {
    const guard = watchDeliveries(createMemoryStore());
    const guarded = createHookline({
      clock,
      store: guard.store,
      secretsKey: "g",
      worker: { attemptTimeoutMs: 300, pollIntervalMs: 3_600_000, onAttempt: guard.onAttempt },
    });
    await guarded.start();
    const w = (await guarded.workspaces.create({ name: "g" })).id;
    const r = await receiver();
    receivers.push(r);
    const source = await guarded.sources.deploy(w, { code: { code: SOURCE } });
    const webhook = await guarded.webhooks.create(w, { url: r.url });
    await guarded.subscriptions.create(w, { emitterId: source.id, listenerId: webhook.id });
    await guarded.ingress(source.endpointId as string, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: '{"items":[{"n":1}]}',
    });
    await guard.settle(() => guarded.worker?.wake());
    expect(r.bodies).toHaveLength(0);
    expect((await guarded.webhooks.deliveries(w, webhook.id)).items[0]).toMatchObject({
      state: "failed",
      lastError: "ssrf_blocked",
    });
    await guarded.close();
  });
});
