/** Conformance: connected accounts. */
import { describe, expect } from "vitest";
import type { SuiteContext } from "./context.js";

/** Registers the connected account tests. */
export function accountsSuite(t: SuiteContext): void {
  describe("accounts", () => {
    t.test("create, get, list by app, update and delete", async () => {
      const ws = await t.workspace();
      const accounts = t.store.accounts;
      const gh = await accounts.create({ workspaceId: ws, app: "github", name: "me", credentials: "enc1" });
      const sl = await accounts.create({ workspaceId: ws, app: "slack", name: "team", credentials: "enc2" });
      expect(gh.id).toMatch(/^apn_/);
      expect(await accounts.get(ws, gh.id)).toEqual(gh);
      expect((await accounts.list(ws)).map((a) => a.id)).toEqual([gh.id, sl.id]);
      expect((await accounts.list(ws, { app: "slack" })).map((a) => a.id)).toEqual([sl.id]);
      const updated = await accounts.update(ws, gh.id, { credentials: "enc3" });
      expect(updated).toMatchObject({ id: gh.id, name: "me", credentials: "enc3" });
      expect((await accounts.get(ws, gh.id))?.credentials).toBe("enc3");
      expect(await accounts.update(ws, "apn_missing", { name: "x" })).toBeUndefined();
      expect(await accounts.delete(ws, gh.id)).toBe(true);
      expect(await accounts.get(ws, gh.id)).toBeUndefined();
      expect(await accounts.delete(ws, gh.id)).toBe(false);
    });
  });
}
