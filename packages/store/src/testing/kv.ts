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
