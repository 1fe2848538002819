/** Conformance: connected accounts, their refresh lease, OAuth clients and auth tickets. */
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
      expect(gh).toMatchObject({ oauth: false, status: "active" });
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

    t.test("OAuth accounts: end users, status and expiry", async () => {
      const ws = await t.workspace();
      const accounts = t.store.accounts;
      const input = { workspaceId: ws, app: "github", name: "u", credentials: "enc", oauth: true };
      const ada = await accounts.create({ ...input, externalUserId: "ada", expiresAt: 5_000 });
      const bob = await accounts.create({ ...input, externalUserId: "bob" });
      const own = await accounts.create({ ...input, oauth: false });
      expect(ada).toMatchObject({ oauth: true, status: "active", externalUserId: "ada", expiresAt: 5_000 });
      expect(await accounts.get(ws, ada.id)).toEqual(ada);
      expect(own.externalUserId).toBeUndefined();
      expect((await accounts.list(ws, { externalUserId: "ada" })).map((a) => a.id)).toEqual([ada.id]);
      expect((await accounts.list(ws, { app: "github", externalUserId: "bob" })).map((a) => a.id)).toEqual([
        bob.id,
      ]);
      expect(await accounts.list(ws, { app: "slack", externalUserId: "bob" })).toEqual([]);
      const marked = await accounts.update(ws, ada.id, { status: "needs_reconnect", expiresAt: null });
      expect(marked?.status).toBe("needs_reconnect");
      expect(marked?.expiresAt).toBeUndefined();
      expect(await accounts.get(ws, ada.id)).toEqual(marked);
    });

    t.test("expiring OAuth accounts of every workspace, soonest first", async () => {
      const accounts = t.store.accounts;
      const [w1, w2] = [await t.workspace(), await t.workspace()];
      // Far in the past, so that other tests' accounts (expiring now or later) are not in the window.
      const base = { app: "github", name: "x", credentials: "c", oauth: true };
      const late = await accounts.create({ ...base, workspaceId: w1, expiresAt: 30 });
      const soon = await accounts.create({ ...base, workspaceId: w2, expiresAt: 10 });
      const gone = await accounts.create({ ...base, workspaceId: w1, expiresAt: 20 });
      await accounts.update(w1, gone.id, { status: "needs_reconnect" });
      await accounts.create({ ...base, workspaceId: w1, oauth: false, expiresAt: 5 });
      await accounts.create({ ...base, workspaceId: w1, expiresAt: 50 });
      expect((await accounts.listExpiring(40, 10)).map((a) => a.id)).toEqual([soon.id, late.id]);
      expect((await accounts.listExpiring(40, 1)).map((a) => a.id)).toEqual([soon.id]);
    });

    t.test("the refresh lease: one holder at a time, renewed by its owner, fenced once lost", async () => {
      const ws = await t.workspace();
      const accounts = t.store.accounts;
      const a = await accounts.create({
        workspaceId: ws,
        app: "github",
        name: "a",
        credentials: "v1",
        oauth: true,
      });
      // Two nodes claiming at once: exactly one wins.
      const both = await Promise.all([
        accounts.claimRefresh(ws, a.id, "node-1", 60_000),
        accounts.claimRefresh(ws, a.id, "node-2", 60_000),
      ]);
      expect(both.filter((x) => x !== undefined)).toHaveLength(1);
      const winner = both[0] ? "node-1" : "node-2";
      const loser = winner === "node-1" ? "node-2" : "node-1";
      expect(await accounts.claimRefresh(ws, a.id, loser, 60_000)).toBeUndefined();
      expect(await accounts.endRefresh(ws, a.id, loser, { credentials: "bad" })).toBeUndefined();
      expect((await accounts.claimRefresh(ws, a.id, winner, 60_000))?.credentials).toBe("v1");
      const done = await accounts.endRefresh(ws, a.id, winner, { credentials: "v2", expiresAt: 9_000 });
      expect(done).toMatchObject({ credentials: "v2", expiresAt: 9_000 });
      // Released: the other node may take it now; a lease that ran out is taken over and fences its owner.
      expect(await accounts.claimRefresh(ws, a.id, loser, 0)).toBeDefined();
      expect(await accounts.claimRefresh(ws, a.id, winner, 60_000)).toBeDefined();
      expect(await accounts.endRefresh(ws, a.id, loser, { credentials: "stale" })).toBeUndefined();
      expect((await accounts.get(ws, a.id))?.credentials).toBe("v2");
      // Another workspace's account cannot be leased.
      const other = await t.workspace();
      expect(await accounts.claimRefresh(other, a.id, "node-3", 60_000)).toBeUndefined();
    });

    t.test("OAuth clients: put replaces, one per app, listed by app", async () => {
      const ws = await t.workspace();
      const clients = t.store.oauthClients;
      const first = await clients.put({
        workspaceId: ws,
        app: "slack",
        config: { client_id: "a" },
        clientSecret: "s1",
      });
      await clients.put({ workspaceId: ws, app: "github", config: { client_id: "g" } });
      const second = await clients.put({
        workspaceId: ws,
        app: "slack",
        config: { client_id: "b", scopes: ["x"] },
      });
      expect(second).toMatchObject({ app: "slack", config: { client_id: "b", scopes: ["x"] } });
      expect(second.clientSecret).toBeUndefined();
      expect(second.createdAt).toBe(first.createdAt);
      expect(await clients.get(ws, "slack")).toEqual(second);
      expect((await clients.list(ws)).map((c) => c.app)).toEqual(["github", "slack"]);
      const other = await t.workspace();
      expect(await clients.get(other, "slack")).toBeUndefined();
      expect(await clients.list(other)).toEqual([]);
      expect(await clients.delete(other, "slack")).toBe(false);
      expect(await clients.delete(ws, "slack")).toBe(true);
      expect(await clients.get(ws, "slack")).toBeUndefined();
    });

    t.test("auth tickets: found until they expire, taken once", async () => {
      const ws = await t.workspace();
      const tickets = t.store.authTickets;
      const key = `k-${Math.random()}`;
      const far = Date.now() + 3_600_000;
      await tickets.create({ kind: "oauth_state", key, workspaceId: ws, data: "d", expiresAt: far });
      await expect(
        tickets.create({ kind: "oauth_state", key, workspaceId: ws, data: "x", expiresAt: far }),
      ).rejects.toMatchObject({ code: "conflict" });
      expect(await tickets.get("connect_token", key)).toBeUndefined();
      expect(await tickets.get("oauth_state", key)).toMatchObject({
        workspaceId: ws,
        data: "d",
        expiresAt: far,
      });
      const taken = await Promise.all([tickets.take("oauth_state", key), tickets.take("oauth_state", key)]);
      expect(taken.filter((x) => x !== undefined)).toHaveLength(1);
      expect(await tickets.get("oauth_state", key)).toBeUndefined();
      const old = `old-${Math.random()}`;
      await tickets.create({ kind: "oauth_state", key: old, workspaceId: ws, data: "d", expiresAt: 1 });
      expect(await tickets.get("oauth_state", old)).toBeUndefined();
      expect(await tickets.take("oauth_state", old)).toBeUndefined();
    });
  });
}
