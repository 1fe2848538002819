/** Conformance: subscriptions. */
import { describe, expect } from "vitest";
import type { SuiteContext } from "./context.js";

/** Registers the subscription tests. */
export function subscriptionsSuite(t: SuiteContext): void {
  describe("subscriptions", () => {
    t.test("create is idempotent per emitter, listener and channel", async () => {
      const { subscriptions } = t.store;
      const ws = await t.workspace();
      const emitter = await t.component(ws);
      const hook = await t.webhook(ws);
      const base = { workspaceId: ws, emitterId: emitter.id, listenerId: hook.id };
      const first = await subscriptions.create(base);
      expect(first.id).toMatch(/^sub_/);
      expect(first.created).toBe(true);
      expect(first.eventName).toBeNull();
      const again = await subscriptions.create({ ...base, eventName: null });
      expect(again.created).toBe(false);
      expect(again.id).toBe(first.id);
      const explicit = await subscriptions.create({ ...base, eventName: "default" });
      expect(explicit).toMatchObject({ id: first.id, created: false });
      const orders = await subscriptions.create({ ...base, eventName: "orders" });
      expect(orders.created).toBe(true);
      expect(orders.id).not.toBe(first.id);
      expect(await subscriptions.list(ws)).toHaveLength(2);
    });

    t.test("list filters by emitter and listener", async () => {
      const { subscriptions } = t.store;
      const ws = await t.workspace();
      const a = await t.component(ws);
      const b = await t.component(ws);
      const hook = await t.webhook(ws);
      const s1 = await subscriptions.create({ workspaceId: ws, emitterId: a.id, listenerId: hook.id });
      const s2 = await subscriptions.create({ workspaceId: ws, emitterId: b.id, listenerId: hook.id });
      const s3 = await subscriptions.create({ workspaceId: ws, emitterId: a.id, listenerId: b.id });
      const ids = async (filter?: { emitterId?: string; listenerId?: string }) =>
        (await subscriptions.list(ws, filter)).map((s) => s.id);
      expect(await ids()).toEqual([s1.id, s2.id, s3.id]);
      expect(await ids({ emitterId: a.id })).toEqual([s1.id, s3.id]);
      expect(await ids({ listenerId: hook.id })).toEqual([s1.id, s2.id]);
      expect(await ids({ emitterId: a.id, listenerId: b.id })).toEqual([s3.id]);
    });

    t.test("delete one channel or all channels", async () => {
      const { subscriptions } = t.store;
      const ws = await t.workspace();
      const emitter = await t.component(ws);
      const hook = await t.webhook(ws);
      const base = { workspaceId: ws, emitterId: emitter.id, listenerId: hook.id };
      await subscriptions.create(base);
      await subscriptions.create({ ...base, eventName: "a" });
      await subscriptions.create({ ...base, eventName: "b" });
      const match = { emitterId: emitter.id, listenerId: hook.id };
      expect(await subscriptions.delete(ws, { ...match, eventName: "a" })).toBe(1);
      expect(await subscriptions.delete(ws, { ...match, eventName: "default" })).toBe(1);
      expect(await subscriptions.delete(ws, { ...match, eventName: "missing" })).toBe(0);
      expect(await subscriptions.delete(ws, match)).toBe(1);
      expect(await subscriptions.list(ws)).toEqual([]);
    });
  });
}
