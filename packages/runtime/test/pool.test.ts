/**
 * The runtime in pool mode (issue 15): the same contract as in-thread, and a component that cannot
 * be interrupted holds up neither the caller's thread nor the other components.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PoolRuntime, Runtime } from "../src/index.js";
import { memoryDb, mountCode, testRuntime } from "./_helpers.js";

const source = (body: string, props = "{}") =>
  `export default { name: "P", version: "0.1.0", props: ${props},\n  async run(event) {\n${body}\n  },\n};\n`;

/** Uninterruptible: QuickJS's Array.prototype.join over a sparse array never checks the interrupt. */
const HANG = "    new Array(2 ** 32 - 1).join('');";

describe("pool mode: the in-thread contract", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = testRuntime({ mode: "pool", pool: { size: 2 } });
    // Starting the threads (tsx compiles the sources in each) is slow on a loaded machine.
    await runtime.load({ filename: "warm.mjs", code: source("") });
  }, 60_000);
  afterAll(() => runtime.close());

  it("runs emits, awaited db reads and writes, fetch and data stores through the bridges", {
    timeout: 30_000,
  }, async () => {
    const db = memoryDb({ count: 1 });
    const fetched: string[] = [];
    const mounted = await mountCode(
      runtime,
      source(
        `    const n = await this.db.get("count");
    this.db.set("count", n + 1);
    const res = await fetch("https://example.test/x");
    this.$emit({ n, body: await res.text() }, { id: n });`,
        `{ db: "$.service.db" }`,
      ),
      {},
      {
        db: db.bridge,
        fetch: async (request) => {
          fetched.push(request.url);
          return { status: 200, headers: {}, body: "hello" };
        },
      },
    );
    for (const n of [1, 2]) {
      const result = await mounted.run({});
      expect(result.error).toBeUndefined();
      expect(result.emits).toEqual([
        { event: { n, body: "hello" }, json: JSON.stringify({ n, body: "hello" }), meta: { id: n } },
      ]);
    }
    expect(db.values.get("count")).toBe(3);
    expect(fetched).toEqual(["https://example.test/x", "https://example.test/x"]);
    mounted.dispose();
  });

  it("runs actions (exports, return value, sends, flow exit), hooks, options and additionalProps", async () => {
    const loaded = await runtime.load({
      filename: "action.mjs",
      code: `export default { name: "A", version: "0.1.0", type: "action",
        props: { color: { type: "string", options() { return ["red", "blue"]; } }, store: { type: "data_store" } },
        async additionalProps() { return { extra: { type: "string", label: "Extra" } }; },
        async run({ $, steps }) {
          await this.store.set("k", steps.n);
          $.export("seen", await this.store.get("k"));
          $.send.http({ method: "POST", url: "https://example.test" });
          if (steps.stop) return $.flow.exit("stopped");
          return { color: this.color };
        } };`,
    });
    const values = new Map<string, unknown>();
    const mounted = await runtime.mount({
      id: "dc_action",
      bundle: loaded.bundle,
      props: { color: "red", store: "main" },
      bridges: {
        dataStore: async (request) => {
          if (request.op === "set") values.set(`${request.store}:${request.key}`, request.value);
          return request.op === "get" ? values.get(`${request.store}:${request.key}`) : undefined;
        },
      },
    });
    const ran = await mounted.runAction({ n: 4 });
    expect(ran.exports).toEqual({ seen: 4 });
    expect(ran.returnValue).toEqual({ color: "red" });
    expect(ran.sends).toHaveLength(1);
    expect((await mounted.runAction({ stop: true })).flowExit).toEqual({ reason: "stopped" });
    expect((await mounted.options("color", {})).returnValue).toMatchObject({ options: ["red", "blue"] });
    expect((await mounted.additionalProps({})).returnValue).toMatchObject({ extra: { type: "string" } });
    mounted.dispose();
    const withHook = await mountCode(
      runtime,
      `export default { name: "S", version: "0.1.0", props: {},
        hooks: { async deploy() { console.log("deployed"); } }, run() {} };`,
    );
    expect((await withHook.hook("deploy")).logs[0]?.message).toBe("deployed");
    withHook.dispose();
  });

  it("keeps /tmp across invocations and resolves npm packages at load", async () => {
    const mounted = await mountCode(
      runtime,
      `import fs from "fs"; import chunk from "lodash/chunk.js";
      export default { name: "T", version: "0.1.0", props: {}, async run() {
        const before = fs.existsSync("/tmp/seen") ? fs.readFileSync("/tmp/seen", "utf8") : "";
        fs.writeFileSync("/tmp/seen", before + "x");
        this.$emit({ before, chunks: chunk([1, 2, 3], 2) });
      } };`,
    );
    expect((await mounted.run({})).emits[0]?.event).toEqual({ before: "", chunks: [[1, 2], [3]] });
    expect((await mounted.run({})).emits[0]?.event).toMatchObject({ before: "x" });
    mounted.dispose();
  });

  it("reports load errors as the in-thread runtime does", async () => {
    await expect(
      runtime.load({ filename: "x.mjs", code: "throw new Error('at load')" }),
    ).rejects.toMatchObject({
      code: "load_failed",
    });
    await expect(runtime.load({ filename: "x.txt", code: "" })).rejects.toMatchObject({
      code: "bad_request",
    });
  });
});

describe("pool mode: a component that cannot be interrupted", () => {
  let runtime: PoolRuntime;
  beforeAll(async () => {
    runtime = testRuntime({
      mode: "pool",
      pool: { size: 2, killAfterMs: 300 },
      limits: { runTimeoutMs: 600, httpTimeoutMs: 400 },
    }) as PoolRuntime;
    await runtime.load({ filename: "warm.mjs", code: source("") });
  }, 60_000);
  afterAll(() => runtime.close());

  it("ends with timeout, its thread is replaced, and other components keep answering meanwhile", async () => {
    const hang = await mountCode(
      runtime,
      source(`    if (!event.ok) ${HANG.trim()}\n    this.$emit({ ok: 1 });`),
    );
    // Two more components, one of them on the hanging component's thread.
    const others = [
      await mountCode(runtime, source("    this.$emit({ n: event.n });")),
      await mountCode(runtime, source("    this.$emit({ n: event.n });")),
    ];
    for (const other of others) expect((await other.run({ n: 0 })).emits).toHaveLength(1);
    const killedBefore = runtime.threads.killed;
    let hangEnded = false;
    const hung = hang.run({}, { trigger: "http" }).finally(() => {
      hangEnded = true;
    });
    // While it hangs (until its deadline and the kill margin), the others answer, each in turn.
    const answeredWhileHung: number[] = [];
    let n = 0;
    await Promise.all(
      others.map(async (other, i) => {
        while (!hangEnded) {
          const k = ++n;
          const result = await other.run({ n: k });
          expect(result.emits[0]?.event).toEqual({ n: k });
          if (!hangEnded) answeredWhileHung[i] = (answeredWhileHung[i] ?? 0) + 1;
        }
      }),
    );
    const result = await hung;
    expect(result.error).toMatchObject({ code: "timeout" });
    expect(result.error?.message).toMatch(/thread was replaced/);
    expect(runtime.threads.killed).toBe(killedBefore + 1);
    expect(runtime.threads.size).toBe(2);
    // The one on another thread answered before the hanging run ended (how fast: bench:runtime).
    expect(Math.max(0, ...answeredWhileHung)).toBeGreaterThan(0);
    // The component is mounted again and works.
    expect((await hang.run({ ok: true })).emits).toEqual([
      { event: { ok: 1 }, json: JSON.stringify({ ok: 1 }), meta: {} },
    ]);
    for (const m of [hang, ...others]) m.dispose();
  }, 30_000);

  it("a loop the interrupt stops ends with timeout at its deadline, without replacing the thread", async () => {
    const loop = await mountCode(runtime, source("    while (true) {}"));
    const killed = runtime.threads.killed;
    const result = await loop.run({});
    expect(result.error).toMatchObject({ code: "timeout", name: "TimeoutError" });
    expect(runtime.threads.killed).toBe(killed);
    loop.dispose();
  }, 30_000);

  it("a memory bomb and deep recursion fail cleanly in their thread", async () => {
    const loaded = await runtime.load({
      filename: "bomb.mjs",
      code: source("    const keep = []; while (true) keep.push({ n: keep.length, s: 'x' + keep.length });"),
    });
    const bomb = await runtime.mount({
      id: "dc_bomb",
      bundle: loaded.bundle,
      props: {},
      limits: { runTimeoutMs: 20_000, memoryBytes: 16 * 1024 * 1024 },
    });
    expect((await bomb.run({})).error?.code).toBe("memory");
    const deep = await mountCode(runtime, source("    function f() { return f() + 1; }\n    f();"));
    const result = await deep.run({});
    expect(result.error).toMatchObject({ code: "stack_overflow" });
    expect(result.error?.stack).toMatch(/at f \(component\.mjs:3:\d+\)/);
    bomb.dispose();
    deep.dispose();
  }, 30_000);

  it("a component hanging at load fails the load with load_failed and a replaced thread", async () => {
    const killed = runtime.threads.killed;
    await expect(
      runtime.load({
        filename: "hang.mjs",
        code: `${HANG}\nexport default { name: "H", version: "0.1.0", props: {}, run() {} };`,
      }),
    ).rejects.toMatchObject({ code: "load_failed" });
    expect(runtime.threads.killed).toBe(killed + 1);
  }, 30_000);
});
