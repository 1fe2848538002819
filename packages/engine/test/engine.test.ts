import { createMemoryStore } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock, createHookline, type HooklineEvents } from "../src/index.js";

const clock = createFakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
const store = createMemoryStore();
const hookline = createHookline({
  store,
  clock,
  secretsKey: "test-key",
  baseUrl: "https://hooks.example.com",
});
let ws: string;
afterAll(() => hookline.close());
beforeAll(async () => {
  ws = (await hookline.workspaces.create({ name: "acme" })).id;
});

const code = (source: string, filename = "component.mjs") => ({ code: { code: source, filename } });

const HTTP_SOURCE = `
export default {
  name: "Echo", version: "0.1.0",
  props: { http: { type: "$.interface.http", customResponse: true }, greeting: { type: "string", default: "hi", optional: true } },
  async run(event) {
    this.$emit({ body: event.body, method: event.method, path: event.path, q: event.query }, { summary: "got " + event.method, name: event.body.channel });
    this.http.respond({ status: 201, headers: { "x-echo": "1" }, body: { greeting: this.greeting, endpoint: this.http.endpoint } });
  },
};`;

function recordInvocations() {
  const calls: string[] = [];
  const handler = (e: HooklineEvents["invocation"]) => calls.push(e.kind);
  hookline.events.on("invocation", handler);
  return { calls, stop: () => hookline.events.off("invocation", handler) };
}

describe("HTTP sources", () => {
  it("turns a request into a run: the event is stored and respond() is the reply", async () => {
    const source = await hookline.sources.deploy(ws, code(HTTP_SOURCE));
    expect(source).toMatchObject({ id: expect.stringMatching(/^dc_/), slug: "echo", active: true });
    expect(source.endpoint).toBe(`https://hooks.example.com/http/${source.endpointId}`);
    const reply = await hookline.ingress(source.endpointId as string, {
      method: "post",
      path: "/orders",
      query: { a: "1" },
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ total: 5, channel: "orders" }),
    });
    expect(reply.status).toBe(201);
    expect(reply.headers).toEqual({ "x-echo": "1", "content-type": "application/json" });
    expect(JSON.parse(String(reply.body))).toEqual({ greeting: "hi", endpoint: source.endpoint });
    const page = await hookline.sources.events(ws, source.id);
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({
      channel: "orders",
      summary: "got POST",
      body: { body: { total: 5, channel: "orders" }, method: "POST", path: "/orders", q: { a: "1" } },
    });
  });

  it("parses form and text bodies, and answers 200 {success:true} without customResponse", async () => {
    const source = await hookline.sources.deploy(
      ws,
      code(
        `export default { name: "Plain", version: "0.1.0", props: { http: "$.interface.http" }, run(e) { this.$emit({ body: e.body, raw: e.bodyRaw }); } };`,
      ),
    );
    const form = await hookline.ingress(source.endpointId as string, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=1&b=x+y",
    });
    expect(form).toEqual({
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"success":true}',
      // Who answered, for the server's metrics and logs (never sent).
      target: { kind: "source", workspaceId: ws, emitterId: source.id },
    });
    await hookline.ingress(source.endpointId as string, {
      method: "POST",
      path: "/",
      headers: { "content-type": "text/plain" },
      body: "hello",
    });
    const items = (await hookline.sources.events(ws, source.id)).items.map((e) => e.body);
    expect(items).toEqual([
      { body: "hello", raw: "hello" },
      { body: { a: "1", b: "x y" }, raw: "a=1&b=x+y" },
    ]);
  });

  it("answers 404 with a clear body for an inactive source or an unknown endpoint, and 502 when no respond()", async () => {
    const source = await hookline.sources.deploy(
      ws,
      code(
        `export default { name: "Silent", version: "0.1.0", props: { http: { type: "$.interface.http", customResponse: true } }, run() {} };`,
      ),
    );
    const silent = await hookline.ingress(source.endpointId as string, {
      method: "GET",
      path: "/",
      headers: {},
    });
    expect(silent.status).toBe(502);
    expect(JSON.parse(String(silent.body))).toEqual({
      error: { code: "no_response", message: "The source finished without calling respond()" },
    });
    await hookline.sources.deactivate(ws, source.id);
    const inactive = await hookline.ingress(source.endpointId as string, {
      method: "GET",
      path: "/",
      headers: {},
    });
    expect(inactive.status).toBe(404);
    expect(JSON.parse(String(inactive.body)).error).toEqual({
      code: "not_found",
      message: "This source is inactive: activate it to receive requests",
    });
    const unknown = await hookline.ingress("en_nope", { method: "GET", path: "/", headers: {} });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(String(unknown.body)).error.code).toBe("not_found");
  });
});

describe("timers", () => {
  it("fires an interval source at the right instants, once per tick, one catch-up after downtime", async () => {
    clock.set(Date.UTC(2026, 0, 1, 0, 0, 0));
    const source = await hookline.sources.deploy(
      ws,
      code(
        `export default { name: "Every minute", version: "0.1.0", props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } }, run(e) { this.$emit(e); } };`,
      ),
    );
    const fired: unknown[] = [];
    for (let i = 0; i < 3 * 60 + 30; i += 15) {
      clock.advance(15_000);
      await hookline.timers.tick();
      await hookline.timers.tick(); // a second tick at the same instant runs nothing
    }
    for (const e of (await hookline.sources.events(ws, source.id, { limit: 100 })).items.reverse())
      fired.push(e.body);
    const start = Date.UTC(2026, 0, 1) / 1000;
    expect(fired).toEqual([1, 2, 3].map((n) => ({ timestamp: start + 60 * n, interval_seconds: 60 })));
    // Ten minutes of downtime: one catch-up run, not ten.
    clock.advance(10 * 60_000);
    expect(await hookline.timers.tick()).toBe(1);
    expect(await hookline.timers.tick()).toBe(0);
    await hookline.sources.delete(ws, source.id);
  });

  it("fires a cron source at the cron's instants in its time zone", async () => {
    clock.set(Date.UTC(2026, 0, 1, 0, 0, 0));
    const source = await hookline.sources.deploy(ws, {
      ...code(
        `export default { name: "Cron", version: "0.1.0", props: { timer: "$.interface.timer" }, run(e) { this.$emit(e); } };`,
      ),
      props: { timer: { cron: "30 9 * * *", timezone: "America/New_York" } },
    });
    for (let h = 0; h < 72; h++) {
      clock.advance(3_600_000);
      await hookline.timers.tick();
    }
    const times = (await hookline.sources.events(ws, source.id)).items
      .map((e) => (e.body as { timestamp: number }).timestamp * 1000)
      .reverse();
    // 09:30 in New York is 14:30 UTC in January.
    expect(times.map((t) => new Date(t).toISOString())).toEqual([
      "2026-01-01T14:30:00.000Z",
      "2026-01-02T14:30:00.000Z",
      "2026-01-03T14:30:00.000Z",
    ]);
    expect((await hookline.sources.events(ws, source.id)).items[0]?.body).toMatchObject({
      cron: "30 9 * * *",
      timezone: "America/New_York",
    });
    await hookline.sources.delete(ws, source.id);
  });

  it("runs now on demand with a timer event", async () => {
    const source = await hookline.sources.deploy(
      ws,
      code(
        `export default { name: "Manual", version: "0.1.0", props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } } }, run(e) { this.$emit(e); } };`,
      ),
    );
    const summary = await hookline.sources.run(ws, source.id);
    expect(summary.emitted[0]?.body).toEqual({
      timestamp: Math.floor(clock.now() / 1000),
      interval_seconds: 3600,
    });
  });
});

describe("lifecycle", () => {
  const LIFECYCLE = `
  export default {
    name: "Lifecycle", version: "0.1.0",
    props: { db: "$.service.db", label: { type: "string" } },
    hooks: {
      async deploy() { this.db.set("log", [...(this.db.get("log") ?? []), "deploy:" + this.label]); },
      async activate() { this.db.set("log", [...(this.db.get("log") ?? []), "activate:" + this.label]); },
      async deactivate() { this.db.set("log", [...(this.db.get("log") ?? []), "deactivate:" + this.label]); },
    },
    run() { this.$emit({ log: this.db.get("log"), label: this.label }); },
  };`;

  it("calls hooks in SPEC's order on deploy, update and delete", async () => {
    const rec = recordInvocations();
    const source = await hookline.sources.deploy(ws, { ...code(LIFECYCLE), props: { label: "v1" } });
    expect(rec.calls).toEqual(["deploy", "activate"]);
    rec.calls.length = 0;
    await hookline.sources.update(ws, source.id, { props: { label: "v2" } });
    expect(rec.calls).toEqual(["deactivate", "activate"]);
    const run = await hookline.sources.run(ws, source.id);
    expect(run.emitted[0]?.body).toEqual({
      log: ["deploy:v1", "activate:v1", "deactivate:v1", "activate:v2"],
      label: "v2",
    });
    rec.calls.length = 0;
    await hookline.sources.delete(ws, source.id);
    expect(rec.calls).toEqual(["deactivate"]);
    rec.stop();
    await expect(hookline.sources.get(ws, source.id)).rejects.toMatchObject({
      code: "not_found",
      status: 404,
    });
    expect(await store.kv.list(source.id)).toEqual([]);
  });

  it("a deploy() that throws leaves nothing behind (hook_failed, 422)", async () => {
    const before = (await hookline.sources.list(ws)).length;
    const failing = `export default { name: "Fails", version: "0.1.0", props: { db: "$.service.db", http: "$.interface.http" },
      hooks: { async deploy() { this.db.set("x", 1); this.$emit({ early: true }); throw new Error("cannot reach the API"); } }, run() {} };`;
    await expect(hookline.sources.deploy(ws, code(failing))).rejects.toMatchObject({
      code: "hook_failed",
      status: 422,
      message: "The deploy() hook failed: Error: cannot reach the API",
    });
    expect((await hookline.sources.list(ws)).length).toBe(before);
  });

  it("an activate() that throws on update keeps the old code, props and state", async () => {
    const source = await hookline.sources.deploy(ws, { ...code(LIFECYCLE), props: { label: "good" } });
    const broken = LIFECYCLE.replace(
      `async activate() {`,
      `async activate() { if (this.label === "bad") throw new Error("bad label");`,
    );
    await expect(
      hookline.sources.update(ws, source.id, { code: { code: broken }, props: { label: "bad" } }),
    ).rejects.toMatchObject({
      code: "hook_failed",
      message: "The activate() hook failed: Error: bad label",
    });
    const after = await hookline.sources.get(ws, source.id);
    expect(after.props.label).toBe("good");
    expect(after.componentId).toBe(source.componentId);
    const run = await hookline.sources.run(ws, source.id);
    expect(run.emitted[0]?.body).toMatchObject({ label: "good" });
  });

  it("a run that throws is logged and the source keeps running", async () => {
    const source = await hookline.sources.deploy(
      ws,
      code(
        `export default { name: "Flaky", version: "0.1.0", run(e) { if (e.fail) throw new TypeError("flaky"); console.log("ok run"); this.$emit({ ok: true }); } };`,
      ),
    );
    const failed = await hookline.sources.run(ws, source.id, { fail: true });
    expect(failed.error).toMatchObject({ code: "error", name: "TypeError", message: "flaky" });
    const ok = await hookline.sources.run(ws, source.id, {});
    expect(ok.emitted).toHaveLength(1);
    const logs = (await hookline.sources.logs(ws, source.id)).items;
    expect(logs.map((l) => [l.level, l.message.split("\n")[0]])).toEqual([
      ["error", "TypeError: flaky"],
      ["log", "ok run"],
    ]);
    expect((await hookline.sources.get(ws, source.id)).active).toBe(true);
  });
});

describe("state, dedupe, secrets", () => {
  it("dedupes across invocations with the component's strategy", async () => {
    const source = await hookline.sources.deploy(
      ws,
      code(
        `export default { name: "Unique", version: "0.1.0", dedupe: "unique", run(e) { for (const id of e.ids) this.$emit({ id }, { id }); } };`,
      ),
    );
    await hookline.sources.run(ws, source.id, { ids: [1, 2, 3] });
    const second = await hookline.sources.run(ws, source.id, { ids: [2, 3, 4, 4] });
    expect(second.emitted.map((e) => e.body)).toEqual([{ id: 4 }]);
    expect((await hookline.sources.events(ws, source.id)).items).toHaveLength(4);
  });

  it("orders emits by ts and keeps the newest with the greatest strategy", async () => {
    const source = await hookline.sources.deploy(
      ws,
      code(
        `export default { name: "Greatest", version: "0.1.0", dedupe: "greatest", run(e) { for (const [id, ts] of e.items) this.$emit({ id }, { id, ts }); } };`,
      ),
    );
    const first = await hookline.sources.run(ws, source.id, {
      items: [
        [5, 500],
        [3, 300],
        [4, 400],
      ],
    });
    expect(first.emitted.map((e) => e.body)).toEqual([{ id: 3 }, { id: 4 }, { id: 5 }]);
    const second = await hookline.sources.run(ws, source.id, {
      items: [
        [4, 400],
        [6, 600],
      ],
    });
    expect(second.emitted.map((e) => e.body)).toEqual([{ id: 6 }]);
  });

  it("keeps db state across invocations and updates, isolated between components", async () => {
    const counter = `export default { name: "Counter", version: "0.1.0", props: { db: "$.service.db", step: { type: "integer" } },
      run() { const n = (this.db.get("n") ?? 0) + this.step; this.db.set("n", n); this.$emit({ n }); } };`;
    const a = await hookline.sources.deploy(ws, { ...code(counter), props: { step: 1 } });
    const b = await hookline.sources.deploy(ws, { ...code(counter), props: { step: 100 } });
    expect([a.slug, b.slug]).toEqual(["counter", "counter-1"]);
    await hookline.sources.run(ws, a.id);
    await hookline.sources.run(ws, a.id);
    await hookline.sources.run(ws, b.id);
    await hookline.sources.update(ws, a.id, { props: { step: 10 } });
    const after = await hookline.sources.run(ws, a.id);
    expect(after.emitted[0]?.body).toEqual({ n: 12 });
    expect((await hookline.sources.run(ws, b.id)).emitted[0]?.body).toEqual({ n: 200 });
  });

  it("encrypts secret props at rest and decrypts them for run", async () => {
    const source = await hookline.sources.deploy(ws, {
      ...code(
        `export default { name: "Secretive", version: "0.1.0", props: { token: { type: "string", secret: true } }, run() { this.$emit({ token: this.token }); } };`,
      ),
      props: { token: "sk_live_very_secret" },
    });
    const raw = await store.deployedComponents.get(ws, source.id);
    expect(JSON.stringify(raw)).not.toContain("sk_live_very_secret");
    expect(String(raw?.props.token)).toMatch(/^enc:v1:/);
    expect(source.props.token).toBe("********");
    expect((await hookline.sources.run(ws, source.id)).emitted[0]?.body).toEqual({
      token: "sk_live_very_secret",
    });
  });
});

describe("events and logs", () => {
  it("reads events with cursors and channels, keeps the newest by retention, and deletes them", async () => {
    const small = createHookline({ clock, secretsKey: "k", retention: { events: 5, logs: 3 } });
    const w = (await small.workspaces.create({ name: "r" })).id;
    const source = await small.sources.deploy(
      w,
      code(
        `export default { name: "Many", version: "0.1.0", run(e) { for (let i = 0; i < e.n; i++) { console.log("line " + i); this.$emit({ i }, { name: i % 2 ? "odd" : "even" }); } } };`,
      ),
    );
    await small.sources.run(w, source.id, { n: 8 });
    // Retention is off the emit path: everything is there until the sweep (within intervalMs).
    expect((await small.sources.events(w, source.id, { limit: 100 })).items).toHaveLength(8);
    expect(await small.retention.sweep()).toBe(3 + 5); // 3 events and 5 log lines over the bounds
    const first = await small.sources.events(w, source.id, { limit: 2 });
    expect(first.items.map((e) => e.body)).toEqual([{ i: 7 }, { i: 6 }]);
    const second = await small.sources.events(w, source.id, {
      limit: 10,
      before: first.nextCursor as string,
    });
    expect(second.items.map((e) => e.body)).toEqual([{ i: 5 }, { i: 4 }, { i: 3 }]);
    expect((await small.sources.events(w, source.id, { channel: "odd" })).items.map((e) => e.body)).toEqual([
      { i: 7 },
      { i: 5 },
      { i: 3 },
    ]);
    expect((await small.sources.logs(w, source.id)).items.map((l) => l.message)).toEqual([
      "line 5",
      "line 6",
      "line 7",
    ]);
    expect(await small.sources.deleteEvents(w, source.id, [first.items[0]?.id as string])).toBe(1);
    expect(await small.sources.deleteEvents(w, source.id)).toBe(4);
    expect((await small.sources.events(w, source.id)).items).toEqual([]);
    await small.close();
  });

  it("trims by bytes too, by itself shortly after the write", async () => {
    // Each body {"s":"xxxxxxxxxx"} is 18 bytes of JSON: 40 bytes keep the newest two.
    const small = createHookline({ clock, secretsKey: "k", retention: { eventBytes: 40, intervalMs: 10 } });
    const w = (await small.workspaces.create({ name: "b" })).id;
    const source = await small.sources.deploy(
      w,
      code(
        `export default { name: "Bytes", version: "0.1.0", run() { for (let i = 0; i < 4; i++) this.$emit({ s: String(i).padEnd(10, "x") }); } };`,
      ),
    );
    await small.sources.run(w, source.id);
    const deadline = Date.now() + 10_000;
    let bodies: unknown[] = [];
    while (Date.now() < deadline) {
      bodies = (await small.sources.events(w, source.id)).items.map((e) => e.body);
      if (bodies.length <= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(bodies).toEqual([{ s: "3xxxxxxxxx" }, { s: "2xxxxxxxxx" }]);
    await small.close();
  });
});

describe("errors", () => {
  it("invalid props are 422 with the prop named", async () => {
    await expect(
      hookline.sources.deploy(ws, {
        ...code(
          `export default { name: "N", version: "0.1.0", props: { n: { type: "integer", min: 1 } }, run() {} };`,
        ),
        props: { n: 0 },
      }),
    ).rejects.toMatchObject({
      code: "invalid_prop_value",
      status: 422,
      details: { problems: [expect.objectContaining({ path: "n" })] },
    });
    await expect(
      hookline.sources.deploy(ws, {
        ...code(
          `export default { name: "N", version: "0.1.0", props: { n: { type: "integer" } }, run() {} };`,
        ),
        props: {},
      }),
    ).rejects.toMatchObject({ code: "invalid_prop_value", message: expect.stringContaining("n:") });
  });

  it("unknown components and sources are 404, in any workspace but their own", async () => {
    await expect(hookline.sources.deploy(ws, { componentId: "sc_nope" })).rejects.toMatchObject({
      code: "not_found",
      status: 404,
    });
    const source = await hookline.sources.deploy(
      ws,
      code(`export default { name: "Mine", version: "0.1.0", run() {} };`),
    );
    const other = (await hookline.workspaces.create({ name: "other" })).id;
    for (const call of [
      () => hookline.sources.get(other, source.id),
      () => hookline.sources.update(other, source.id, { active: false }),
      () => hookline.sources.delete(other, source.id),
      () => hookline.sources.run(other, source.id),
      () => hookline.sources.events(other, source.id),
      () => hookline.components.get(other, source.componentId),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "not_found", status: 404 });
    }
  });

  it("invalid code is 422 with every problem", async () => {
    await expect(
      hookline.components.save(ws, { code: `export default { name: "X", run() {} };` }),
    ).rejects.toMatchObject({
      code: "invalid_component",
      status: 422,
    });
  });
});

describe("workspaces and API keys", () => {
  it("creates keys stored hashed, resolves and revokes them", async () => {
    const { key, apiKey } = await hookline.apiKeys.create(ws, { name: "ci" });
    expect(key).toMatch(/^hl_/);
    expect(JSON.stringify(await store.apiKeys.list(ws))).not.toContain(key);
    expect((await hookline.apiKeys.resolve(key))?.id).toBe(ws);
    expect(await hookline.apiKeys.resolve(`${key}x`)).toBeUndefined();
    expect(await hookline.apiKeys.revoke(ws, apiKey.id)).toBe(true);
    expect(await hookline.apiKeys.resolve(key)).toBeUndefined();
  });
});
