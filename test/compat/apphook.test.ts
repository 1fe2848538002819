// `$.interface.apphook` sources fed by another source's emits, through the REST API: source A
// emits what its HTTP endpoint receives, source B (apphook) listens to A through a subscription
// (`listener_id=dc_B`) and re-emits, and a webhook subscribed to B receives it. Loops are refused.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHookline } from "@hookline/engine";
import { createMemoryStore } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RestApi, startRestApi } from "./_api.js";

const EMITTER = `export default {
  name: "Requests", version: "0.1.0",
  props: { http: "$.interface.http" },
  run(event) { this.$emit(event.body, { id: event.body.n, summary: "request " + event.body.n }); },
};`;

const LISTENER = `export default {
  name: "Relay", version: "0.1.0",
  props: {
    app: { type: "app", app: "http" },
    hook: { type: "$.interface.apphook", appProp: "app", eventNames: ["default"] },
  },
  run(event) { this.$emit({ relayed: event }, { summary: "relayed " + event.n }); },
};`;

const received: unknown[] = [];
let receiver: Server;
let hookUrl = "";
let api: RestApi;

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d.toString();
    });
    req.on("end", () => {
      received.push(JSON.parse(body));
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  api = await startRestApi({ worker: {} });
  await api.hookline.start();
});

afterAll(async () => {
  await api.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const deploy = async (code: string) => {
  const res = await api.call("POST", "/v1/sources", { component_code: code });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { id: string; endpoint_url: string | null };
};

describe("a source listening to another source ($.interface.apphook)", () => {
  it("A's events run B's run(event); B's emits reach a webhook subscribed to B", async () => {
    const a = await deploy(EMITTER);
    const b = await deploy(LISTENER);
    const sub = await api.call("POST", `/v1/subscriptions?emitter_id=${a.id}&listener_id=${b.id}`);
    expect(sub.status, sub.text).toBe(200);
    expect(sub.body.data).toMatchObject({ emitter_id: a.id, listener_id: b.id });
    const hook = await api.call("POST", "/v1/webhooks", { url: hookUrl });
    expect(hook.status, hook.text).toBe(200);
    const toHook = await api.call("POST", "/v1/subscriptions", {
      emitter_id: b.id,
      listener_id: hook.body.data.id,
    });
    expect(toHook.status, toHook.text).toBe(200);

    for (const n of [1, 2]) {
      const res = await api.raw(new URL(a.endpoint_url as string).pathname, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n }),
      });
      expect(res.status).toBe(200);
    }
    const events = await until(async () => {
      const res = await api.call("GET", `/v1/sources/${b.id}/event_summaries?expand=event`);
      return res.body.data.length === 2 ? res.body.data : undefined;
    }, "B's two events");
    expect(events.map((e: { event: unknown }) => e.event).reverse()).toEqual([
      { relayed: { n: 1 } },
      { relayed: { n: 2 } },
    ]);
    await until(() => (received.length === 2 ? received : undefined), "the webhook's two deliveries");
    expect(received).toEqual(expect.arrayContaining([{ relayed: { n: 1 } }, { relayed: { n: 2 } }]));
  });

  it("refuses a source listening to itself, a loop, and a listener without an apphook prop", async () => {
    const a = await deploy(EMITTER);
    const b = await deploy(LISTENER);
    const c = await deploy(LISTENER);
    const sub = (emitter: string, listener: string) =>
      api.call("POST", "/v1/subscriptions", { emitter_id: emitter, listener_id: listener });
    const self = await sub(b.id, b.id);
    expect([self.status, self.body.error.code]).toEqual([422, "subscription_cycle"]);
    expect((await sub(b.id, c.id)).status).toBe(200);
    const loop = await sub(c.id, b.id);
    expect([loop.status, loop.body.error.code]).toEqual([422, "subscription_cycle"]);
    expect(loop.body.error.message).toContain(`${b.id} already feeds ${c.id}`);
    const plain = await sub(b.id, a.id);
    expect([plain.status, plain.body.error.code]).toEqual([422, "invalid_listener"]);
    const missing = await sub(a.id, "dc_missing");
    expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
  });

  it("feeds at least once: events stored while no node fed them reach the listener when an engine starts", async () => {
    const store = createMemoryStore();
    const first = createHookline({ store, worker: false });
    const ws = await first.workspaces.create({ name: "restart" });
    const a = await first.sources.deploy(ws.id, { code: { filename: "a.mjs", code: EMITTER } });
    const b = await first.sources.deploy(ws.id, { code: { filename: "b.mjs", code: LISTENER } });
    await first.subscriptions.create(ws.id, { emitterId: a.id, listenerId: b.id });
    await first.close();
    // A node stored A's event and stopped before feeding B (its process ended at the worst time).
    await store.emits.commit({
      workspaceId: ws.id,
      componentId: a.id,
      events: [{ channel: "default", ts: Date.now(), eventId: "7", body: { n: 7 } }],
    });
    const second = createHookline({ store, worker: false });
    try {
      await second.start();
      const relayed = await until(async () => {
        const page = await store.events.list(ws.id, b.id);
        return page.items.length > 0 ? page.items.map((e) => e.body) : undefined;
      }, "B's event after the restart");
      expect(relayed).toEqual([{ relayed: { n: 7 } }]);
    } finally {
      await second.close();
    }
  });
});
