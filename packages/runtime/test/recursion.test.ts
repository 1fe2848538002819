/**
 * Issue 14, item 8: recursion in a component is a clean failed invocation with the component's
 * line (no host stack overflow, no "Maximum call stack size exceeded", no WebAssembly abort), and
 * a component replacing JSON.stringify or JSON.parse does not break the host's marshalling.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Runtime } from "../src/index.js";
import { mountCode, testRuntime } from "./_helpers.js";

const source = (body: string, top = "") =>
  `${top}\nexport default { name: "R", version: "0.1.0", props: {},\n  async run(event) {\n${body}\n  },\n};\n`;

const stderr: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  stderr.length = 0;
});

function captureStderr() {
  const push = (chunk: unknown) => {
    stderr.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stderr, "write").mockImplementation(push as never);
  vi.spyOn(console, "error").mockImplementation((...args) => push(args.join(" ")));
  vi.spyOn(console, "warn").mockImplementation((...args) => push(args.join(" ")));
}

describe.each(["thread", "pool"] as const)("in %s mode", (mode) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = testRuntime({ mode, pool: { size: 1 } });
    await runtime.load({ filename: "warm.mjs", code: source("") });
  }, 60_000);
  afterAll(() => runtime.close());

  describe("recursion", () => {
    it("infinite recursion is a stack_overflow error naming the component's line, and the next run works", async () => {
      captureStderr();
      const mounted = await mountCode(
        runtime,
        source(`    if (event.stop) { this.$emit({ ok: true }); return; }
    function down(n) { return down(n + 1) + 1; }
    down(0);`),
      );
      const result = await mounted.run({});
      expect(result.error).toMatchObject({ code: "stack_overflow", name: "InternalError" });
      expect(result.error?.message).not.toMatch(/Maximum call stack/);
      expect(result.error?.stack).toMatch(/at down \(component\.mjs:5:\d+\)/);
      // A thousand identical frames are cut.
      expect(result.error?.stack?.split("\n").length).toBeLessThan(20);
      expect(result.logs.at(-1)).toMatchObject({ level: "error" });
      expect(result.logs.at(-1)?.message).toMatch(/stack overflow[\s\S]*component\.mjs:5/);
      const next = await mounted.run({ stop: true });
      expect(next.error).toBeUndefined();
      expect(next.emits).toHaveLength(1);
      mounted.dispose();
      expect(stderr.join("")).not.toMatch(/Aborted|Assertion failed|Maximum call stack/);
    });

    it("a component may catch its own stack overflow", async () => {
      const mounted = await mountCode(
        runtime,
        source(`    function down(n) { return down(n + 1) + 1; }
    try { down(0); } catch (e) { this.$emit({ caught: String(e) }); }`),
      );
      const result = await mounted.run({});
      expect(result.error).toBeUndefined();
      expect(result.emits[0]?.event).toEqual({ caught: "InternalError: stack overflow" });
      mounted.dispose();
    });

    it("async recursion and recursive toJSON are stack_overflow too", async () => {
      captureStderr();
      const asyncRec = await mountCode(
        runtime,
        source(`    const f = async (n) => (await f(n + 1)) + 1;
    await f(0);`),
      );
      const a = await asyncRec.run({});
      expect(a.error).toMatchObject({ code: "stack_overflow" });
      expect(a.error?.stack).toMatch(/at f \(component\.mjs:4:\d+\)/);
      asyncRec.dispose();
      const toJson = await mountCode(
        runtime,
        source(`    const o = {}; o.toJSON = function again() { return { x: again.call(o) }; };
    this.$emit(o);`),
      );
      const t = await toJson.run({});
      expect(t.error).toMatchObject({ code: "stack_overflow" });
      expect(t.error?.stack).toMatch(/at again \(component\.mjs:4:\d+\)/);
      toJson.dispose();
      expect(stderr.join("")).not.toMatch(/Aborted|Assertion failed/);
    });

    it("nesting too deep for a built-in (String of deeply nested arrays) fails cleanly, and the next run works", async () => {
      captureStderr();
      const mounted = await mountCode(
        runtime,
        source(`    if (event.stop) { this.$emit({ ok: true }); return; }
    let a = []; for (let i = 0; i < 200000; i++) a = [a];
    this.$emit({ text: String(a) });`),
      );
      const result = await mounted.run({});
      expect(result.error).toMatchObject({ code: "stack_overflow" });
      expect(result.error?.message).not.toMatch(/Maximum call stack/);
      expect(result.emits).toEqual([]);
      const next = await mounted.run({ stop: true });
      expect(next.error).toBeUndefined();
      expect(next.emits).toHaveLength(1);
      mounted.dispose();
      // Other sandboxes keep working (the module the overflow hit is replaced).
      const other = await mountCode(runtime, source("    this.$emit({ fine: true });"));
      expect((await other.run({})).emits).toHaveLength(1);
      other.dispose();
      expect(stderr.join("")).not.toMatch(/Aborted|Assertion failed/);
    });

    it("recursion while loading fails the load with load_failed, not a crash", async () => {
      await expect(
        runtime.load({
          filename: "component.mjs",
          code: source("", "function down(n) { return down(n + 1) + 1; }\ndown(0);"),
        }),
      ).rejects.toMatchObject({ code: "load_failed", message: expect.stringMatching(/stack overflow/) });
    });
  });

  describe("a component replacing JSON", () => {
    it("JSON.stringify replaced by a thrower: its emits and results still reach the host", async () => {
      const mounted = await mountCode(
        runtime,
        source(`    JSON.stringify = () => { throw new Error("no stringify here"); };
    JSON.parse = () => 42;
    this.$emit({ n: event.n }, { id: event.n });
    return { back: event.n };`),
      );
      for (const n of [1, 2]) {
        const result = await mounted.run({ n });
        expect(result.error).toBeUndefined();
        expect(result.emits).toEqual([{ event: { n }, json: JSON.stringify({ n }), meta: { id: n } }]);
        expect(result.returnValue).toEqual({ back: n });
      }
      mounted.dispose();
    });

    it("JSON.stringify replaced at load time: the component loads and runs", async () => {
      const mounted = await mountCode(
        runtime,
        source("    this.$emit({ a: JSON.stringify({}) });", 'JSON.stringify = () => "{";'),
      );
      const result = await mounted.run({});
      expect(result.error).toBeUndefined();
      expect(result.emits[0]?.event).toEqual({ a: "{" });
      mounted.dispose();
    });
  });
});
