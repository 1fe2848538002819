// Fair delivery (issue 14, item 5): slow or dead receivers cannot take the slots every webhook
// shares, a failing webhook's circuit opens and closes, and a secret that cannot be decrypted is a
// configuration error on the webhook (issue 14, item 10), not a retried transport error.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStore, type Store } from "@hookline/store";
import { afterEach, describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../src/signature.js";
import { createTransport } from "../src/transport.js";
import {
  createDeliveryWorker,
  type DeliveryAttemptReport,
  type DeliveryWorkerOptions,
} from "../src/worker.js";
import { drivenWorker } from "../test/worker-driver.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A loopback receiver; `hang` ones accept the request and never answer. */
async function receiver(answer: () => "hang" | number): Promise<{ url: string; requests: number }> {
  const state = { url: "", requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests++;
    req.resume();
    req.on("end", () => {
      const status = answer();
      if (status === "hang") return;
      res.writeHead(status);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return state;
}

interface World {
  store: Store;
  ws: string;
  /** Creates a webhook subscribed to `emitter`. */
  webhook(url: string, emitter: string, secret?: string): Promise<string>;
  /** Emits `count` events from `emitter`; returns their delivery ids. */
  emit(emitter: string, count: number): Promise<string[]>;
  states(ids: string[]): Promise<string[]>;
}

async function world(now: () => number = Date.now): Promise<World> {
  const store = createMemoryStore({ now });
  cleanups.push(() => store.close());
  const ws = (await store.workspaces.create({ name: "fair" })).id;
  return {
    store,
    ws,
    async webhook(url, emitter, secret = `enc:${generateWebhookSecret()}`) {
      const hook = await store.webhooks.create({
        workspaceId: ws,
        url,
        active: true,
        secrets: [{ value: secret, createdAt: now() }],
      });
      await store.subscriptions.create({ workspaceId: ws, emitterId: emitter, listenerId: hook.id });
      return hook.id;
    },
    async emit(emitter, count) {
      const events = Array.from({ length: count }, (_, i) => ({
        channel: "default",
        ts: now(),
        body: { i },
      }));
      const appended = await store.emits.commit({ workspaceId: ws, componentId: emitter, events });
      return appended.flatMap((event) => event.deliveryIds);
    },
    async states(ids) {
      return Promise.all(ids.map(async (id) => (await store.deliveries.get(ws, id))?.state ?? "gone"));
    },
  };
}

function start(w: World, options: Partial<DeliveryWorkerOptions>) {
  const transport = createTransport({ allowPrivate: true });
  const worker = createDeliveryWorker({
    store: w.store,
    transport,
    decryptSecret: (value) => value.replace(/^enc:/, ""),
    jitter: 0,
    pollIntervalMs: 50,
    ...options,
  });
  cleanups.push(() => transport.close());
  cleanups.push(() => worker.stop({ drainMs: 0 }));
  return worker;
}

/** A worker that claims only when `settle()` wakes it (see test/worker-driver.ts). */
function drive(w: World, options: Partial<DeliveryWorkerOptions>) {
  const transport = createTransport({ allowPrivate: true });
  const driven = drivenWorker({
    store: w.store,
    transport,
    decryptSecret: (value) => value.replace(/^enc:/, ""),
    jitter: 0,
    ...options,
  });
  cleanups.push(() => transport.close());
  cleanups.push(() => driven.worker.stop({ drainMs: 0 }));
  return driven;
}

/** Waits for `predicate`; the deadline only stops a hung test (no duration is asserted). */
async function waitFor(predicate: () => Promise<boolean>, timeoutMs = 25_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("fair delivery", () => {
  it("a busy webhook hands its slots on only while the worker has one to spare", async () => {
    const w = await world();
    const order: string[] = [];
    // Both webhooks on one receiver; a's first two requests are answered after 200 ms.
    let requests = 0;
    const server: Server = createServer((req, res) => {
      const first = ++requests <= 2;
      order.push(req.url ?? "");
      req.resume();
      req.on("end", () => setTimeout(() => res.writeHead(200).end(), first ? 200 : 1));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await w.webhook(`${base}/a`, "dc_a");
    await w.webhook(`${base}/b`, "dc_b");
    await w.emit("dc_a", 2);
    // Every slot of the worker (2) goes to webhook a; then b's event, then more of a's.
    const worker = start(w, { concurrency: 2, perWebhookConcurrency: 2, pollIntervalMs: 10 });
    worker.start();
    await waitFor(async () => order.length >= 2);
    await w.emit("dc_b", 1);
    await new Promise((resolve) => setTimeout(resolve, 2));
    const later = await w.emit("dc_a", 20);
    await waitFor(async () => (await w.states(later)).every((state) => state === "succeeded"));
    // Handing a's slots on would have sent all of a's first; a claim takes b's older row.
    expect(order.indexOf("/b")).toBeGreaterThanOrEqual(2);
    expect(order.indexOf("/b")).toBeLessThan(5);
  });

  it("five hanging receivers do not hold up a healthy webhook's 20 events", async () => {
    const w = await world();
    const hanging = await Promise.all(Array.from({ length: 5 }, () => receiver(() => "hang")));
    for (const r of hanging) await w.webhook(r.url, "dc_dead");
    const healthy = await receiver(() => 200);
    await w.webhook(healthy.url, "dc_live");
    // The dead webhooks' events are older: a claim by due time takes them first.
    const dead = await w.emit("dc_dead", 20);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const live = await w.emit("dc_live", 20);
    expect(dead).toHaveLength(100);

    // No hanging attempt can end within the test: whatever the machine's speed, the healthy
    // webhook's events are delivered while all of them still hang, or never.
    const worker = start(w, {
      concurrency: 16,
      perWebhookConcurrency: 4,
      attemptTimeoutMs: 120_000,
      slowAfterMs: 500,
    });
    worker.start();
    // With one shared pool of 16, the 5 × 4 hanging attempts held every slot until their attempt
    // timeout before the healthy webhook got one. Now they give their slots back.
    await waitFor(async () => (await w.states(live)).every((s) => s === "succeeded"));
    expect(healthy.requests).toBe(20);
    // Every dead webhook got at most its own cap of attempts, none of them ended.
    const states = await w.states(dead);
    expect(states.filter((s) => s === "delivering").length).toBeLessThanOrEqual(20);
    expect(states.every((s) => s === "pending" || s === "delivering")).toBe(true);
    for (const id of dead) expect(await w.store.deliveries.listAttempts(w.ws, id)).toEqual([]);
    for (const r of hanging) expect(r.requests).toBeLessThanOrEqual(4);
  }, 30_000);

  it("a slow attempt keeps its slot when the slow pool is full", async () => {
    const w = await world();
    const slow = await receiver(() => "hang");
    await w.webhook(slow.url, "dc_slow");
    const healthy = await receiver(() => 200);
    await w.webhook(healthy.url, "dc_live");
    await w.emit("dc_slow", 2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const live = await w.emit("dc_live", 3);
    // One shared slot, one slow place: the first hanging attempt moves aside, the second keeps the
    // only slot, and the healthy webhook waits behind it.
    const worker = start(w, { concurrency: 1, slowConcurrency: 1, slowAfterMs: 100, attemptTimeoutMs: 5000 });
    worker.start();
    await waitFor(async () => slow.requests === 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slow.requests).toBe(2);
    expect(healthy.requests).toBe(0);
    // ...until the attempts time out and the healthy ones get through.
    await waitFor(async () => (await w.states(live)).every((s) => s === "succeeded"));
  }, 30_000);

  it("opens a failing webhook's circuit, then probes it and closes it on a success", async () => {
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const w = await world(now);
    let status = 500;
    const r = await receiver(() => status);
    await w.webhook(r.url, "dc_x");
    const ids = await w.emit("dc_x", 10);
    const reports: DeliveryAttemptReport[] = [];
    const { settle } = drive(w, {
      clock: { now },
      perWebhookConcurrency: 1,
      circuitFailures: 3,
      circuitCooldownMs: 60_000,
      circuitMaxCooldownMs: 100_000,
      retrySchedule: [1000, 1000, 1000],
      onAttempt: (report) => reports.push(report),
    });
    // One at a time: three failures, and the third opens the circuit.
    expect(await settle()).toBe(3);
    expect(reports.map((report) => report.circuitOpenUntil)).toEqual([undefined, undefined, clock + 60_000]);
    // Open: nothing is claimed, and the untried deliveries are left due and untouched.
    clock += 30_000;
    expect(await settle()).toBe(0);
    expect(r.requests).toBe(3);
    const untried = await Promise.all(ids.slice(3).map((id) => w.store.deliveries.get(w.ws, id)));
    expect(untried.map((d) => [d?.state, d?.attempts])).toEqual(untried.map(() => ["pending", 0]));
    // Half-open after the cooldown: one probe; it fails, so it opens again for twice as long (capped).
    clock += 30_000;
    expect(await settle()).toBe(1);
    expect(reports[3]?.circuitOpenUntil).toBe(clock + 100_000);
    clock += 99_000;
    expect(await settle()).toBe(0);
    // The receiver recovers: the next probe closes the circuit and the rest flows.
    status = 200;
    clock += 1000;
    expect(await settle()).toBe(10);
    expect((await w.states(ids)).every((s) => s === "succeeded")).toBe(true);
    expect(r.requests).toBe(14);
  });

  it("an attempt that ends while its webhook's circuit is open changes nothing", async () => {
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const w = await world(now);
    // Three deliveries in flight at once: their requests are held, then answered 500 one by one.
    const held: ServerResponse[] = [];
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => (held.length < 3 ? held.push(res) : res.writeHead(500).end()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    await w.webhook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, "dc_x");
    await w.emit("dc_x", 3);
    const reports: DeliveryAttemptReport[] = [];
    const { settle } = drive(w, {
      clock: { now },
      perWebhookConcurrency: 3,
      circuitFailures: 2,
      circuitCooldownMs: 60_000,
      circuitMaxCooldownMs: 1_000_000,
      retrySchedule: [1000, 1000, 1000],
      onAttempt: (report) => reports.push(report),
    });
    const first = settle();
    await waitFor(async () => held.length === 3);
    for (const [i, res] of held.entries()) {
      res.writeHead(500).end();
      await waitFor(async () => reports.length === i + 1);
    }
    expect(await first).toBe(3);
    // The second failure opens the circuit; the third attempt, sent before, ends while it is open:
    // it neither opens it again nor doubles the next cooldown.
    expect(reports.map((report) => report.circuitOpenUntil)).toEqual([undefined, clock + 60_000, undefined]);
    // Half-open after the first cooldown (not a longer one): the probes fail, and the circuit opens
    // again for twice the first cooldown.
    clock += 60_000;
    expect(await settle()).toBe(3);
    expect(reports.slice(3).flatMap((report) => report.circuitOpenUntil ?? [])).toEqual([clock + 120_000]);
  });
});

describe("a secret that cannot be decrypted", () => {
  it("disables the webhook as a configuration error; its deliveries wait paused, unsent and not retried", async () => {
    const w = await world();
    const r = await receiver(() => 200);
    const hook = await w.webhook(r.url, "dc_x", "sealed-with-another-key");
    const ids = await w.emit("dc_x", 2);
    let key = "wrong";
    const reports: DeliveryAttemptReport[] = [];
    const { settle } = drive(w, {
      decryptSecret: () => {
        if (key === "wrong") throw new Error("A stored secret could not be decrypted (wrong secretsKey?)");
        return generateWebhookSecret();
      },
      onAttempt: (report) => reports.push(report),
    });
    expect(await settle()).toBe(2);
    expect(r.requests).toBe(0);
    expect(await w.store.webhooks.get(w.ws, hook)).toMatchObject({
      active: false,
      disabledReason: "secret_undecryptable",
    });
    const first = await w.store.deliveries.get(w.ws, ids[0] as string);
    expect(first).toMatchObject({ state: "paused", attempts: 1 });
    expect(first?.lastError).toMatch(/^secret_undecryptable: A stored secret could not be decrypted/);
    const attempts = await w.store.deliveries.listAttempts(w.ws, ids[0] as string);
    expect(attempts.map((a) => a.error)).toEqual([first?.lastError]);
    expect(reports[0]).toMatchObject({ webhookDisabled: "secret_undecryptable", outcome: "pending" });
    // Not retried on the schedule: nothing is claimed while the webhook waits.
    expect(await settle()).toBe(0);
    // The key is fixed and the webhook enabled again: the waiting deliveries are sent.
    key = "right";
    await w.store.webhooks.update(w.ws, hook, { active: true, disabledReason: null });
    expect(await settle()).toBe(2);
    expect(await w.states(ids)).toEqual(["succeeded", "succeeded"]);
    expect(r.requests).toBe(2);
  });
});
