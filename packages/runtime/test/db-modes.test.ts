/**
 * `$.service.db` in both sandbox modes (issue 15): in the pool the snapshot goes to the thread with
 * the invocation and the writes come back with the result, so a run's `db.get` never crosses
 * threads. The contract is the in-thread one: the snapshot is read from the store when the
 * invocation starts (another node's writes are seen), a component reads its own writes, the writes
 * are applied in order when it ends (also when it throws), and an invocation stopped by a limit,
 * or whose thread had to be replaced, applies none of them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MountedComponent, Runtime } from "../src/index.js";
import { memoryDb, mountCode, testRuntime } from "./_helpers.js";

const DB = `export default { name: "Db", version: "0.1.0", props: { db: "$.service.db" },
  async run(event) {
    const before = await this.db.get("n");
    this.db.set("n", (before ?? 0) + 1);
    this.db.set("trail", [...(this.db.get("trail") ?? []), event.tag]);
    if (event.drop) this.db.set("gone", undefined);
    const after = this.db.get("n");
    if (event.fail === "throw") throw new Error("after the writes");
    if (event.fail === "loop") while (true) {}
    if (event.fail === "hang") new Array(2 ** 32 - 1).join("");
    this.$emit({ before, after, gone: this.db.get("gone") ?? null });
  },
};`;

const READ = `export default { name: "Read", version: "0.1.0", props: { db: "$.service.db" },
  async run() { this.$emit({ k: (await this.db.get("k")) ?? null }); },
};`;

describe.each(["thread", "pool"] as const)("$.service.db in %s mode", (mode) => {
  let runtime: Runtime;
  let mounted: MountedComponent;
  const db = memoryDb({ gone: "here" });
  beforeAll(async () => {
    runtime = testRuntime({
      mode,
      pool: { size: 2, killAfterMs: 100 },
      limits: { runTimeoutMs: 1_500 },
    });
    mounted = await mountCode(runtime, DB, {}, { db: db.bridge });
  }, 60_000);
  afterAll(() => runtime.close());

  it("reads its own writes, applies them in order, and reads the store at each start", {
    timeout: 30_000,
  }, async () => {
    const first = await mounted.run({ tag: "a", drop: true });
    expect(first.emits[0]?.event).toEqual({ before: undefined, after: 1, gone: null });
    expect(Object.fromEntries(db.values)).toEqual({ n: 1, trail: ["a"] });
    // Another node (or the API) writes between invocations: the next one sees it.
    db.values.set("n", 41);
    const second = await mounted.run({ tag: "b" });
    expect(second.emits[0]?.event).toEqual({ before: 41, after: 42, gone: null });
    expect(Object.fromEntries(db.values)).toEqual({ n: 42, trail: ["a", "b"] });
  });

  it("keeps the writes of a run that throws; drops those of a run stopped at its deadline", {
    timeout: 30_000,
  }, async () => {
    db.values.clear();
    const threw = await mounted.run({ tag: "t", fail: "throw" });
    expect(threw.error?.message).toBe("after the writes");
    expect(Object.fromEntries(db.values)).toEqual({ n: 1, trail: ["t"] });
    const looped = await mounted.run({ tag: "l", fail: "loop" });
    expect(looped.error).toMatchObject({ code: "timeout" });
    expect(Object.fromEntries(db.values)).toEqual({ n: 1, trail: ["t"] });
    const next = await mounted.run({ tag: "x" });
    expect(next.emits[0]?.event).toMatchObject({ before: 1, after: 2 });
  });

  it("a component that only reads sees every change made between its runs", {
    timeout: 30_000,
  }, async () => {
    // In the pool an unchanged db is not sent again: the thread keeps its copy.
    const reads = memoryDb({ k: "one" });
    const reader = await mountCode(runtime, READ, {}, { db: reads.bridge });
    const seen = async () => (await reader.run({})).emits[0]?.event;
    expect(await seen()).toEqual({ k: "one" });
    expect(await seen()).toEqual({ k: "one" });
    reads.values.set("k", "two");
    expect(await seen()).toEqual({ k: "two" });
    reads.values.set("k", "one");
    expect(await seen()).toEqual({ k: "one" });
    reads.values.delete("k");
    expect(await seen()).toEqual({ k: null });
    reader.dispose();
  });
});

describe("$.service.db in pool mode, when a thread is replaced", () => {
  let runtime: Runtime;
  let mounted: MountedComponent;
  const db = memoryDb();
  beforeAll(async () => {
    runtime = testRuntime({
      mode: "pool",
      pool: { size: 2, killAfterMs: 100 },
      limits: { runTimeoutMs: 1_500 },
    });
    mounted = await mountCode(runtime, DB, {}, { db: db.bridge });
  }, 60_000);
  afterAll(() => runtime.close());

  it("drops every write of a run whose thread is replaced", {
    timeout: 30_000,
  }, async () => {
    db.values.clear();
    db.values.set("n", 5);
    const hung = await mounted.run({ tag: "h", fail: "hang" });
    expect(hung.error?.message).toMatch(/thread was replaced/);
    expect(Object.fromEntries(db.values)).toEqual({ n: 5 });
    const next = await mounted.run({ tag: "y" });
    expect(next.emits[0]?.event).toMatchObject({ before: 5, after: 6 });
    expect(Object.fromEntries(db.values)).toEqual({ n: 6, trail: ["y"] });
  });
});
