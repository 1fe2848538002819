// The emit pipeline's caps and rules (issue 14, items 7 and 9): emits per run, event size and
// channel names. A refused event is counted in the run summary and logged; the rest of the run is
// kept.
import { CHANNEL_NAME_RULE } from "@hookline/core";
import { createMemoryStore } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenEmits } from "../src/emit-pipeline.js";
import { createHookline, DEFAULT_ENGINE_LIMITS, type Hookline } from "../src/index.js";

const hookline: Hookline = createHookline({
  store: createMemoryStore(),
  worker: false,
  secretsKey: "pipeline-tests",
  limits: { maxEmitsPerRun: 5, maxEventBytes: 200 },
});
let ws: string;
beforeAll(async () => {
  ws = (await hookline.workspaces.create({ name: "acme" })).id;
});
afterAll(() => hookline.close());

/** Deploys a source whose run is `body`, and returns its id. */
async function deploy(body: string, engine = hookline, workspaceId = ws): Promise<string> {
  const code = `export default { name: "Emitter", version: "0.1.0", props: { http: "$.interface.http" },
    async run(event) { ${body} } };`;
  return (await engine.sources.deploy(workspaceId, { code: { code } })).id;
}

const logLines = async (id: string, engine = hookline, workspaceId = ws) =>
  (await engine.sources.logs(workspaceId, id)).items.map((l) => `${l.level} ${l.message}`);

describe("channel names", () => {
  it("refuses an event on an invalid channel with a log line naming it and the rule; the run's other events are kept", async () => {
    const id = await deploy(`
      this.$emit({ n: 1 }, { name: "$errors" });
      this.$emit({ n: 2 }, { name: "bad\\nname" });
      this.$emit({ n: 3 }, { name: "🎉" });
      this.$emit({ n: 4 }, { name: "x".repeat(20000) });
      this.$emit({ n: 5 }, { name: "orders.created" });`);
    const summary = await hookline.sources.run(ws, id);
    expect(summary.emitted.map((e) => [e.channel, e.body])).toEqual([
      ["$errors", { n: 1 }],
      ["orders.created", { n: 5 }],
    ]);
    expect(summary.refused).toEqual({ total: 3, invalid: 3, overEmitLimit: 0, tooLarge: 0 });
    expect(summary.error).toBeUndefined();
    const lines = await logLines(id);
    const rule = `a channel name is ${CHANNEL_NAME_RULE}`;
    expect(lines).toEqual([
      `error invalid_emit: event refused: the channel "bad\\nname" is not valid: ${rule}`,
      `error invalid_emit: event refused: the channel "🎉" is not valid: ${rule}`,
      `error invalid_emit: event refused: the channel "${"x".repeat(64)}"... (20000 characters) is not valid: ${rule}`,
    ]);
  });

  it("an HTTP request whose run emits on a bad channel still answers 200 and keeps the valid events", async () => {
    const id = await deploy(
      `this.$emit(event.body, { name: event.body.channel }); this.$emit({ ok: true });`,
    );
    const source = await hookline.sources.get(ws, id);
    const reply = await hookline.ingress(source.endpointId as string, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ channel: "line\r\nx-injected: 1" }),
    });
    expect(reply.status).toBe(200);
    const events = (await hookline.sources.events(ws, id)).items;
    expect(events.map((e) => [e.channel, e.body])).toEqual([["default", { ok: true }]]);
    expect(await logLines(id)).toEqual([
      expect.stringContaining(`the channel "line\\r\\nx-injected: 1" is not valid`),
    ]);
  });
});

describe("caps", () => {
  it("limits.maxEmitsPerRun: the first emits are kept, the rest refused with one log line", async () => {
    const id = await deploy(`for (let i = 1; i <= 8; i++) this.$emit({ i });`);
    const summary = await hookline.sources.run(ws, id);
    expect(summary.emitted.map((e) => e.body)).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }, { i: 5 }]);
    expect(summary.refused).toEqual({ total: 3, invalid: 0, overEmitLimit: 3, tooLarge: 0 });
    expect(await logLines(id)).toEqual([
      "error emit_limit: 3 events refused: this run called $emit 8 times and limits.maxEmitsPerRun is 5",
    ]);
  });

  it("limits.maxEventBytes: events over the size (as JSON) are refused with one log line", async () => {
    const id = await deploy(`
      this.$emit({ small: 1 });
      this.$emit({ big: "x".repeat(300) });
      this.$emit("y".repeat(199));
      this.$emit({ big: "é".repeat(150) });`);
    const summary = await hookline.sources.run(ws, id);
    // "y" x 199 is 201 bytes of JSON (quotes included); "é" is 2 bytes in UTF-8.
    expect(summary.emitted.map((e) => e.body)).toEqual([{ small: 1 }]);
    expect(summary.refused).toEqual({ total: 3, invalid: 0, overEmitLimit: 0, tooLarge: 3 });
    expect(await logLines(id)).toEqual([
      "error event_too_large: 3 events refused: each was over limits.maxEventBytes (200 bytes of JSON)",
    ]);
  });

  it("every kind at once: one line per kind, the summary counts each", async () => {
    const id = await deploy(`
      this.$emit({ ok: 1 });
      this.$emit({ big: "x".repeat(300) });
      this.$emit({ bad: 1 }, { name: "tab\\there" });
      this.$emit({ bad: 2 }, { name: "tab\\there" });
      this.$emit({ ok: 2 }, { summary: 5 });
      this.$emit({ over: 1 });`);
    const summary = await hookline.sources.run(ws, id);
    expect(summary.emitted.map((e) => e.body)).toEqual([{ ok: 1 }]);
    expect(summary.refused).toEqual({ total: 5, invalid: 3, overEmitLimit: 1, tooLarge: 1 });
    expect(await logLines(id)).toEqual([
      `error invalid_emit: event refused: the channel "tab\\there" is not valid: a channel name is ${CHANNEL_NAME_RULE} (2 events)`,
      "error invalid_emit: event refused: summary: summary must be a string",
      "error emit_limit: 1 event refused: this run called $emit 6 times and limits.maxEmitsPerRun is 5",
      "error event_too_large: 1 event refused: each was over limits.maxEventBytes (200 bytes of JSON)",
    ]);
  });

  it("a run with nothing refused has no refused field", async () => {
    const id = await deploy(`this.$emit({ fine: true });`);
    const summary = await hookline.sources.run(ws, id);
    expect(summary.refused).toBeUndefined();
    expect(summary.emitted).toHaveLength(1);
  });

  it("the defaults: 1,000 emits per run and 1 MB per event (and 6 MB per workflow run)", async () => {
    expect(DEFAULT_ENGINE_LIMITS).toEqual({
      maxQueuedInvocations: 100,
      maxEmitsPerRun: 1000,
      maxEventBytes: 1048576,
      maxDataStoreKeys: 10_000,
      maxDataStoreValueBytes: 262_144,
      maxExecutionBytes: 6 * 1048576,
    });
    const engine = createHookline({ store: createMemoryStore(), worker: false, retention: { events: 5000 } });
    const workspaceId = (await engine.workspaces.create({ name: "defaults" })).id;
    const id = await deploy("for (let i = 0; i < 1001; i++) this.$emit({ i });", engine, workspaceId);
    const summary = await engine.sources.run(workspaceId, id);
    expect(summary.emitted).toHaveLength(1000);
    expect(summary.emitted.at(-1)?.body).toEqual({ i: 999 });
    expect(summary.refused).toEqual({ total: 1, invalid: 0, overEmitLimit: 1, tooLarge: 0 });
    // Within the cap, an event of exactly 1 MB of JSON is kept; one byte over is refused.
    const sizes = await deploy(
      `this.$emit("z".repeat(1024 * 1024 - 2)); this.$emit("z".repeat(1024 * 1024 - 1));`,
      engine,
      workspaceId,
    );
    const second = await engine.sources.run(workspaceId, sizes);
    expect(second.emitted.map((e) => (e.body as string).length)).toEqual([1024 * 1024 - 2]);
    expect(second.refused).toMatchObject({ tooLarge: 1 });
    await engine.close();
  });
});

describe("screenEmits", () => {
  it("is pure: caps first, in emit order", () => {
    const screened = screenEmits({ maxEmitsPerRun: 2, maxEventBytes: 10 }, [
      { event: "0123456789", meta: {} },
      { event: 1, meta: {} },
      { event: 2, meta: {} },
    ]);
    expect(screened.accepted).toEqual([{ event: 1, meta: {} }]);
    expect(screened.refused).toEqual({ total: 2, invalid: 0, overEmitLimit: 1, tooLarge: 1 });
  });
});
