/** Conformance: delivery records (reads, attempts, retry, recover, purge). */
import { describe, expect } from "vitest";
import type { ClaimedDelivery, Webhook } from "../types/index.js";
import { events, expectStoreError, nextWindow, type SuiteContext } from "./context.js";

/** Registers the delivery record tests. */
export function deliveriesSuite(t: SuiteContext): void {
  describe("deliveries", () => {
    t.test("recordAttempt and listAttempts", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, deliveryIds } = await t.outbox(1, now);
      const other = await t.workspace();
      const id = deliveryIds[0]!;
      const first = await store.queue.deliveries.recordAttempt({
        deliveryId: id,
        workspaceId: ws,
        at: now,
        status: 500,
        durationMs: 12,
        responseExcerpt: "oops",
      });
      expect(first.id).toMatch(/^att_/);
      const second = await store.queue.deliveries.recordAttempt({
        deliveryId: id,
        workspaceId: ws,
        at: now + 5000,
        durationMs: 15000,
        error: "timeout",
      });
      const listed = await store.deliveries.listAttempts(ws, id);
      expect(listed).toEqual([first, second]);
      expect(listed[0]).toMatchObject({ status: 500, durationMs: 12, responseExcerpt: "oops", at: now });
      expect(await store.deliveries.listAttempts(other, id)).toEqual([]);
    });

    t.test("get and list with filters and paging", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, deliveryIds, webhooks } = await t.outbox(12, now, 2);
      const [a] = webhooks as [Webhook, Webhook];
      expect(await store.deliveries.get(ws, "dlv_missing")).toBeUndefined();
      const all = await store.deliveries.list(ws, { limit: 100 });
      expect(all.items).toHaveLength(24);
      expect(all.items.map((d) => d.id)).toEqual([...deliveryIds].sort().reverse());
      expect((await store.deliveries.list(ws)).items.length).toBeGreaterThan(0);
      const forA = await store.deliveries.list(ws, { webhookId: a.id, limit: 100 });
      expect(forA.items).toHaveLength(12);
      expect(forA.items.every((d) => d.webhookId === a.id)).toBe(true);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await store.deliveries.list(ws, { limit: 10, ...(cursor ? { before: cursor } : {}) });
        seen.push(...page.items.map((d) => d.id));
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      expect(seen).toEqual(all.items.map((d) => d.id));
      const claimed = await t.drain(new Set(deliveryIds), { owner: "w", now, limit: 5 });
      expect(await store.queue.deliveries.complete(claimed[0]!.id, "w", { state: "failed", at: now })).toBe(
        true,
      );
      const failed = await store.deliveries.list(ws, { state: "failed" });
      expect(failed.items.map((d) => d.id)).toEqual([claimed[0]!.id]);
      const byEvent = await store.deliveries.list(ws, { eventId: claimed[0]!.eventId });
      expect(byEvent.items).toHaveLength(2);
    });

    t.test("list refuses a malformed cursor as invalid, naming it", async () => {
      const ws = await t.workspace();
      for (const bad of [
        "abc",
        "",
        "dlv_",
        "evt_01jd3k6y2f8q4m7c1x9zb5t0ne",
        "dlv_01jd3k6y2f8q4m7c1x9zb5t0n!",
      ]) {
        await expectStoreError(t.store.deliveries.list(ws, { before: bad }), "invalid", "before");
      }
      await expect(
        t.store.deliveries.list(ws, { before: "dlv_01jd3k6y2f8q4m7c1x9zb5t0ne" }),
      ).resolves.toEqual({
        items: [],
      });
    });

    t.test("retry makes a finished delivery pending now", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, deliveryIds } = await t.outbox(2, now);
      const ours = new Set(deliveryIds);
      const other = await t.workspace();
      const [x, y] = (await t.drain(ours, { owner: "w", now })) as [ClaimedDelivery, ClaimedDelivery];
      expect(await store.deliveries.retry(ws, x.id, now + 1)).toBe(false); // in flight
      await store.queue.deliveries.complete(x.id, "w", { state: "failed", error: "http_500", at: now });
      await store.queue.deliveries.complete(y.id, "w", { state: "succeeded", at: now });
      expect(await store.deliveries.retry(other, x.id, now + 10)).toBe(false);
      expect((await store.deliveries.get(ws, x.id))?.state).toBe("failed");
      expect(await store.deliveries.retry(ws, x.id, now + 10)).toBe(true);
      expect(await store.deliveries.retry(ws, y.id, now + 10)).toBe(true);
      expect(await store.deliveries.get(ws, x.id)).toMatchObject({
        state: "pending",
        nextAttemptAt: now + 10,
      });
      const again = await t.drain(ours, { owner: "w", now: now + 10 });
      expect(again.map((row) => row.id).sort()).toEqual([x.id, y.id].sort());
      expect(await store.deliveries.retry(ws, "dlv_missing", now)).toBe(false);
    });

    t.test("recover makes the failed deliveries of a window pending", async () => {
      const { store } = t;
      const at = nextWindow();
      const ws = await t.workspace();
      const other = await t.workspace();
      const emitter = await t.component(ws);
      const hook = await t.webhook(ws);
      const otherHook = await t.webhook(ws);
      await store.subscriptions.create({ workspaceId: ws, emitterId: emitter.id, listenerId: hook.id });
      await store.subscriptions.create({ workspaceId: ws, emitterId: emitter.id, listenerId: otherHook.id });
      const ids: string[] = [];
      for (const when of [at, at + 100, at + 200, at + 300]) {
        const [event] = await t.emit(ws, emitter.id, events(1, when), when);
        ids.push(...event!.deliveryIds);
      }
      const claimed = await t.drain(new Set(ids), { owner: "w", now: at + 300 });
      expect(claimed).toHaveLength(8);
      for (const row of claimed) {
        const state = row.createdAt === at + 200 && row.webhookId === hook.id ? "succeeded" : "failed";
        await store.queue.deliveries.complete(row.id, "w", { state, at: at + 300 });
      }
      expect(await store.deliveries.recover(other, hook.id, { since: at }, at + 400)).toBe(0);
      // [at + 100, at + 300): the at + 100 one is failed, the at + 200 one succeeded
      expect(
        await store.deliveries.recover(ws, hook.id, { since: at + 100, until: at + 300 }, at + 400),
      ).toBe(1);
      expect(await store.deliveries.recover(ws, hook.id, { since: at }, at + 400)).toBe(2);
      const pending = await store.deliveries.list(ws, { state: "pending", limit: 100 });
      expect(pending.items).toHaveLength(3);
      expect(pending.items.every((d) => d.webhookId === hook.id && d.nextAttemptAt === at + 400)).toBe(true);
      expect(
        (await store.deliveries.list(ws, { webhookId: otherHook.id, state: "failed" })).items,
      ).toHaveLength(4);
    });

    t.test("retry and recover of a disabled webhook's deliveries make them wait, paused", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, webhooks, deliveryIds } = await t.outbox(2, now);
      const [x, y] = (await t.drain(new Set(deliveryIds), { owner: "w", now })) as [
        ClaimedDelivery,
        ClaimedDelivery,
      ];
      await store.queue.deliveries.complete(x.id, "w", { state: "failed", at: now });
      await store.queue.deliveries.complete(y.id, "w", { state: "failed", at: now });
      await store.webhooks.update(ws, webhooks[0]!.id, { active: false });
      expect(await store.deliveries.retry(ws, x.id, now + 5)).toBe(true);
      expect(await store.deliveries.recover(ws, webhooks[0]!.id, { since: now }, now + 5)).toBe(1);
      for (const id of [x.id, y.id]) {
        expect(await store.deliveries.get(ws, id)).toMatchObject({ state: "paused", nextAttemptAt: now + 5 });
      }
      expect(await t.drain(new Set(deliveryIds), { owner: "w", now: now + 5 })).toEqual([]);
    });

    t.test("purge drops the webhook's waiting deliveries and their attempts, nothing else", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, emitter, webhooks, appended } = await t.outbox(4, now, 2);
      const [hook, other] = webhooks as [Webhook, Webhook];
      const mine = appended.map((event) => event.deliveryIds[0]!);
      // deliveries go to webhooks in subscription order: [0] is hook's
      expect((await store.deliveries.get(ws, mine[0]!))?.webhookId).toBe(hook.id);
      const [done, inFlight, retrying, fourth] = await t.drain(new Set(mine), { owner: "w", now });
      await store.queue.deliveries.complete(done!.id, "w", { state: "succeeded", at: now });
      await store.queue.deliveries.recordAttempt({
        deliveryId: retrying!.id,
        workspaceId: ws,
        at: now,
        durationMs: 1,
      });
      for (const row of [retrying!, fourth!]) {
        await store.queue.deliveries.complete(row.id, "w", {
          state: "pending",
          nextAttemptAt: now + 9,
          at: now,
        });
      }
      await store.webhooks.update(ws, hook.id, { active: false });
      const [late] = await t.emit(ws, emitter.id, events(1, now), now);
      const intruder = await t.workspace();
      expect(await store.deliveries.purge(intruder, hook.id)).toBe(0);
      // retrying (paused), the 4th (paused) and the late one (paused): 3; not done, not in flight
      expect(await store.deliveries.purge(ws, hook.id)).toBe(3);
      expect(await store.deliveries.get(ws, retrying!.id)).toBeUndefined();
      expect(await store.deliveries.listAttempts(ws, retrying!.id)).toEqual([]);
      expect(await store.deliveries.get(ws, fourth!.id)).toBeUndefined();
      expect(await store.deliveries.get(ws, late!.deliveryIds[0]!)).toBeUndefined();
      expect((await store.deliveries.get(ws, done!.id))?.state).toBe("succeeded");
      expect((await store.deliveries.get(ws, inFlight!.id))?.state).toBe("delivering");
      expect((await store.deliveries.list(ws, { webhookId: other.id, limit: 100 })).items).toHaveLength(5);
      expect((await store.events.list(ws, emitter.id, { limit: 100 })).items).toHaveLength(5);
      expect(await store.deliveries.purge(ws, hook.id)).toBe(0);
    });
  });
}
