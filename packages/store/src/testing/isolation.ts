/** Conformance: workspaces never see or change each other's rows; returned rows are copies. */
import { describe, expect } from "vitest";
import { DESCRIPTION, nextWindow, type SuiteContext, unique } from "./context.js";

/** Registers the isolation tests. */
export function isolationSuite(t: SuiteContext): void {
  describe("isolation", () => {
    t.test("another workspace sees nothing and changes nothing", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, emitter, webhooks, appended, deliveryIds } = await t.outbox(2, now);
      const hook = webhooks[0]!;
      const intruder = await t.workspace("intruder");
      const key = await store.apiKeys.create({ workspaceId: ws, name: "k", hash: unique("h"), hint: "h" });
      const account = await store.accounts.create({
        workspaceId: ws,
        app: "github",
        name: "a",
        credentials: "c",
      });
      const saved = await store.savedComponents.create({
        workspaceId: ws,
        code: "c",
        codeHash: "h",
        filename: "f.mjs",
        bundle: "b",
        description: DESCRIPTION,
        key: unique("key"),
        version: "1.0.0",
      });
      await store.logs.append(ws, emitter.id, [{ level: "info", message: "secret", ts: 1 }]);
      await store.timers.upsert({ componentId: emitter.id, workspaceId: ws, nextAt: now + 1e8 });
      const attempt = await store.queue.deliveries.recordAttempt({
        deliveryId: deliveryIds[0]!,
        workspaceId: ws,
        at: now,
        durationMs: 1,
      });

      // reads
      expect(await store.apiKeys.list(intruder)).toEqual([]);
      expect(await store.accounts.get(intruder, account.id)).toBeUndefined();
      expect(await store.accounts.list(intruder)).toEqual([]);
      expect(await store.savedComponents.get(intruder, saved.id)).toBeUndefined();
      expect(await store.savedComponents.list(intruder)).toEqual([]);
      expect(await store.savedComponents.findByKey(intruder, saved.key!)).toBeUndefined();
      expect(await store.deployedComponents.get(intruder, emitter.id)).toBeUndefined();
      expect(await store.deployedComponents.getBySlug(intruder, emitter.slug)).toBeUndefined();
      expect(await store.deployedComponents.list(intruder)).toEqual([]);
      expect((await store.events.list(intruder, emitter.id)).items).toEqual([]);
      expect(await store.events.get(intruder, appended[0]!.id)).toBeUndefined();
      expect((await store.logs.list(intruder, emitter.id)).items).toEqual([]);
      expect(await store.webhooks.get(intruder, hook.id)).toBeUndefined();
      expect(await store.webhooks.list(intruder)).toEqual([]);
      expect(await store.subscriptions.list(intruder)).toEqual([]);
      expect(await store.subscriptions.list(intruder, { emitterId: emitter.id })).toEqual([]);
      expect(await store.timers.get(intruder, emitter.id)).toBeUndefined();
      expect(await store.deliveries.get(intruder, deliveryIds[0]!)).toBeUndefined();
      expect((await store.deliveries.list(intruder)).items).toEqual([]);
      expect(await store.deliveries.listAttempts(intruder, deliveryIds[0]!)).toEqual([]);

      // writes
      expect(await store.apiKeys.revoke(intruder, key.id)).toBe(false);
      expect(await store.accounts.update(intruder, account.id, { name: "x" })).toBeUndefined();
      expect(await store.accounts.delete(intruder, account.id)).toBe(false);
      expect(await store.deployedComponents.update(intruder, emitter.id, { name: "x" })).toBeUndefined();
      expect(await store.deployedComponents.delete(intruder, emitter.id)).toBe(false);
      expect(await store.events.delete(intruder, emitter.id)).toBe(0);
      expect(await store.events.delete(intruder, emitter.id, [appended[0]!.id])).toBe(0);
      expect(await store.webhooks.update(intruder, hook.id, { active: false })).toBeUndefined();
      expect(await store.webhooks.delete(intruder, hook.id)).toBe(false);
      expect(await store.subscriptions.delete(intruder, { emitterId: emitter.id, listenerId: hook.id })).toBe(
        0,
      );
      expect(await store.deliveries.retry(intruder, deliveryIds[0]!, now)).toBe(false);
      expect(await store.deliveries.recover(intruder, hook.id, { since: 0 }, now)).toBe(0);
      expect(await store.deliveries.purge(intruder, hook.id)).toBe(0);

      // nothing changed
      expect(await store.apiKeys.findByHash(key.hash)).toEqual(key);
      expect(await store.accounts.get(ws, account.id)).toEqual(account);
      expect(await store.deployedComponents.get(ws, emitter.id)).toEqual(emitter);
      expect((await store.events.list(ws, emitter.id)).items).toHaveLength(2);
      expect(await store.webhooks.get(ws, hook.id)).toEqual(hook);
      expect(await store.subscriptions.list(ws, { emitterId: emitter.id })).toHaveLength(1);
      expect((await store.logs.list(ws, emitter.id)).items).toHaveLength(1);
      expect(await store.timers.get(ws, emitter.id)).toBeDefined();
      expect(await store.deliveries.get(ws, deliveryIds[0]!)).toMatchObject({ state: "pending" });
      expect(await store.deliveries.listAttempts(ws, deliveryIds[0]!)).toEqual([attempt]);
    });

    t.test("returned rows are copies", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      dc.props.greeting = "mutated";
      dc.name = "mutated";
      const read = await t.store.deployedComponents.get(ws, dc.id);
      expect(read?.props).toEqual({ greeting: "hi" });
      expect(read?.name).toBe("Test component");
      read!.props.greeting = "again";
      expect((await t.store.deployedComponents.get(ws, dc.id))?.props).toEqual({ greeting: "hi" });
      const body = { a: [1] };
      const [event] = await t.emit(ws, dc.id, [{ channel: "default", ts: 1, body }]);
      body.a.push(9);
      (event!.body as { a: number[] }).a.push(2);
      expect((await t.store.events.getById(event!.id))?.body).toEqual({ a: [1] });
    });
  });
}
