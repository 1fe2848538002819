/** Conformance: deployed components. */
import { describe, expect } from "vitest";
import { expectStoreError, nextWindow, type SuiteContext, unique } from "./context.js";

/** Registers the deployed component tests. */
export function deployedComponentsSuite(t: SuiteContext): void {
  describe("deployedComponents", () => {
    t.test("create and get", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      expect(dc.id).toMatch(/^dc_/);
      expect(dc).toMatchObject({
        workspaceId: ws,
        name: "Test component",
        props: { greeting: "hi" },
        active: true,
      });
      expect(await t.store.deployedComponents.get(ws, dc.id)).toEqual(dc);
      expect(await t.store.deployedComponents.get(ws, "dc_missing")).toBeUndefined();
    });

    t.test("getBySlug and getByEndpoint", async () => {
      const ws = await t.workspace();
      const endpointId = unique("en");
      const dc = await t.component(ws, { endpointId });
      expect((await t.store.deployedComponents.getBySlug(ws, dc.slug))?.id).toBe(dc.id);
      expect(await t.store.deployedComponents.getBySlug(ws, "missing")).toBeUndefined();
      expect((await t.store.deployedComponents.getByEndpoint(endpointId))?.id).toBe(dc.id);
      expect(await t.store.deployedComponents.getByEndpoint(unique("en"))).toBeUndefined();
    });

    t.test("list returns the workspace's components", async () => {
      const ws = await t.workspace();
      const a = await t.component(ws);
      const b = await t.component(ws);
      await t.component(await t.workspace());
      expect((await t.store.deployedComponents.list(ws)).map((dc) => dc.id)).toEqual([a.id, b.id]);
    });

    t.test("slug is unique per workspace", async () => {
      const ws = await t.workspace();
      const other = await t.workspace();
      const slug = unique("slug");
      await t.component(ws, { slug });
      await expectStoreError(t.component(ws, { slug }), "conflict");
      await expect(t.component(other, { slug })).resolves.toBeDefined();
      const second = await t.component(ws);
      await expectStoreError(t.store.deployedComponents.update(ws, second.id, { slug }), "conflict");
    });

    t.test("update changes the given fields", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws, { endpointId: unique("en") });
      const updated = await t.store.deployedComponents.update(ws, dc.id, {
        name: "Renamed",
        props: { greeting: "hello" },
        active: false,
        endpointId: null,
      });
      expect(updated).toMatchObject({
        id: dc.id,
        name: "Renamed",
        props: { greeting: "hello" },
        active: false,
      });
      expect(updated?.endpointId).toBeUndefined();
      expect(updated?.slug).toBe(dc.slug);
      expect(await t.store.deployedComponents.get(ws, dc.id)).toEqual(updated);
      expect(await t.store.deployedComponents.update(ws, "dc_missing", { name: "x" })).toBeUndefined();
    });

    t.test("delete cascades to db keys, dedupe state, timer and subscriptions", async () => {
      const { store } = t;
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const keep = await t.component(ws);
      const hook = await t.webhook(ws);
      await store.kv.set(dc.id, "a", 1);
      await store.kv.set(keep.id, "a", 1);
      await store.emits.commit({
        workspaceId: ws,
        componentId: dc.id,
        events: [{ channel: "default", ts: 1, eventId: "1", body: null }],
        dedupe: "unique",
      });
      expect(await store.dedupe.get(dc.id)).toEqual({ ids: ["1"] });
      await store.timers.upsert({ componentId: dc.id, workspaceId: ws, nextAt: nextWindow() });
      await store.subscriptions.create({ workspaceId: ws, emitterId: dc.id, listenerId: hook.id });
      await store.subscriptions.create({ workspaceId: ws, emitterId: keep.id, listenerId: hook.id });
      expect(await store.deployedComponents.delete(ws, dc.id)).toBe(true);
      expect(await store.deployedComponents.get(ws, dc.id)).toBeUndefined();
      expect(await store.kv.list(dc.id)).toEqual([]);
      expect(await store.kv.get(keep.id, "a")).toBe(1);
      expect(await store.dedupe.get(dc.id)).toBeUndefined();
      expect(await store.timers.get(ws, dc.id)).toBeUndefined();
      const subs = await store.subscriptions.list(ws);
      expect(subs.map((sub) => sub.emitterId)).toEqual([keep.id]);
      expect(await store.deployedComponents.delete(ws, dc.id)).toBe(false);
    });
  });
}
