/** Conformance: workspaces. */
import { describe, expect } from "vitest";
import { expectStoreError, type SuiteContext, unique } from "./context.js";

/** Registers the workspace tests. */
export function workspacesSuite(t: SuiteContext): void {
  describe("workspaces", () => {
    t.test("create makes a ws_ id and get returns the workspace", async () => {
      const created = await t.store.workspaces.create({ name: "Acme" });
      expect(created.id).toMatch(/^ws_/);
      expect(created.name).toBe("Acme");
      expect(typeof created.createdAt).toBe("number");
      expect(await t.store.workspaces.get(created.id)).toEqual(created);
      expect(await t.store.workspaces.get("ws_missing")).toBeUndefined();
    });

    t.test("create accepts an id and refuses a taken one", async () => {
      const id = unique("ws");
      const created = await t.store.workspaces.create({ id, name: "Given" });
      expect(created.id).toBe(id);
      await expectStoreError(t.store.workspaces.create({ id, name: "Again" }), "conflict");
    });

    t.test("list returns every workspace", async () => {
      const a = await t.workspace();
      const b = await t.workspace();
      const ids = (await t.store.workspaces.list()).map((ws) => ws.id);
      expect(ids).toContain(a);
      expect(ids).toContain(b);
    });

    t.test("revoke marks a workspace revoked, once", async () => {
      const id = await t.workspace();
      expect((await t.store.workspaces.get(id))?.revokedAt).toBeUndefined();
      expect(await t.store.workspaces.revoke(id)).toBe(true);
      const revoked = await t.store.workspaces.get(id);
      expect(typeof revoked?.revokedAt).toBe("number");
      expect(await t.store.workspaces.revoke(id)).toBe(false);
      expect(await t.store.workspaces.revoke("ws_missing")).toBe(false);
      expect((await t.store.workspaces.list()).find((ws) => ws.id === id)?.revokedAt).toBe(
        revoked?.revokedAt,
      );
    });
  });
}
