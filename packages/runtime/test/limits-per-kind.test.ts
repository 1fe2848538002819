/**
 * Deadlines and memory caps per invocation kind (issue 15), in both sandbox modes: a `run` started
 * by an HTTP request gets `httpTimeoutMs` and `httpMemoryBytes`; timers, hooks and manual runs get
 * `runTimeoutMs` and `memoryBytes`, in the same warm sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MountedComponent, Runtime } from "../src/index.js";
import { testRuntime } from "./_helpers.js";

const MB = 1024 * 1024;

/**
 * Holds about `event.mb` MB of arrays (8-byte values) for 60 ms, then lets them go. (The sandbox
 * measures its heap every 10 ms while the guest runs: a bomb is stopped within that time.)
 */
const ALLOCATE = `export default { name: "Alloc", version: "0.1.0", props: {},
  async run(event) {
    if (event.loop) { const until = Date.now() + event.loop; while (Date.now() < until) {} }
    const keep = [];
    for (let i = 0; i < event.mb * 16; i++) keep.push(new Array(8192).fill(i));
    const until = Date.now() + 60; while (Date.now() < until) {}
    this.$emit({ chunks: keep.length });
  },
};`;

describe.each(["thread", "pool"] as const)("limits per invocation kind in %s mode", (mode) => {
  let runtime: Runtime;
  let mounted: MountedComponent;
  beforeAll(async () => {
    runtime = testRuntime({
      mode,
      pool: { size: 2 },
      limits: { memoryBytes: 48 * MB, httpMemoryBytes: 12 * MB },
    });
    const loaded = await runtime.load({ filename: "alloc.mjs", code: ALLOCATE });
    mounted = await runtime.mount({ id: "dc_alloc", bundle: loaded.bundle, props: {} });
  }, 60_000);
  afterAll(() => runtime.close());

  it("an HTTP run past the HTTP memory cap ends with memory; a timer's run of the same size succeeds", {
    timeout: 60_000,
  }, async () => {
    const http = await mounted.run({ mb: 20 }, { trigger: "http" });
    expect(http.error).toMatchObject({ code: "memory" });
    expect(http.error?.message).toMatch(`limit of ${12 * MB} bytes`);
    const timer = await mounted.run({ mb: 20 }, { trigger: "timer" });
    expect(timer.error).toBeUndefined();
    expect(timer.emits[0]?.event).toEqual({ chunks: 320 });
    // Under the HTTP cap an HTTP run succeeds, and the timer's larger cap does not stick to it.
    expect((await mounted.run({ mb: 4 }, { trigger: "http" })).emits[0]?.event).toEqual({ chunks: 64 });
    expect((await mounted.run({ mb: 20 }, { trigger: "http" })).error?.code).toBe("memory");
    expect((await mounted.run({ mb: 20 })).error).toBeUndefined();
  });

  it("an HTTP run ends at httpTimeoutMs; a timer's run of the same length succeeds", {
    timeout: 60_000,
  }, async () => {
    const loaded = await runtime.load({ filename: "alloc.mjs", code: ALLOCATE });
    const limits = { runTimeoutMs: 5_000, httpTimeoutMs: 300 };
    const slow = await runtime.mount({ id: "dc_slow", bundle: loaded.bundle, props: {}, limits });
    const http = await slow.run({ mb: 0, loop: 600 }, { trigger: "http" });
    expect(http.error).toMatchObject({ code: "timeout" });
    const timer = await slow.run({ mb: 0, loop: 600 }, { trigger: "timer" });
    expect(timer.error).toBeUndefined();
    slow.dispose();
  });
});
