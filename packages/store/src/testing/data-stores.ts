/** Conformance: data stores (named key-value stores of a workspace, with TTLs). */
import { describe, expect } from "vitest";
import { StoreError } from "../types/index.js";
import type { SuiteContext } from "./context.js";

const T0 = 1_700_000_000_000;

/** Registers the data store tests. */
export function dataStoresSuite(t: SuiteContext): void {
  describe("dataStores", () => {
    t.test("create, find by id and name, list by name, unique names, delete with records", async () => {
      const { dataStores } = t.store;
      const ws = await t.workspace();
      const other = await t.workspace();
      const b = await dataStores.create({ workspaceId: ws, name: "b-store" });
      const a = await dataStores.create({ workspaceId: ws, name: "a-store" });
      expect(b.id).toMatch(/^ds_/);
      expect(b).toMatchObject({ workspaceId: ws, name: "b-store" });
      await expect(dataStores.create({ workspaceId: ws, name: "b-store" })).rejects.toMatchObject({
        code: "conflict",
      });
      await expect(dataStores.create({ workspaceId: ws, name: "b-store" })).rejects.toBeInstanceOf(
        StoreError,
      );
      const same = await dataStores.create({ workspaceId: other, name: "b-store" }); // another workspace
      expect(await dataStores.get(ws, b.id)).toEqual(b);
      expect(await dataStores.get(other, b.id)).toBeUndefined();
      expect(await dataStores.getByName(ws, "a-store")).toEqual(a);
      expect(await dataStores.getByName(ws, "missing")).toBeUndefined();
      expect((await dataStores.list(ws)).map((s) => s.name)).toEqual(["a-store", "b-store"]);
      expect((await dataStores.list(other)).map((s) => s.id)).toEqual([same.id]);

      await dataStores.setRecord(ws, b.id, { key: "k", value: 1 }, T0);
      expect(await dataStores.delete(other, b.id)).toBe(false);
      expect(await dataStores.delete(ws, b.id)).toBe(true);
      expect(await dataStores.delete(ws, b.id)).toBe(false);
      expect(await dataStores.getRecord(ws, b.id, "k", T0)).toBeUndefined();
      await expect(dataStores.setRecord(ws, b.id, { key: "k", value: 1 }, T0)).rejects.toMatchObject({
        code: "not_found",
      });
    });

    t.test(
      "records: set, get, overwrite, delete, sorted list, count, clear; JSON values as given",
      async () => {
        const { dataStores } = t.store;
        const ws = await t.workspace();
        const ds = await dataStores.create({ workspaceId: ws, name: "records" });
        expect(
          await dataStores.setRecord(ws, ds.id, { key: "b", value: { nested: [1, null, "é"] } }, T0),
        ).toBe("created");
        expect(await dataStores.setRecord(ws, ds.id, { key: "a", value: "text" }, T0)).toBe("created");
        expect(await dataStores.setRecord(ws, ds.id, { key: "a", value: 42 }, T0)).toBe("updated");
        expect(await dataStores.getRecord(ws, ds.id, "a", T0)).toMatchObject({ key: "a", value: 42 });
        expect(await dataStores.getRecord(ws, ds.id, "missing", T0)).toBeUndefined();
        const listed = await dataStores.listRecords(ws, ds.id, T0);
        expect(listed.map((r) => [r.key, r.value])).toEqual([
          ["a", 42],
          ["b", { nested: [1, null, "é"] }],
        ]);
        expect(listed[0]?.expiresAt).toBeUndefined();
        expect(await dataStores.count(ws, ds.id, T0)).toBe(2);
        expect(await dataStores.deleteRecord(ws, ds.id, "a", T0)).toBe(true);
        expect(await dataStores.deleteRecord(ws, ds.id, "a", T0)).toBe(false);
        expect(await dataStores.clear(ws, ds.id, T0)).toBe(1);
        expect(await dataStores.listRecords(ws, ds.id, T0)).toEqual([]);
        // Another workspace sees nothing of it.
        await dataStores.setRecord(ws, ds.id, { key: "x", value: true }, T0);
        const other = await t.workspace();
        expect(await dataStores.getRecord(other, ds.id, "x", T0)).toBeUndefined();
        expect(await dataStores.listRecords(other, ds.id, T0)).toEqual([]);
        expect(await dataStores.deleteRecord(other, ds.id, "x", T0)).toBe(false);
        expect(await dataStores.clear(other, ds.id, T0)).toBe(0);
        expect(await dataStores.count(ws, ds.id, T0)).toBe(1);
      },
    );

    t.test("expiry: a record is gone at its expiresAt; setExpiry changes or removes it", async () => {
      const { dataStores } = t.store;
      const ws = await t.workspace();
      const ds = await dataStores.create({ workspaceId: ws, name: "ttl" });
      await dataStores.setRecord(ws, ds.id, { key: "short", value: 1, expiresAt: T0 + 1000 }, T0);
      await dataStores.setRecord(ws, ds.id, { key: "kept", value: 2, expiresAt: null }, T0);
      expect(await dataStores.getRecord(ws, ds.id, "short", T0 + 999)).toMatchObject({
        expiresAt: T0 + 1000,
      });
      expect(await dataStores.getRecord(ws, ds.id, "short", T0 + 1000)).toBeUndefined();
      expect((await dataStores.listRecords(ws, ds.id, T0 + 1000)).map((r) => r.key)).toEqual(["kept"]);
      expect(await dataStores.count(ws, ds.id, T0 + 1000)).toBe(1);
      expect(await dataStores.setExpiry(ws, ds.id, "short", null, T0 + 1000)).toBe(false);
      expect(await dataStores.deleteRecord(ws, ds.id, "short", T0 + 1000)).toBe(false);

      expect(await dataStores.setExpiry(ws, ds.id, "kept", T0 + 5000, T0)).toBe(true);
      expect(await dataStores.getRecord(ws, ds.id, "kept", T0 + 5000)).toBeUndefined();
      await dataStores.setRecord(ws, ds.id, { key: "again", value: 3, expiresAt: T0 + 10 }, T0);
      expect(await dataStores.setExpiry(ws, ds.id, "again", null, T0)).toBe(true);
      expect(await dataStores.getRecord(ws, ds.id, "again", T0 + 1e9)).toMatchObject({ value: 3 });
      expect((await dataStores.getRecord(ws, ds.id, "again", T0 + 1e9))?.expiresAt).toBeUndefined();
      // Overwriting without an expiry makes the record permanent; an expired key is new again.
      await dataStores.setRecord(ws, ds.id, { key: "k", value: 1, expiresAt: T0 + 10 }, T0);
      expect(await dataStores.setRecord(ws, ds.id, { key: "k", value: 2 }, T0)).toBe("updated");
      expect(await dataStores.getRecord(ws, ds.id, "k", T0 + 1e9)).toMatchObject({ value: 2 });
      await dataStores.setRecord(ws, ds.id, { key: "e", value: 1, expiresAt: T0 + 10 }, T0);
      expect(await dataStores.setRecord(ws, ds.id, { key: "e", value: 2 }, T0 + 10)).toBe("created");
    });

    t.test(
      "maxKeys: a new key past the cap writes nothing; overwrites and expired keys do not count",
      async () => {
        const { dataStores } = t.store;
        const ws = await t.workspace();
        const ds = await dataStores.create({ workspaceId: ws, name: "capped" });
        await dataStores.setRecord(ws, ds.id, { key: "a", value: 1 }, T0, 2);
        await dataStores.setRecord(ws, ds.id, { key: "b", value: 1, expiresAt: T0 + 10 }, T0, 2);
        expect(await dataStores.setRecord(ws, ds.id, { key: "c", value: 1 }, T0, 2)).toBe("full");
        expect(await dataStores.getRecord(ws, ds.id, "c", T0)).toBeUndefined();
        expect(await dataStores.setRecord(ws, ds.id, { key: "a", value: 2 }, T0, 2)).toBe("updated");
        expect(await dataStores.setRecord(ws, ds.id, { key: "c", value: 1 }, T0 + 10, 2)).toBe("created");
        expect((await dataStores.listRecords(ws, ds.id, T0 + 10)).map((r) => r.key)).toEqual(["a", "c"]);
      },
    );

    t.test("keys keep every character and sort by UTF-16 code units; values are copies", async () => {
      const { dataStores } = t.store;
      const ws = await t.workspace();
      const ds = await dataStores.create({ workspaceId: ws, name: "naïve \u{1F600}" });
      expect((await dataStores.getByName(ws, "naïve \u{1F600}"))?.id).toBe(ds.id);
      const keys = ["b", "B", "a", "é", "\u{1F600}", "\uff21", "a b", "nul\u0000key"];
      for (const key of keys) await dataStores.setRecord(ws, ds.id, { key, value: key }, T0);
      expect((await dataStores.listRecords(ws, ds.id, T0)).map((r) => r.key)).toEqual([...keys].sort());
      const value = { list: [1] };
      await dataStores.setRecord(ws, ds.id, { key: "obj", value }, T0);
      value.list.push(2);
      const read = (await dataStores.getRecord(ws, ds.id, "obj", T0))?.value as { list: number[] };
      expect(read).toEqual({ list: [1] });
      read.list.push(3);
      expect((await dataStores.getRecord(ws, ds.id, "obj", T0))?.value).toEqual({ list: [1] });
    });
  });
}
