/**
 * Thread replacements leak nothing (issue 15): a component that cannot be interrupted gets its
 * thread terminated and replaced at every invocation; over many such timeouts the process keeps
 * the same number of OS threads and its resident memory stays flat. How fast a replacement
 * thread starts is measured by `npm run bench:runtime` over 100 replacements (docs/benchmarks.md).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MountedComponent, PoolRuntime } from "../src/index.js";
import { mountCode, testRuntime } from "./_helpers.js";

/** Uninterruptible: QuickJS's Array.prototype.join over a sparse array never checks the interrupt. */
const HANG = `export default { name: "Hang", version: "0.1.0", props: {},
  async run(event) { if (!event.ok) new Array(2 ** 32 - 1).join(""); this.$emit({ ok: 1 }); } };`;

/** The process's OS threads (Linux), or undefined elsewhere. */
function osThreads(): number | undefined {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
  } catch {
    return undefined;
  }
}

/** Waits until the OS thread count is at most `count` (terminated workers exit asynchronously). */
async function threadsSettle(count: number): Promise<number | undefined> {
  const until = Date.now() + 10_000;
  for (;;) {
    const now = osThreads();
    if (now === undefined || now <= count || Date.now() > until) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("pool mode: thread replacements", () => {
  let runtime: PoolRuntime;
  let hang: MountedComponent;
  beforeAll(async () => {
    runtime = testRuntime({
      mode: "pool",
      pool: { size: 2, killAfterMs: 50 },
      // Mounting a sandbox in a new thread gets the run deadline; the hanging runs are HTTP runs.
      limits: { runTimeoutMs: 2_000, httpTimeoutMs: 100 },
    }) as PoolRuntime;
    hang = await mountCode(runtime, HANG);
  }, 60_000);
  afterAll(() => runtime.close());

  /** One timeout that costs a thread. */
  async function replaceOnce(): Promise<void> {
    const result = await hang.run({}, { trigger: "http" });
    expect(result.error).toMatchObject({ code: "timeout" });
    expect(result.error?.message).toMatch(/thread was replaced/);
  }

  it("keeps the thread count and memory flat over 20 replacements", {
    timeout: 120_000,
  }, async () => {
    // Warm-up: the first replacements load what every later thread shares.
    for (let i = 0; i < 5; i++) await replaceOnce();
    expect((await hang.run({ ok: true })).emits).toHaveLength(1);
    const baseThreads = await threadsSettle(0);
    global.gc?.();
    const baseRss = process.memoryUsage().rss;
    const killed = runtime.threads.killed;
    const N = 20;
    for (let i = 0; i < N; i++) await replaceOnce();
    // It still works, on a fresh thread.
    expect((await hang.run({ ok: true })).emits).toEqual([
      { event: { ok: 1 }, json: JSON.stringify({ ok: 1 }), meta: {} },
    ]);
    expect(runtime.threads.killed).toBe(killed + N);
    expect(runtime.threads.size).toBe(2);
    if (baseThreads !== undefined) expect(await threadsSettle(baseThreads)).toBeLessThanOrEqual(baseThreads);
    global.gc?.();
    const grown = process.memoryUsage().rss - baseRss;
    console.log(
      `pool replacements: ${N}, OS threads ${baseThreads} -> ${osThreads()}, ` +
        `RSS ${Math.round(baseRss / 2 ** 20)} MB -> ${Math.round((baseRss + grown) / 2 ** 20)} MB`,
    );
    // A leaked thread keeps its isolate and QuickJS module: tens of MB each, 20 of them.
    expect(grown).toBeLessThan(64 * 2 ** 20);
  });
});
