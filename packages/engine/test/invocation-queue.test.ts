// The one per-source invocation queue (mounts.ts): a source's invocations never overlap, whatever
// calls them, and the queue is bounded (`source_busy`, 429 with Retry-After at the endpoint).
import { createMemoryStore } from "@hookline/store";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeClock, createHookline, type Hookline } from "../src/index.js";
import { type InstrumentedRuntime, instrumentedRuntime } from "./_instrumented-runtime.js";

const SOURCE = `export default {
  name: "Counter", version: "0.1.0", dedupe: "unique",
  props: { db: "$.service.db", http: "$.interface.http",
    color: { type: "string", optional: true, async options() { return ["red", "blue"]; } } },
  async run(event) {
    const n = (this.db.get("n") ?? 0) + 1;
    this.db.set("n", n);
    this.$emit({ n }, { id: event.body?.id ?? n });
  },
};`;

const TIMER_SOURCE = `export default {
  name: "Tick", version: "0.1.0",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } },
  run() { this.$emit({ tick: true }); },
};`;

let engine: Hookline | undefined;
let instrumented: InstrumentedRuntime;
afterEach(async () => {
  instrumented?.open();
  await engine?.close();
  engine = undefined;
});

async function setup(limits: { maxQueuedInvocations?: number } = {}) {
  instrumented = instrumentedRuntime();
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  engine = createHookline({
    store: createMemoryStore(),
    runtime: instrumented.runtime,
    clock,
    worker: false,
    secretsKey: "queue-tests",
    limits,
  });
  const ws = (await engine.workspaces.create({ name: "acme" })).id;
  return { hookline: engine, ws, clock };
}

const post = (hookline: Hookline, endpointId: string, body: unknown) =>
  hookline.ingress(endpointId, {
    method: "POST",
    path: "/",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("one invocation at a time per source", () => {
  it("runs, options and hooks of one source never overlap; db and dedupe state stay consistent", async () => {
    const { hookline, ws } = await setup();
    const source = await hookline.sources.deploy(ws, { code: { code: SOURCE } });
    const endpoint = source.endpointId as string;
    await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => post(hookline, endpoint, { id: `same-${i % 3}` })),
      ...Array.from({ length: 4 }, () => hookline.sources.run(ws, source.id, { body: { id: "same-0" } })),
      hookline.sources.options(ws, { sourceId: source.id }, "color"),
      hookline.sources.options(ws, { sourceId: source.id }, "color"),
    ]);
    await hookline.sources.deactivate(ws, source.id);

    expect(instrumented.calls.filter((c) => c === `${source.id}:run`)).toHaveLength(16);
    expect(instrumented.calls.filter((c) => c === `${source.id}:options`)).toHaveLength(2);
    expect(instrumented.maxConcurrent.get(source.id)).toBe(1);
    // Each run read the db after the previous one wrote it, and dedupe saw every earlier id.
    expect(await hookline.store.kv.get(source.id, "n")).toBe(16);
    const ids = (await hookline.sources.events(ws, source.id)).items.map((e) => e.eventId).sort();
    expect(ids).toEqual(["same-0", "same-1", "same-2"]);
  });
});

describe("the bounded queue", () => {
  it("refuses the invocation past limits.maxQueuedInvocations: source_busy (429) from run, 429 + Retry-After at the endpoint", async () => {
    const { hookline, ws } = await setup({ maxQueuedInvocations: 2 });
    const source = await hookline.sources.deploy(ws, { code: { code: SOURCE } });
    const endpoint = source.endpointId as string;
    instrumented.close();
    const running = post(hookline, endpoint, { id: "a" });
    await instrumented.held(1);
    // One runs (held at the gate), two wait: the queue is full.
    const waiting = [
      hookline.sources.run(ws, source.id, { body: { id: "b" } }),
      post(hookline, endpoint, { id: "c" }),
    ];

    const refused = await hookline.sources.run(ws, source.id).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      name: "HooklineError",
      code: "source_busy",
      status: 429,
      details: { retryAfter: expect.any(Number) },
    });
    expect((refused as { details: { retryAfter: number } }).details.retryAfter).toBeGreaterThanOrEqual(1);
    expect((refused as Error).message).toContain("limits.maxQueuedInvocations is 2");

    await expect(hookline.sources.options(ws, { sourceId: source.id }, "color")).rejects.toMatchObject({
      code: "source_busy",
      status: 429,
    });

    const busy = await post(hookline, endpoint, { id: "d" });
    expect(busy.status).toBe(429);
    expect(Number(busy.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(String(busy.body)).error.code).toBe("source_busy");

    // A lifecycle change is never refused: it waits its turn behind the queued runs.
    const deactivated = hookline.sources.deactivate(ws, source.id);
    instrumented.open();
    expect((await running).status).toBe(200);
    await Promise.all(waiting);
    expect((await deactivated).active).toBe(false);
    const stored = (await hookline.sources.events(ws, source.id)).items.map((e) => e.eventId).sort();
    expect(stored).toEqual(["a", "b", "c"]);

    // Once drained, the source takes invocations again (reactivated).
    await hookline.sources.activate(ws, source.id);
    expect((await post(hookline, endpoint, { id: "e" })).status).toBe(200);
  });

  it("a timer tick that finds its source's queue full is skipped with a log line, not run later in a burst", async () => {
    const { hookline, ws, clock } = await setup({ maxQueuedInvocations: 1 });
    const source = await hookline.sources.deploy(ws, { code: { code: TIMER_SOURCE } });
    instrumented.close();
    const first = hookline.sources.run(ws, source.id);
    await instrumented.held(1);
    const second = hookline.sources.run(ws, source.id);
    clock.advance(60_000);
    expect(await hookline.timers.tick()).toBe(0);
    instrumented.open();
    await Promise.all([first, second]);
    const logs = (await hookline.sources.logs(ws, source.id)).items.map((l) => [l.level, l.message]);
    expect(logs).toContainEqual([
      "warn",
      expect.stringMatching(/^timer: tick skipped: .*maxQueuedInvocations/),
    ]);
    // The next tick runs as scheduled.
    clock.advance(60_000);
    expect(await hookline.timers.tick()).toBe(1);
    expect((await hookline.sources.events(ws, source.id)).items).toHaveLength(3);
  });

  it("limits must be positive integers", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createHookline({ limits: { maxQueuedInvocations: bad }, worker: false })).toThrow(
        expect.objectContaining({
          code: "bad_request",
          message: expect.stringContaining("limits.maxQueuedInvocations"),
        }),
      );
    }
  });
});
