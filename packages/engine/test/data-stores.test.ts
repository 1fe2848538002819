import { createMemoryStore } from "@hookline/store";
import { afterAll, describe, expect, it } from "vitest";
import { createFakeClock, createHookline } from "../src/index.js";

// A source's data_store prop on the engine's clock: TTLs expire as the clock moves, setTtl changes
// or removes them, and the records are the ones hookline.dataStores shows.
const STORE = `export default {
  name: "TTL", version: "0.1.0",
  props: { store: { type: "data_store" } },
  async run(e) {
    if (e.op === "set") await this.store.set(e.key, e.value, e.ttl === undefined ? undefined : { ttl: e.ttl });
    if (e.op === "setTtl") this.$emit({ changed: await this.store.setTtl(e.key, e.ttl) });
    if (e.op === "clear") await this.store.clear();
    this.$emit({ has: await this.store.has(e.key), entries: await this.store.entries() });
  },
};`;

describe("data stores on the engine's clock", () => {
  const clock = createFakeClock();
  const hookline = createHookline({ store: createMemoryStore(), worker: false, clock });
  afterAll(() => hookline.close());

  it("expires records at their TTL; setTtl changes or removes it; clear empties the store", async () => {
    const ws = await hookline.workspaces.create({ name: "ttl" });
    const source = await hookline.sources.deploy(ws.id, {
      code: { filename: "ttl.mjs", code: STORE },
      props: { store: { name: "sessions" } },
    });
    const run = async (event: Record<string, unknown>) => {
      const out = await hookline.sources.run(ws.id, source.id, event);
      expect(out.error).toBeUndefined();
      return out.emitted.map((e) => e.body);
    };
    expect(await run({ op: "set", key: "s1", value: { user: 1 }, ttl: 60 })).toEqual([
      { has: true, entries: [["s1", { user: 1 }]] },
    ]);
    expect((await hookline.dataStores.getRecord(ws.id, "sessions", "s1")).expiresAt).toBe(
      clock.now() + 60_000,
    );
    clock.advance(59_999);
    expect(await run({ key: "s1" })).toEqual([{ has: true, entries: [["s1", { user: 1 }]] }]);
    clock.advance(1);
    expect(await run({ key: "s1" })).toEqual([{ has: false, entries: [] }]);
    expect((await hookline.dataStores.get(ws.id, "sessions")).recordCount).toBe(0);

    await run({ op: "set", key: "s2", value: 2, ttl: 10 });
    expect(await run({ op: "setTtl", key: "s2", ttl: 0 })).toEqual([
      { changed: true },
      { has: true, entries: [["s2", 2]] },
    ]);
    clock.advance(3_600_000);
    expect(await run({ key: "s2" })).toEqual([{ has: true, entries: [["s2", 2]] }]);
    expect(await run({ op: "setTtl", key: "missing", ttl: 5 })).toEqual([
      { changed: false },
      { has: false, entries: [["s2", 2]] },
    ]);
    expect(await run({ op: "clear", key: "s2" })).toEqual([{ has: false, entries: [] }]);
    const bad = await hookline.sources.run(ws.id, source.id, { op: "set", key: "k", value: 1, ttl: -5 });
    expect(bad.error?.message).toContain("invalid_data_store: ttl: a ttl is a positive number of seconds");
  });
});
