/** Conformance: saved components. */
import { describe, expect } from "vitest";
import { DESCRIPTION, expectStoreError, type SuiteContext, unique } from "./context.js";

/** Registers the saved component tests. */
export function savedComponentsSuite(t: SuiteContext): void {
  describe("savedComponents", () => {
    const description = { ...DESCRIPTION, props: { a: { type: "string" } } };
    const input = (workspaceId: string, extra: Record<string, unknown> = {}) => ({
      workspaceId,
      code: "export default {}",
      codeHash: "h",
      filename: "c.mjs",
      bundle: "bundle",
      description,
      ...extra,
    });

    t.test("create, get and list", async () => {
      const ws = await t.workspace();
      const a = await t.store.savedComponents.create(input(ws));
      const b = await t.store.savedComponents.create(input(ws, { key: "k", version: "1.0.0" }));
      expect(a.id).toMatch(/^sc_/);
      expect(a.published).toBe("private");
      expect(a.description).toEqual(description);
      expect(await t.store.savedComponents.get(ws, a.id)).toEqual(a);
      expect(await t.store.savedComponents.get(ws, "sc_missing")).toBeUndefined();
      expect((await t.store.savedComponents.list(ws)).map((sc) => sc.id)).toEqual([a.id, b.id]);
    });

    t.test("findByKey finds the newest version, a given version, and public ones of others", async () => {
      const saved = t.store.savedComponents;
      const ws = await t.workspace();
      const other = await t.workspace();
      const key = unique("key");
      await saved.create(input(ws, { key, version: "1.9.0" }));
      const newest = await saved.create(input(ws, { key, version: "1.10.0" }));
      const old = await saved.create(input(ws, { key, version: "0.1.0" }));
      expect((await saved.findByKey(ws, key))?.id).toBe(newest.id);
      expect((await saved.findByKey(ws, key, "0.1.0"))?.id).toBe(old.id);
      expect(await saved.findByKey(ws, key, "9.9.9")).toBeUndefined();
      // private ones are not visible to other workspaces
      expect(await saved.findByKey(other, key)).toBeUndefined();
      const pub = await saved.create(input(ws, { key, version: "2.0.0", published: "public" }));
      expect((await saved.findByKey(other, key))?.id).toBe(pub.id);
      expect(await saved.findByKey(other, key, "1.10.0")).toBeUndefined();
      // the workspace's own version wins a tie with a public one
      const own = await saved.create(input(other, { key, version: "2.0.0" }));
      expect((await saved.findByKey(other, key, "2.0.0"))?.id).toBe(own.id);
    });

    t.test("create refuses a duplicate key and version in one workspace", async () => {
      const ws = await t.workspace();
      const key = unique("key");
      await t.store.savedComponents.create(input(ws, { key, version: "1.0.0" }));
      await expectStoreError(
        t.store.savedComponents.create(input(ws, { key, version: "1.0.0" })),
        "conflict",
      );
      const other = await t.workspace();
      await expect(
        t.store.savedComponents.create(input(other, { key, version: "1.0.0" })),
      ).resolves.toBeDefined();
    });
  });
}
