/** Conformance: webhooks, and what enabling, disabling and deleting one does to its deliveries. */
import { describe, expect } from "vitest";
import type { Webhook } from "../types/index.js";
import { events, nextWindow, type SuiteContext } from "./context.js";

/** Registers the webhook tests. */
export function webhooksSuite(t: SuiteContext): void {
  describe("webhooks", () => {
    t.test("create, get and list", async () => {
      const ws = await t.workspace();
      const hook = await t.store.webhooks.create({
        workspaceId: ws,
        url: "https://example.com/a",
        description: "desc",
        active: true,
        secrets: [{ value: "enc", createdAt: 1, expiresAt: 2 }],
      });
      expect(hook.id).toMatch(/^wh_/);
      expect(hook).toMatchObject({ url: "https://example.com/a", description: "desc", active: true });
      expect(hook.secrets).toEqual([{ value: "enc", createdAt: 1, expiresAt: 2 }]);
      expect(await t.store.webhooks.get(ws, hook.id)).toEqual(hook);
      const second = await t.webhook(ws);
      expect((await t.store.webhooks.list(ws)).map((h) => h.id)).toEqual([hook.id, second.id]);
    });

    t.test("update changes the given fields; null clears", async () => {
      const ws = await t.workspace();
      const hook = await t.webhook(ws);
      const updated = await t.store.webhooks.update(ws, hook.id, {
        url: "https://example.com/b",
        active: false,
        name: null,
        disabledReason: "gone",
        secrets: [
          { value: "old", createdAt: 1, expiresAt: 5 },
          { value: "new", createdAt: 2 },
        ],
      });
      expect(updated).toMatchObject({ url: "https://example.com/b", active: false, disabledReason: "gone" });
      expect(updated?.name).toBeUndefined();
      expect(updated?.secrets).toHaveLength(2);
      expect(await t.store.webhooks.get(ws, hook.id)).toEqual(updated);
      expect(await t.store.webhooks.update(ws, "wh_missing", { active: true })).toBeUndefined();
    });

    t.test("delete removes subscriptions and cancels waiting deliveries", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, emitter, webhooks, deliveryIds } = await t.outbox(3, now, 2);
      const [gone, kept] = webhooks as [Webhook, Webhook];
      const goneIds = new Set(
        (await store.deliveries.list(ws, { webhookId: gone.id })).items.map((delivery) => delivery.id),
      );
      // one delivery of the deleted webhook is already done and must stay as it is
      const claimed = await t.drain(new Set(goneIds), { owner: "w", now });
      const done = claimed[0]!;
      expect(
        await store.queue.deliveries.complete(done.id, "w", { state: "succeeded", status: 200, at: now }),
      ).toBe(true);
      expect(await store.webhooks.delete(ws, gone.id)).toBe(true);
      expect(await store.webhooks.get(ws, gone.id)).toBeUndefined();
      expect(
        (await store.subscriptions.list(ws, { emitterId: emitter.id })).map((s) => s.listenerId),
      ).toEqual([kept.id]);
      for (const id of deliveryIds) {
        const delivery = await store.deliveries.get(ws, id);
        if (id === done.id) expect(delivery?.state).toBe("succeeded");
        else if (goneIds.has(id))
          expect(delivery).toMatchObject({ state: "failed", lastError: "webhook_deleted" });
        else expect(["pending", "delivering"]).toContain(delivery?.state);
      }
      // the in-flight claim of a cancelled delivery cannot complete it any more
      for (const row of claimed.slice(1)) {
        expect(await store.queue.deliveries.complete(row.id, "w", { state: "succeeded", at: now })).toBe(
          false,
        );
      }
      expect(await store.webhooks.delete(ws, gone.id)).toBe(false);
      // new events no longer create deliveries for it
      const [event] = await t.emit(ws, emitter.id, events(1, now), now);
      expect(event!.deliveryIds).toHaveLength(1);
    });

    t.test("disabling pauses the waiting deliveries; enabling makes them due now", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, emitter, webhooks, deliveryIds } = await t.outbox(3, now);
      const hook = webhooks[0]!;
      const ours = new Set(deliveryIds);
      // One delivery stays in flight; two go back to pending (a retry later).
      const [inFlight, ...rest] = await t.drain(ours, { owner: "w", now });
      expect(rest).toHaveLength(2);
      for (const row of rest) {
        await store.queue.deliveries.complete(row.id, "w", {
          state: "pending",
          nextAttemptAt: now + 50,
          at: now,
        });
      }
      expect((await store.webhooks.update(ws, hook.id, { active: false }))?.active).toBe(false);
      const states = async () =>
        Object.fromEntries(
          await Promise.all(deliveryIds.map(async (id) => [id, (await store.deliveries.get(ws, id))?.state])),
        );
      expect(Object.values(await states()).sort()).toEqual(["delivering", "paused", "paused"]);
      // New events wait too, and nothing of this webhook is claimed.
      const [late] = await t.emit(ws, emitter.id, events(1, now + 60), now + 60);
      expect((await store.deliveries.get(ws, late!.deliveryIds[0]!))?.state).toBe("paused");
      expect(await t.drain(new Set([...ours, ...late!.deliveryIds]), { owner: "x", now: now + 100 })).toEqual(
        [],
      );
      // The attempt in flight finishes; rescheduled, it waits as well.
      expect(
        await store.queue.deliveries.complete(inFlight!.id, "w", {
          state: "pending",
          nextAttemptAt: now + 70,
          at: now + 60,
        }),
      ).toBe(true);
      expect((await store.deliveries.get(ws, inFlight!.id))?.state).toBe("paused");

      await store.webhooks.update(ws, hook.id, { name: "renamed" }); // not a change of `active`
      expect((await store.deliveries.get(ws, inFlight!.id))?.state).toBe("paused");
      const enabledAt = Date.now();
      await store.webhooks.update(ws, hook.id, { active: true });
      const resumed = await store.deliveries.list(ws, { webhookId: hook.id, limit: 100 });
      expect(resumed.items).toHaveLength(4);
      for (const row of resumed.items) {
        expect(row.state).toBe("pending");
        expect(row.nextAttemptAt).toBeGreaterThanOrEqual(enabledAt); // due now (the store's clock)
      }
      const all = new Set([...ours, ...late!.deliveryIds]);
      const sent = await t.drain(all, { owner: "y", now: Date.now() + 1_000 });
      expect(sent.map((row) => row.id).sort()).toEqual([...all].sort());
    });
  });
}
