import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStore, type Store } from "@hookline/store";
import { afterEach, describe, expect, it } from "vitest";
import { generateWebhookSecret, verifyWebhook } from "../src/signature.js";
import { createTransport, type Transport } from "../src/transport.js";
import { buildPayload, createDeliveryWorker, type DeliveryWorker, truncateUtf8 } from "../src/worker.js";
import { type DrivenWorker, drivenWorker } from "../test/worker-driver.js";

const EMITTER = "dc_emitter";
const START = 1_700_000_000_000;
const DAY = 24 * 60 * 60 * 1000;
/** A poll interval no test waits for: what gets delivered was woken. */
const HOUR = 60 * 60 * 1000;

interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Receiver {
  url: string;
  base: string;
  requests: ReceivedRequest[];
  active: number;
  maxActive: number;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function startReceiver(handler: Handler): Promise<Receiver> {
  const receiver: Receiver = {
    url: "",
    base: "",
    requests: [],
    active: 0,
    maxActive: 0,
    close: async () => {},
  };
  const server = createServer((req, res) => {
    receiver.active++;
    receiver.maxActive = Math.max(receiver.maxActive, receiver.active);
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      receiver.active--;
    };
    res.on("finish", done);
    res.on("close", done);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      receiver.requests.push({ path: req.url ?? "", headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  receiver.base = `http://127.0.0.1:${port}`;
  receiver.url = `${receiver.base}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  cleanups.push(() => receiver.close());
  return receiver;
}

function reply(status: number, headers: Record<string, string> = {}, body = ""): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

function fakeClock(start = START) {
  return {
    time: start,
    now() {
      return this.time;
    },
    advance(ms: number) {
      this.time += ms;
    },
  };
}

type Clock = { now(): number };

/** "Encryption" for tests: a prefix, removed by {@link decryptSecret}. */
const encrypt = (secret: string): string => `enc:${secret}`;
const decryptSecret = (value: string): string => value.replace(/^enc:/, "");

interface Setup {
  store: Store;
  workspaceId: string;
  webhookId: string;
  secrets: string[];
  emit(count?: number, body?: unknown): Promise<string[]>;
  delivery(id: string): ReturnType<Store["deliveries"]["get"]>;
  webhook(): ReturnType<Store["webhooks"]["get"]>;
}

async function setup(
  url: string,
  clock: Clock,
  secretsInput?: { value: string; expiresAt?: number }[],
): Promise<Setup> {
  const store = createMemoryStore({ now: () => clock.now() });
  cleanups.push(() => store.close());
  const workspace = await store.workspaces.create({ name: "test" });
  const secretList = secretsInput ?? [{ value: generateWebhookSecret() }];
  const webhook = await store.webhooks.create({
    workspaceId: workspace.id,
    url,
    active: true,
    secrets: secretList.map((secret) => ({
      value: encrypt(secret.value),
      createdAt: clock.now(),
      ...(secret.expiresAt !== undefined && { expiresAt: secret.expiresAt }),
    })),
  });
  await store.subscriptions.create({
    workspaceId: workspace.id,
    emitterId: EMITTER,
    listenerId: webhook.id,
    eventName: "created",
  });
  return {
    store,
    workspaceId: workspace.id,
    webhookId: webhook.id,
    secrets: secretList.map((secret) => secret.value),
    async emit(count = 1, body: unknown = { hello: "world" }) {
      const events = Array.from({ length: count }, (_, i) => ({
        channel: "created",
        ts: clock.now() - 1000,
        body: count === 1 ? body : { index: i },
      }));
      const appended = await store.emits.commit({ workspaceId: workspace.id, componentId: EMITTER, events });
      return appended.flatMap((event) => event.deliveryIds);
    },
    delivery: (id) => store.deliveries.get(workspace.id, id),
    webhook: () => store.webhooks.get(workspace.id, webhook.id),
  };
}

function privateTransport(): Transport {
  const transport = createTransport({ allowPrivate: true });
  cleanups.push(() => transport.close());
  return transport;
}

function worker(
  s: Setup,
  transport: Transport,
  clock: Clock,
  extra: Partial<Parameters<typeof createDeliveryWorker>[0]> = {},
): DeliveryWorker {
  const w = createDeliveryWorker({
    store: s.store,
    transport,
    decryptSecret,
    clock,
    jitter: 0,
    ...extra,
  });
  cleanups.push(() => w.stop({ drainMs: 0 }));
  return w;
}

/** A worker that claims only when `settle()` wakes it (see test/worker-driver.ts). */
function driven(
  s: Setup,
  transport: Transport,
  clock: Clock,
  extra: Partial<Parameters<typeof createDeliveryWorker>[0]> = {},
): DrivenWorker {
  const d = drivenWorker({ store: s.store, transport, decryptSecret, clock, jitter: 0, ...extra });
  cleanups.push(() => d.worker.stop({ drainMs: 0 }));
  return d;
}

/** Waits for `predicate`; the deadline only stops a hung test (no duration is asserted). */
async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error("waitFor timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("buildPayload", () => {
  it("is the emitted event as JSON, unchanged", () => {
    expect(buildPayload({ id: "evt_1", ts: 0, body: { a: 1, b: [true, null] } })).toBe(
      '{"a":1,"b":[true,null]}',
    );
  });

  it("sends null for an event without a body", () => {
    expect(buildPayload({ id: "evt_1", ts: 0, body: undefined })).toBe("null");
  });
});

describe("truncateUtf8", () => {
  it("cuts at a character boundary", () => {
    expect(truncateUtf8("abc", 10)).toBe("abc");
    expect(truncateUtf8("é".repeat(3000))).toBe("é".repeat(2048));
    expect(truncateUtf8("aé", 2)).toBe("a");
  });
});

describe("createDeliveryWorker", () => {
  it("rejects a lease not longer than the attempt timeout", () => {
    const store = createMemoryStore();
    const transport = { post: async () => ({ status: 200, headers: {}, body: "", durationMs: 0 }) };
    const make = (extra: { attemptTimeoutMs?: number; leaseMs?: number }) => () =>
      createDeliveryWorker({ store, transport, decryptSecret, ...extra });
    expect(make({ attemptTimeoutMs: 1000, leaseMs: 1000 })).toThrow(
      "leaseMs (1000) must be greater than attemptTimeoutMs (1000)",
    );
    expect(make({ attemptTimeoutMs: 1000, leaseMs: 999 })).toThrow(RangeError);
    expect(make({ attemptTimeoutMs: 1000, leaseMs: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(make({ attemptTimeoutMs: 1000, leaseMs: Number.NaN })).toThrow(RangeError);
    // only a lease given: still checked against the default 15 s attempt timeout
    expect(make({ leaseMs: 15_000 })).toThrow("must be greater than attemptTimeoutMs (15000)");
    // the default lease follows a longer attempt timeout (2x + 5 s)
    expect(make({ attemptTimeoutMs: 60_000 })).not.toThrow();
    expect(make({ attemptTimeoutMs: 1000, leaseMs: 1001 })).not.toThrow();
  });

  it("bounds a whole attempt by attemptTimeoutMs, a trickling response body included", async () => {
    // The lease only protects against a parallel attempt if the attempt cannot outlive the timeout.
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const drip = setInterval(() => res.write("."), 50);
      res.on("close", () => clearInterval(drip));
    });
    const s = await setup(receiver.url, { now: Date.now });
    const [id = ""] = await s.emit();
    // The body never ends: only the attempt's time limit can end the attempt.
    await driven(s, privateTransport(), { now: Date.now }, { attemptTimeoutMs: 300, leaseMs: 400 }).settle();
    expect(await s.delivery(id)).toMatchObject({ state: "pending", lastError: "timeout" });
  });

  it("POSTs the exact body and signed headers, and records the success", async () => {
    const receiver = await startReceiver(reply(200, {}, "ok"));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id] = await s.emit(1, { hello: "world" });
    const w = driven(s, privateTransport(), clock);

    expect(await w.settle()).toBe(1);

    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0];
    if (!request || !id) throw new Error("missing request");
    const delivery = await s.delivery(id);
    const event = delivery?.event;
    if (!event) throw new Error("missing event");
    expect(request.body).toBe(JSON.stringify({ hello: "world" }));
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["user-agent"]).toBe("Hookline-Webhooks/1");
    expect(request.headers["webhook-id"]).toBe(event.id);
    expect(request.headers["webhook-timestamp"]).toBe(String(Math.floor(clock.now() / 1000)));
    expect(request.headers["x-hookline-emitter-id"]).toBe(EMITTER);
    expect(request.headers["x-hookline-event-name"]).toBe("created");
    expect(() =>
      verifyWebhook(s.secrets[0] ?? "", request.headers, request.body, { now: clock.now() }),
    ).not.toThrow();

    expect(delivery?.state).toBe("succeeded");
    expect(delivery?.lastStatus).toBe(200);
    const attempts = await s.store.deliveries.listAttempts(s.workspaceId, id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 200, responseExcerpt: "ok", at: clock.now() });
    expect(attempts[0]?.error).toBeUndefined();
  });

  it("retries a 500 at the schedule time and then succeeds", async () => {
    let calls = 0;
    const receiver = await startReceiver((_req, res) => {
      calls++;
      res.writeHead(calls === 1 ? 500 : 200);
      res.end(calls === 1 ? "boom" : "ok");
    });
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    const w = driven(s, privateTransport(), clock);

    await w.settle();
    let delivery = await s.delivery(id);
    expect(delivery).toMatchObject({ state: "pending", nextAttemptAt: clock.now() + 5000, lastStatus: 500 });
    expect(delivery?.lastError).toBe("http_500");
    expect((await s.webhook())?.failingSince).toBe(clock.now());

    expect(await w.settle()).toBe(0); // not due yet
    clock.advance(5000);
    expect(await w.settle()).toBe(1);

    delivery = await s.delivery(id);
    expect(delivery?.state).toBe("succeeded");
    expect(receiver.requests.map((r) => r.headers["webhook-id"])).toEqual([
      delivery?.eventId,
      delivery?.eventId,
    ]);
    const attempts = await s.store.deliveries.listAttempts(s.workspaceId, id);
    expect(attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(attempts[0]?.responseExcerpt).toBe("boom");
    expect((await s.webhook())?.failingSince).toBeUndefined();
  });

  it("does not follow a 302 and counts it as a failed attempt", async () => {
    const receiver = await startReceiver((req, res) => {
      if (req.url === "/target") {
        res.writeHead(200);
        res.end();
        return;
      }
      res.writeHead(302, { location: "/target" });
      res.end();
    });
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    await driven(s, privateTransport(), clock).settle();

    expect(receiver.requests.map((r) => r.path)).toEqual(["/hook"]);
    const delivery = await s.delivery(id);
    expect(delivery).toMatchObject({ state: "pending", lastStatus: 302, lastError: "http_302" });
    const attempts = await s.store.deliveries.listAttempts(s.workspaceId, id);
    expect(attempts).toMatchObject([{ status: 302, error: "http_302" }]);
  });

  it("disables the webhook on a 410", async () => {
    const receiver = await startReceiver(reply(410));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    const reports: unknown[] = [];
    await driven(s, privateTransport(), clock, { onAttempt: (r) => reports.push(r) }).settle();

    expect(await s.delivery(id)).toMatchObject({ state: "failed", lastStatus: 410 });
    expect(await s.webhook()).toMatchObject({ active: false, disabledReason: "gone" });
    expect(reports).toMatchObject([{ outcome: "failed", status: 410, webhookDisabled: "gone" }]);
  });

  it("honours Retry-After on a 429", async () => {
    const receiver = await startReceiver(reply(429, { "retry-after": "120" }));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    await driven(s, privateTransport(), clock).settle();

    expect(await s.delivery(id)).toMatchObject({ state: "pending", nextAttemptAt: clock.now() + 120_000 });
  });

  it("keeps the schedule delay when Retry-After is shorter", async () => {
    const receiver = await startReceiver(reply(503, { "retry-after": "1" }));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    await driven(s, privateTransport(), clock).settle();

    expect(await s.delivery(id)).toMatchObject({ state: "pending", nextAttemptAt: clock.now() + 5000 });
  });

  it("schedules a retry after a timeout", async () => {
    const receiver = await startReceiver(() => {
      // never answers
    });
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    await driven(s, privateTransport(), clock, { attemptTimeoutMs: 200 }).settle();

    expect(await s.delivery(id)).toMatchObject({
      state: "pending",
      lastError: "timeout",
      nextAttemptAt: clock.now() + 5000,
    });
    const attempts = await s.store.deliveries.listAttempts(s.workspaceId, id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.status).toBeUndefined();
    expect(attempts[0]?.error).toBe("timeout");
  });

  it("retries connection errors", async () => {
    const receiver = await startReceiver(reply(200));
    await receiver.close();
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    await driven(s, privateTransport(), clock).settle();

    const delivery = await s.delivery(id);
    expect(delivery?.state).toBe("pending");
    expect(delivery?.lastError).toMatch(/ECONNREFUSED|fetch failed/);
  });

  it("fails the delivery once the schedule is exhausted", async () => {
    const receiver = await startReceiver(reply(500));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    const w = driven(s, privateTransport(), clock, { retrySchedule: [1000] });

    await w.settle();
    expect(await s.delivery(id)).toMatchObject({ state: "pending", nextAttemptAt: clock.now() + 1000 });
    clock.advance(1000);
    await w.settle();
    expect(await s.delivery(id)).toMatchObject({ state: "failed", attempts: 2, lastStatus: 500 });
    expect(await s.store.deliveries.listAttempts(s.workspaceId, id)).toHaveLength(2);
  });

  it("disables a webhook that has been failing for 5 days", async () => {
    const receiver = await startReceiver(reply(500));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    await s.store.webhooks.update(s.workspaceId, s.webhookId, { failingSince: clock.now() - 5 * DAY + 1 });
    const [first = ""] = await s.emit();
    const w = driven(s, privateTransport(), clock);

    await w.settle(); // 5 days minus 1 ms: still retried
    expect(await s.delivery(first)).toMatchObject({ state: "pending" });
    expect((await s.webhook())?.active).toBe(true);

    clock.advance(5000);
    await w.settle();
    expect(await s.delivery(first)).toMatchObject({ state: "failed", lastStatus: 500 });
    expect(await s.webhook()).toMatchObject({ active: false, disabledReason: "failing" });
  });

  it("leaves a disabled webhook's deliveries waiting, unsent; enabled again, it gets them", async () => {
    const receiver = await startReceiver(reply(200));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    await s.store.webhooks.update(s.workspaceId, s.webhookId, { active: false });
    const [later = ""] = await s.emit();
    const w = driven(s, privateTransport(), clock);
    expect(await w.settle()).toBe(0);

    expect(receiver.requests).toHaveLength(0);
    expect(await s.delivery(id)).toMatchObject({ state: "paused" });
    expect(await s.delivery(later)).toMatchObject({ state: "paused" });
    expect(await s.store.deliveries.listAttempts(s.workspaceId, id)).toHaveLength(0);

    await s.store.webhooks.update(s.workspaceId, s.webhookId, { active: true });
    clock.advance(1000); // they are due at the store clock's "now"
    await w.settle();
    expect(receiver.requests).toHaveLength(2);
    expect(await s.delivery(id)).toMatchObject({ state: "succeeded" });
    expect(await s.delivery(later)).toMatchObject({ state: "succeeded" });
  });

  it("gives back unsent a row whose webhook was disabled after the claim", async () => {
    const receiver = await startReceiver(reply(200));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    const deliveries = {
      ...s.store.queue.deliveries,
      // The webhook is disabled while the claim is on its way back.
      claim: async (input: Parameters<Store["queue"]["deliveries"]["claim"]>[0]) => {
        const rows = await s.store.queue.deliveries.claim(input);
        await s.store.webhooks.update(s.workspaceId, s.webhookId, { active: false });
        return rows.map((row) => ({ ...row, webhook: { ...row.webhook, active: false } }));
      },
    };
    const queue = { ...s.store.queue, deliveries };
    await driven(s, privateTransport(), clock, { store: { ...s.store, queue } }).settle();
    expect(receiver.requests).toHaveLength(0);
    expect(await s.delivery(id)).toMatchObject({ state: "paused", lastError: "webhook_disabled" });
    expect(await s.store.deliveries.listAttempts(s.workspaceId, id)).toHaveLength(0);
  });

  it("signs with every non-expired secret during a rotation", async () => {
    const receiver = await startReceiver(reply(204));
    const clock = fakeClock();
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const expired = generateWebhookSecret();
    const s = await setup(receiver.url, clock, [
      { value: oldSecret, expiresAt: clock.now() + DAY },
      { value: newSecret },
      { value: expired, expiresAt: clock.now() - 1 },
    ]);
    const [id = ""] = await s.emit();
    await driven(s, privateTransport(), clock).settle();

    const request = receiver.requests[0];
    if (!request) throw new Error("no request");
    const signatures = String(request.headers["webhook-signature"]).split(" ");
    expect(signatures).toHaveLength(2);
    for (const signature of signatures) expect(signature.startsWith("v1,")).toBe(true);
    const options = { now: clock.now() };
    for (const secret of [oldSecret, newSecret]) {
      expect(() => verifyWebhook(secret, request.headers, request.body, options)).not.toThrow();
      // Each signature on its own verifies with exactly one of the secrets.
    }
    for (const [index, secret] of [oldSecret, newSecret].entries()) {
      const headers = { ...request.headers, "webhook-signature": signatures[index] };
      expect(() => verifyWebhook(secret, headers, request.body, options)).not.toThrow();
    }
    expect(() => verifyWebhook(expired, request.headers, request.body, options)).toThrow();
    expect((await s.delivery(id))?.state).toBe("succeeded");
  });

  it("decrypts each stored secret once, and a rotated-in secret when it appears", async () => {
    const receiver = await startReceiver(reply(204));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const calls: string[] = [];
    const counting = (value: string): string => {
      calls.push(value);
      return decryptSecret(value);
    };
    const w = driven(s, privateTransport(), clock, { decryptSecret: counting });
    await s.emit(3);
    expect(await w.settle()).toBe(3);
    expect(calls).toHaveLength(1);

    // A rotation adds a secret: the next delivery decrypts the new one only, and signs with both.
    const rotated = generateWebhookSecret();
    const current = await s.webhook();
    await s.store.webhooks.update(s.workspaceId, s.webhookId, {
      secrets: [
        ...(current?.secrets ?? []).map((secret) => ({ ...secret, expiresAt: clock.now() + DAY })),
        { value: encrypt(rotated), createdAt: clock.now() },
      ],
    });
    await s.emit();
    expect(await w.settle()).toBe(1);
    expect(calls).toEqual([encrypt(s.secrets[0] ?? ""), encrypt(rotated)]);
    const last = receiver.requests.at(-1);
    if (!last) throw new Error("no request");
    expect(String(last.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(() => verifyWebhook(rotated, last.headers, last.body, { now: clock.now() })).not.toThrow();
  });

  it("records a response excerpt of at most 4096 bytes", async () => {
    const receiver = await startReceiver(reply(200, {}, "x".repeat(10_000)));
    const clock = fakeClock();
    const s = await setup(receiver.url, clock);
    const [id = ""] = await s.emit();
    await driven(s, privateTransport(), clock).settle();
    const attempts = await s.store.deliveries.listAttempts(s.workspaceId, id);
    expect(attempts[0]?.responseExcerpt).toHaveLength(4096);
  });

  it("respects perWebhookConcurrency", async () => {
    const receiver = await startReceiver((_req, res) => {
      setTimeout(() => {
        res.writeHead(200);
        res.end();
      }, 80);
    });
    const s = await setup(receiver.url, { now: Date.now });
    const ids = await s.emit(6);
    const w = worker(
      s,
      privateTransport(),
      { now: Date.now },
      { perWebhookConcurrency: 2, pollIntervalMs: 10 },
    );
    w.start();

    await waitFor(async () => {
      const rows = await Promise.all(ids.map((id) => s.delivery(id)));
      return rows.every((row) => row?.state === "succeeded");
    });
    expect(receiver.requests).toHaveLength(6);
    expect(receiver.maxActive).toBe(2);
  });

  it("stop() drains in-flight deliveries", async () => {
    const receiver = await startReceiver((_req, res) => {
      setTimeout(() => {
        res.writeHead(200);
        res.end();
      }, 200);
    });
    const s = await setup(receiver.url, { now: Date.now });
    const [id = ""] = await s.emit();
    const w = worker(s, privateTransport(), { now: Date.now }, { pollIntervalMs: 10 });
    w.start();
    await waitFor(() => receiver.requests.length === 1);

    await w.stop({ drainMs: 5000 });
    expect((await s.delivery(id))?.state).toBe("succeeded");
  });

  it("stop() with a tiny drainMs releases in-flight rows to pending", async () => {
    const receiver = await startReceiver(() => {
      // never answers
    });
    const s = await setup(receiver.url, { now: Date.now });
    const [id = ""] = await s.emit();
    const w = worker(
      s,
      privateTransport(),
      { now: Date.now },
      { pollIntervalMs: 10, attemptTimeoutMs: 5000 },
    );
    w.start();
    await waitFor(() => receiver.requests.length === 1);

    await w.stop({ drainMs: 20 });
    const delivery = await s.delivery(id);
    expect(delivery?.state).toBe("pending");
    expect(delivery?.leaseOwner).toBeUndefined();
    expect(delivery?.lastError).toBe("worker_stopped");
    await receiver.close(); // the abandoned attempt fails; its outcome is dropped
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await s.delivery(id))?.state).toBe("pending");
    expect(await s.store.deliveries.listAttempts(s.workspaceId, id)).toHaveLength(0);
  });

  it("fails a private URL at once when the transport blocks it", async () => {
    const clock = fakeClock();
    const s = await setup("http://127.0.0.1:9/hook", clock);
    const [id = ""] = await s.emit();
    const transport = createTransport();
    cleanups.push(() => transport.close());
    await driven(s, transport, clock).settle();

    expect(await s.delivery(id)).toMatchObject({ state: "failed", lastError: "ssrf_blocked" });
    expect(await s.store.deliveries.listAttempts(s.workspaceId, id)).toMatchObject([
      { error: "ssrf_blocked" },
    ]);
  });

  it("a store notice of due deliveries wakes an idle worker; stop() unsubscribes", async () => {
    const receiver = await startReceiver(reply(200));
    const s = await setup(receiver.url, { now: Date.now });
    const inner = s.store.notifications;
    if (!inner) throw new Error("the memory store has notifications");
    let subscribers = 0;
    s.store.notifications = {
      subscribe(listener) {
        subscribers++;
        const off = inner.subscribe(listener);
        return () => {
          subscribers--;
          off();
        };
      },
    };
    const w = worker(s, privateTransport(), { now: Date.now }, { pollIntervalMs: HOUR });
    w.start();
    expect(subscribers).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 30)); // the first (empty) poll is done

    const [id = ""] = await s.emit(); // no wake(): the outbox's notice does it
    await waitFor(async () => (await s.delivery(id))?.state === "succeeded");
    expect(await s.store.deliveries.retry(s.workspaceId, id, Date.now())).toBe(true);
    await waitFor(() => receiver.requests.length === 2);

    await w.stop({ drainMs: 1000 });
    expect(subscribers).toBe(0);
  });

  it("sweeps expired leases once per ten poll intervals however often it is woken, and at least every half lease", async () => {
    const receiver = await startReceiver(reply(200));
    const s = await setup(receiver.url, { now: Date.now });
    const sweepsOf = (extra: Partial<Parameters<typeof createDeliveryWorker>[0]>) => {
      const real = s.store.queue.deliveries;
      const counted = { n: 0 };
      const deliveries = {
        ...real,
        sweep: (now: number) => {
          counted.n++;
          return real.sweep(now);
        },
      };
      const w = worker(
        s,
        privateTransport(),
        { now: Date.now },
        {
          store: { ...s.store, queue: { ...s.store.queue, deliveries } },
          ...extra,
        },
      );
      return { w, counted };
    };
    /** Wakes `w` 40 times, 5 ms apart (each wake-up polls: every emit wakes a worker so). */
    const wakeOften = async (w: DeliveryWorker) => {
      for (let i = 0; i < 40; i++) {
        w.wake();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    // Polls every second: sweeps at start, then not before ten seconds, whatever the wake-ups.
    const busy = sweepsOf({ pollIntervalMs: 1000 });
    busy.w.start();
    await wakeOften(busy.w);
    expect(busy.counted.n).toBe(1);
    await busy.w.stop();
    // An hour between polls but a lease of 20 ms: a sweep every 10 ms of wake-ups at least.
    const short = sweepsOf({ pollIntervalMs: HOUR, attemptTimeoutMs: 10, leaseMs: 20 });
    short.w.start();
    await wakeOften(short.w);
    expect(short.counted.n).toBeGreaterThan(2);
    await short.w.stop();
  });

  it("drains a backlog held back by the per-webhook limit without waiting for polls", async () => {
    const receiver = await startReceiver(reply(200));
    const s = await setup(receiver.url, { now: Date.now });
    await s.emit(12);
    const w = worker(
      s,
      privateTransport(),
      { now: Date.now },
      { pollIntervalMs: HOUR, perWebhookConcurrency: 2 },
    );
    w.start(); // each claim gets 2 rows; every finished delivery frees a slot and polls again
    await waitFor(() => receiver.requests.length === 12);
    expect(receiver.maxActive).toBeLessThanOrEqual(2);
  });

  it("passes a finished delivery's slot to its webhook's next due row, without claims", async () => {
    const receiver = await startReceiver(reply(200));
    const s = await setup(receiver.url, { now: Date.now });
    await s.emit(12);
    let claims = 0;
    let handOffs = 0;
    const real = s.store.queue.deliveries;
    const deliveries = {
      ...real,
      claim: (input: Parameters<typeof real.claim>[0]) => {
        claims++;
        return real.claim(input);
      },
      completeAndTakeNext: async (...args: Parameters<NonNullable<typeof real.completeAndTakeNext>>) => {
        const out = await real.completeAndTakeNext!(...args);
        if (out.next) handOffs++;
        return out;
      },
    };
    const w = worker(
      s,
      privateTransport(),
      { now: Date.now },
      {
        store: { ...s.store, queue: { ...s.store.queue, deliveries } },
        pollIntervalMs: HOUR,
        perWebhookConcurrency: 2,
      },
    );
    w.start();
    await waitFor(() => receiver.requests.length === 12);
    // The first claim takes two rows; each success hands its slot to the next row (10 hand-offs).
    expect(handOffs).toBe(10);
    expect(claims).toBeLessThanOrEqual(3);
    expect(receiver.maxActive).toBeLessThanOrEqual(2);
    await waitFor(
      async () => (await s.store.deliveries.list(s.workspaceId, { state: "succeeded" })).items.length === 12,
    );
  });

  it("keeps draining when another node takes a freed slot first (an empty claim while busy)", async () => {
    // The second request is slow, so the first one's claim runs while it is still in flight.
    const receiver = await startReceiver((_req, res) => {
      setTimeout(() => res.writeHead(200).end(), receiver.requests.length === 2 ? 300 : 5);
    });
    const s = await setup(receiver.url, { now: Date.now });
    await s.emit(6);
    let claims = 0;
    const deliveries = {
      ...s.store.queue.deliveries,
      // The second claim comes back empty, as when a worker of another node won the freed slot.
      claim: (input: Parameters<Store["queue"]["deliveries"]["claim"]>[0]) =>
        ++claims === 2 ? Promise.resolve([]) : s.store.queue.deliveries.claim(input),
      // Freed slots are claimed again (no hand-off to the webhook's next row).
      completeAndTakeNext: undefined,
    };
    const queue = { ...s.store.queue, deliveries };
    const w = worker(
      s,
      privateTransport(),
      { now: Date.now },
      { store: { ...s.store, queue }, pollIntervalMs: HOUR, perWebhookConcurrency: 2 },
    );
    w.start();
    await waitFor(() => receiver.requests.length === 6);
    expect(claims).toBeGreaterThan(2);
  });

  it("without notifications an idle worker waits for its next poll", async () => {
    const receiver = await startReceiver(reply(200));
    const s = await setup(receiver.url, { now: Date.now });
    delete s.store.notifications;
    const w = worker(s, privateTransport(), { now: Date.now }, { pollIntervalMs: HOUR });
    w.start();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const [id = ""] = await s.emit();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await s.delivery(id))?.state).toBe("pending");
    w.wake();
    await waitFor(async () => (await s.delivery(id))?.state === "succeeded");
  });

  it("wake() makes a started worker poll now rather than at its next poll", async () => {
    const receiver = await startReceiver(reply(200));
    const s = await setup(receiver.url, { now: Date.now });
    delete s.store.notifications;
    const w = worker(s, privateTransport(), { now: Date.now }, { pollIntervalMs: HOUR });
    w.start();
    await new Promise((resolve) => setTimeout(resolve, 30)); // the first (empty) poll is done

    const [id = ""] = await s.emit();
    w.wake(); // the next poll is an hour away: only the wake can deliver it within the test
    await waitFor(async () => (await s.delivery(id))?.state === "succeeded");
    expect(receiver.requests).toHaveLength(1);
  });
});
