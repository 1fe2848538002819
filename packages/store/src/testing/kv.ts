/** Conformance: the component db. */
import { describe, expect } from "vitest";
import { type SuiteContext, unique } from "./context.js";

/** Registers the kv tests. */
export function kvSuite(t: SuiteContext): void {
  describe("kv", () => {
    t.test("get, set, delete and list", async () => {
      const { kv } = t.store;
      const dc = unique("dc");
      const other = unique("dc");
      expect(await kv.get(dc, "missing")).toBeUndefined();
      await kv.set(dc, "b", { nested: [1, 2] });
      await kv.set(dc, "a", "text");
      await kv.set(other, "a", "other");
      expect(await kv.get(dc, "b")).toEqual({ nested: [1, 2] });
      await kv.set(dc, "a", 42);
      expect(await kv.get(dc, "a")).toBe(42);
      expect(await kv.list(dc)).toEqual([
        { key: "a", value: 42 },
        { key: "b", value: { nested: [1, 2] } },
      ]);
      expect(await kv.delete(dc, "a")).toBe(true);
      expect(await kv.delete(dc, "a")).toBe(false);
      expect(await kv.get(dc, "a")).toBeUndefined();
      expect(await kv.get(other, "a")).toBe("other");
    });

    t.test("list sorts keys by UTF-16 code units, whatever the collation", async () => {
      const dc = unique("dc");
      const keys = ["b", "B", "a", "é", "\u{1F600}", "\uff21", "a b", ""];
      for (const key of keys) await t.store.kv.set(dc, key, key);
      expect((await t.store.kv.list(dc)).map((entry) => entry.key)).toEqual([...keys].sort());
    });

    t.test("snapshot reads the entries only when the version moved on; every change moves it", async () => {
      const { kv } = t.store;
      const dc = unique("dc");
      expect(await kv.snapshot(dc)).toEqual({ version: 0, entries: {} });
      expect(await kv.snapshot(dc, 0)).toEqual({ version: 0 });
      expect(await kv.write(dc, [])).toBe(0);
      const v1 = await kv.write(dc, [
        ["a", 1],
        ["b", { nested: true }],
        ["a", 2],
        ["gone", "x"],
        ["gone", undefined],
      ]);
      expect(v1).toBe(1);
      expect(await kv.snapshot(dc)).toEqual({ version: 1, entries: { a: 2, b: { nested: true } } });
      expect(await kv.snapshot(dc, 1)).toEqual({ version: 1 });
      await kv.set(dc, "c", 3);
      expect(await kv.snapshot(dc, 1)).toEqual({ version: 2, entries: { a: 2, b: { nested: true }, c: 3 } });
      expect(await kv.delete(dc, "missing")).toBe(false);
      expect((await kv.snapshot(dc, 2)).version).toBe(2);
      expect(await kv.delete(dc, "c")).toBe(true);
      expect(await kv.write(dc, [["b", undefined]])).toBe(4);
      expect(await kv.snapshot(dc, 3)).toEqual({ version: 4, entries: { a: 2 } });
      expect(await kv.list(dc)).toEqual([{ key: "a", value: 2 }]);
    });

    t.test("concurrent writes each move the version on", async () => {
      const dc = unique("dc");
      const versions = await Promise.all(
        Array.from({ length: 8 }, (_, i) => t.store.kv.write(dc, [[`k${i}`, i]])),
      );
      expect([...versions].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const { entries } = await t.store.kv.snapshot(dc);
      expect(Object.keys(entries ?? {})).toHaveLength(8);
    });

    t.test("returned values are copies", async () => {
      const dc = unique("dc");
      const value = { list: [1] };
      await t.store.kv.set(dc, "k", value);
      value.list.push(2);
      const read = (await t.store.kv.get(dc, "k")) as { list: number[] };
      expect(read).toEqual({ list: [1] });
      read.list.push(3);
      expect(await t.store.kv.get(dc, "k")).toEqual({ list: [1] });
    });
  });
}
