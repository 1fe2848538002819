/** Conformance: API keys. */
import { describe, expect } from "vitest";
import { type SuiteContext, unique } from "./context.js";

/** Registers the API key tests. */
export function apiKeysSuite(t: SuiteContext): void {
  describe("apiKeys", () => {
    t.test("create and findByHash", async () => {
      const ws = await t.workspace();
      const hash = unique("hash");
      const key = await t.store.apiKeys.create({ workspaceId: ws, name: "CI", hash, hint: "abcd" });
      expect(key.id).toMatch(/^key_/);
      expect(key).toMatchObject({ workspaceId: ws, name: "CI", hash, hint: "abcd", role: "workspace" });
      expect(key.revokedAt).toBeUndefined();
      expect(key.lastUsedAt).toBeUndefined();
      expect(await t.store.apiKeys.findByHash(hash)).toEqual(key);
      expect(await t.store.apiKeys.findByHash(unique("nothing"))).toBeUndefined();
    });

    t.test("list returns the workspace's keys only", async () => {
      const ws = await t.workspace();
      const other = await t.workspace();
      const a = await t.store.apiKeys.create({ workspaceId: ws, name: "a", hash: unique("h"), hint: "a" });
      const b = await t.store.apiKeys.create({ workspaceId: ws, name: "b", hash: unique("h"), hint: "b" });
      await t.store.apiKeys.create({ workspaceId: other, name: "c", hash: unique("h"), hint: "c" });
      expect((await t.store.apiKeys.list(ws)).map((key) => key.id)).toEqual([a.id, b.id]);
    });

    t.test("revoked keys are not found by findByHash", async () => {
      const ws = await t.workspace();
      const other = await t.workspace();
      const hash = unique("hash");
      const key = await t.store.apiKeys.create({ workspaceId: ws, name: "k", hash, hint: "k" });
      expect(await t.store.apiKeys.revoke(other, key.id)).toBe(false);
      expect(await t.store.apiKeys.findByHash(hash)).toBeDefined();
      expect(await t.store.apiKeys.revoke(ws, key.id)).toBe(true);
      expect(await t.store.apiKeys.findByHash(hash)).toBeUndefined();
      expect(await t.store.apiKeys.revoke(ws, key.id)).toBe(false);
      const listed = await t.store.apiKeys.list(ws);
      expect(listed).toHaveLength(1);
      expect(typeof listed[0]?.revokedAt).toBe("number");
      expect((await t.store.apiKeys.get(key.id))?.revokedAt).toBe(listed[0]?.revokedAt);
    });

    t.test("operator keys keep their role; get finds a key of any workspace", async () => {
      const ws = await t.workspace();
      const hash = unique("hash");
      const key = await t.store.apiKeys.create({
        workspaceId: ws,
        name: "op",
        hash,
        hint: "o",
        role: "operator",
      });
      expect(key.role).toBe("operator");
      expect(await t.store.apiKeys.findByHash(hash)).toMatchObject({ id: key.id, role: "operator" });
      expect(await t.store.apiKeys.get(key.id)).toEqual(key);
      expect(await t.store.apiKeys.get("key_missing")).toBeUndefined();
    });

    t.test("touch records the last use, at most once within the given span", async () => {
      const ws = await t.workspace();
      const key = await t.store.apiKeys.create({ workspaceId: ws, name: "k", hash: unique("h"), hint: "k" });
      await t.store.apiKeys.touch(key.id, 1_000_000, 60_000);
      expect((await t.store.apiKeys.get(key.id))?.lastUsedAt).toBe(1_000_000);
      await t.store.apiKeys.touch(key.id, 1_030_000, 60_000);
      expect((await t.store.apiKeys.get(key.id))?.lastUsedAt).toBe(1_000_000);
      await t.store.apiKeys.touch(key.id, 1_070_000, 60_000);
      expect((await t.store.apiKeys.list(ws))[0]?.lastUsedAt).toBe(1_070_000);
      await t.store.apiKeys.touch("key_missing", 1_070_000, 60_000);
    });
  });
}
