/** Conformance: events (reads, deletes, retention) and their cursors. */
import { describe, expect } from "vitest";
import { events, expectStoreError, nextWindow, type SuiteContext } from "./context.js";

/** Registers the event tests. */
export function eventsSuite(t: SuiteContext): void {
  describe("events", () => {
    t.test("list pages through 25 events newest first, each once", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const appended = await t.emit(ws, dc.id, events(25, 1000));
      const seen: string[] = [];
      let cursor: string | undefined;
      const sizes: number[] = [];
      for (let page = 0; page < 10; page++) {
        const result = await t.store.events.list(ws, dc.id, {
          limit: 10,
          ...(cursor ? { before: cursor } : {}),
        });
        sizes.push(result.items.length);
        seen.push(...result.items.map((event) => event.id));
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      expect(sizes).toEqual([10, 10, 5]);
      expect(seen).toEqual(appended.map((event) => event.id).reverse());
    });

    t.test("list: default limit 10, maximum 100, after cursor, channel filter", async () => {
      const { store } = t;
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const appended = await t.emit(ws, dc.id, [...events(60, 1, "default"), ...events(50, 100, "orders")]);
      expect((await store.events.list(ws, dc.id)).items).toHaveLength(10);
      expect((await store.events.list(ws, dc.id, { limit: 1000 })).items).toHaveLength(100);
      const orders = await store.events.list(ws, dc.id, { channel: "orders", limit: 100 });
      expect(orders.items).toHaveLength(50);
      expect(orders.items.every((event) => event.channel === "orders")).toBe(true);
      expect(orders.nextCursor).toBeUndefined();
      const firstPage = await store.events.list(ws, dc.id, { limit: 100 });
      const all = [...firstPage.items];
      let cursor = firstPage.nextCursor;
      while (cursor) {
        const next = await store.events.list(ws, dc.id, { limit: 100, before: cursor });
        all.push(...next.items);
        cursor = next.nextCursor;
      }
      expect(all).toHaveLength(110);
      // after: only newer events, still newest first; the cursor of an event ends a page at it
      const pageTo = await store.events.list(ws, dc.id, { limit: 6 });
      expect(pageTo.items.at(-1)!.id).toBe(appended[104]!.id);
      const newer = await store.events.list(ws, dc.id, { after: pageTo.nextCursor!, limit: 100 });
      expect(newer.items.map((event) => event.id)).toEqual(
        appended
          .slice(105)
          .map((event) => event.id)
          .reverse(),
      );
      expect(await store.events.list(ws, "dc_other")).toEqual({
        items: [],
        scanned: 0,
        budgetReached: false,
      });
    });

    t.test("list refuses a malformed cursor as invalid, naming it", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      for (const bad of ["abc", "", "1.5", "-1", "1e3", " 1", "99999999999999999999"]) {
        await expectStoreError(t.store.events.list(ws, dc.id, { after: bad }), "invalid", "after");
        await expectStoreError(t.store.events.list(ws, dc.id, { before: bad }), "invalid", "before");
      }
      await expect(t.store.events.list(ws, dc.id, { after: "0" })).resolves.toEqual({
        items: [],
        scanned: 0,
        budgetReached: false,
      });
    });

    t.test("get and getById", async () => {
      const ws = await t.workspace();
      const other = await t.workspace();
      const dc = await t.component(ws);
      const [event] = await t.emit(ws, dc.id, [{ channel: "default", ts: 5, body: { x: 1 } }]);
      const { deliveryIds: _ignored, ...stored } = event!;
      expect(await t.store.events.get(ws, event!.id)).toEqual(stored);
      expect(await t.store.events.get(other, event!.id)).toBeUndefined();
      expect(await t.store.events.getById(event!.id)).toEqual(stored);
      expect(await t.store.events.getById("evt_missing")).toBeUndefined();
    });

    t.test("delete some or all events; their pending deliveries fail", async () => {
      const { ws, emitter, appended } = await t.outbox(5, nextWindow());
      const other = await t.workspace();
      const first = appended[0]!;
      expect(await t.store.events.delete(other, emitter.id)).toBe(0);
      expect(await t.store.events.delete(ws, emitter.id, [first.id])).toBe(1);
      expect(await t.store.events.get(ws, first.id)).toBeUndefined();
      const delivery = await t.store.deliveries.get(ws, first.deliveryIds[0]!);
      expect(delivery).toMatchObject({ state: "failed", lastError: "event_deleted" });
      expect(await t.store.events.delete(ws, emitter.id)).toBe(4);
      expect((await t.store.events.list(ws, emitter.id)).items).toEqual([]);
    });

    t.test("trim by count keeps the newest events", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const appended = await t.emit(ws, dc.id, events(12, 1));
      expect(await t.store.events.trim(dc.id, { count: 5 })).toBe(7);
      const left = await t.store.events.list(ws, dc.id, { limit: 100 });
      expect(left.items.map((event) => event.id)).toEqual(
        appended
          .slice(7)
          .map((event) => event.id)
          .reverse(),
      );
      expect(await t.store.events.trim(dc.id, { count: 5 })).toBe(0);
      expect(await t.store.events.trim(dc.id, {})).toBe(0);
      expect(await t.store.events.trim(dc.id, { count: 0 })).toBe(5);
    });

    t.test("trim by bytes keeps the newest events within the budget, and always the newest", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      // Each body is {"s":"xxxxxxxxxx"}: 18 bytes of JSON; the é of the last one counts 2.
      const body = (text: string) => ({ s: text.padEnd(10, "x") });
      const appended = await t.emit(ws, dc.id, [
        { channel: "default", ts: 1, body: body("a") },
        { channel: "default", ts: 2, body: body("b") },
        { channel: "default", ts: 3, body: body("c") },
        { channel: "default", ts: 4, body: { s: "éxxxxxxxx" } },
      ]);
      const ids = async () => (await t.store.events.list(ws, dc.id, { limit: 100 })).items.map((e) => e.id);
      // 18 + 18 = 36 fit in 40; a third would make 54.
      expect(await t.store.events.trim(dc.id, { bytes: 40 })).toBe(2);
      expect(await ids()).toEqual([appended[3]!.id, appended[2]!.id]);
      // Both bounds apply.
      expect(await t.store.events.trim(dc.id, { bytes: 1_000, count: 1 })).toBe(1);
      // The newest one stays even when it alone is over the budget.
      expect(await t.store.events.trim(dc.id, { bytes: 1 })).toBe(0);
      expect(await ids()).toEqual([appended[3]!.id]);
    });

    t.test("trim keeps an event whose deliveries still wait, and deletes it once they end", async () => {
      const now = nextWindow();
      const { ws, emitter, appended } = await t.outbox(3, now);
      const [d0, d1, d2] = appended.map((event) => event.deliveryIds[0] as string);
      const queue = t.store.queue.deliveries;
      await t.drain(new Set([d0!, d1!, d2!]), { owner: "w", now: now + 1 });
      // The second ends; the first and the newest go back to wait for a retry.
      expect(await queue.complete(d1!, "w", { state: "succeeded", status: 200, at: now + 2 })).toBe(true);
      for (const id of [d0!, d2!]) {
        await queue.complete(id, "w", {
          state: "pending",
          nextAttemptAt: now + 10,
          error: "http_500",
          at: now + 2,
        });
      }
      // Beyond a count of 1: the first waits, so only the second goes.
      expect(await t.store.events.trim(emitter.id, { count: 1 })).toBe(1);
      const left = await t.store.events.list(ws, emitter.id);
      expect(left.items.map((event) => event.id)).toEqual([appended[2]!.id, appended[0]!.id]);
      expect((await t.store.deliveries.get(ws, d0!))?.state).toBe("pending");
      // Once its delivery ends (succeeded or failed for good), the next trim deletes it.
      await t.drain(new Set([d0!, d2!]), { owner: "w", now: now + 10 });
      await queue.complete(d0!, "w", { state: "failed", status: 500, error: "http_500", at: now + 11 });
      expect(await t.store.events.trim(emitter.id, { count: 1 })).toBe(1);
      expect((await t.store.events.list(ws, emitter.id)).items.map((event) => event.id)).toEqual([
        appended[2]!.id,
      ]);
    });

    t.test(
      "trim keeps an event whose delivery waits paused (its webhook disabled) or is in flight",
      async () => {
        const now = nextWindow();
        const ws = await t.workspace("paused");
        const emitter = await t.component(ws);
        const disabled = await t.webhook(ws, false);
        await t.store.subscriptions.create({
          workspaceId: ws,
          emitterId: emitter.id,
          listenerId: disabled.id,
        });
        const paused = await t.emit(ws, emitter.id, events(3, now), now);
        for (const event of paused) {
          expect((await t.store.deliveries.get(ws, event.deliveryIds[0] as string))?.state).toBe("paused");
        }
        // Every event waits: none goes, however small the count.
        expect(await t.store.events.trim(emitter.id, { count: 0 })).toBe(0);
        expect((await t.store.events.list(ws, emitter.id)).items).toHaveLength(3);
        // In flight (claimed, not completed): kept too.
        const busy = await t.outbox(2, now);
        const ids = new Set(busy.deliveryIds);
        expect(await t.drain(ids, { owner: "w", now: now + 1 })).toHaveLength(2);
        expect(await t.store.events.trim(busy.emitter.id, { count: 0 })).toBe(0);
        // Once the paused deliveries end (their webhook deleted), the events go.
        await t.store.webhooks.delete(ws, disabled.id);
        expect(await t.store.events.trim(emitter.id, { count: 1 })).toBe(2);
      },
    );

    t.test("delete fails the waiting deliveries of the deleted events", async () => {
      const { ws, emitter, appended } = await t.outbox(2, nextWindow());
      expect(await t.store.events.delete(ws, emitter.id, [appended[0]!.id])).toBe(1);
      const delivery = await t.store.deliveries.get(ws, appended[0]!.deliveryIds[0]!);
      expect(delivery).toMatchObject({ state: "failed", lastError: "event_deleted" });
      expect((await t.store.deliveries.get(ws, appended[1]!.deliveryIds[0]!))?.state).toBe("pending");
    });
  });
}
