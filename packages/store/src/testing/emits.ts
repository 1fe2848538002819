/** Conformance: the atomic emit (the outbox), and its all-or-nothing guarantee under faults. */
import { describe, expect } from "vitest";
import { FAULT_POINTS } from "../adapter/faults.js";
import { events, nextWindow, type SuiteContext } from "./context.js";

/** Registers the emit tests (the fault tests run when the adapter declares `faultInjection`). */
export function emitsSuite(t: SuiteContext): void {
  describe("emits", () => {
    t.test("commit stores events with evt_ ids and increasing seq", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const appended = await t.emit(ws, dc.id, [
        { channel: "default", ts: 1, body: { a: 1 }, summary: "first", eventId: "e1" },
        { channel: "default", ts: 2, body: { a: 2 } },
      ]);
      expect(appended).toHaveLength(2);
      expect(appended[0]?.id).toMatch(/^evt_/);
      expect(appended[0]).toMatchObject({
        workspaceId: ws,
        emitterId: dc.id,
        channel: "default",
        summary: "first",
        eventId: "e1",
        ts: 1,
        body: { a: 1 },
        deliveryIds: [],
      });
      expect(appended[1]!.seq).toBeGreaterThan(appended[0]!.seq);
      const later = await t.emit(ws, dc.id, [{ channel: "default", ts: 3, body: null }]);
      expect(later[0]!.seq).toBeGreaterThan(appended[1]!.seq);
    });

    t.test(
      "outbox: one delivery per matching webhook subscription; a disabled webhook's waits paused",
      async () => {
        const { store } = t;
        const now = nextWindow();
        const ws = await t.workspace();
        const emitter = await t.component(ws);
        const otherEmitter = await t.component(ws);
        const active = await t.webhook(ws);
        const inactive = await t.webhook(ws, false);
        const otherEmitterHook = await t.webhook(ws);
        const ordersHook = await t.webhook(ws);
        const explicitDefault = await t.webhook(ws);
        const sub = (emitterId: string, listenerId: string, eventName?: string | null) =>
          store.subscriptions.create({
            workspaceId: ws,
            emitterId,
            listenerId,
            ...(eventName === undefined ? {} : { eventName }),
          });
        await sub(emitter.id, active.id, null);
        await sub(emitter.id, inactive.id);
        await sub(otherEmitter.id, otherEmitterHook.id);
        await sub(emitter.id, ordersHook.id, "orders");
        await sub(emitter.id, explicitDefault.id, "default");

        const [plain, order] = await t.emit(
          ws,
          emitter.id,
          [
            { channel: "default", ts: now, body: { kind: "plain" } },
            { channel: "orders", ts: now, body: { kind: "order" } },
          ],
          now,
        );
        expect(plain!.deliveryIds).toHaveLength(3);
        expect(order!.deliveryIds).toHaveLength(1);

        const forPlain = await Promise.all(plain!.deliveryIds.map((id) => store.deliveries.get(ws, id)));
        expect(forPlain.map((d) => d?.webhookId).sort()).toEqual(
          [active.id, inactive.id, explicitDefault.id].sort(),
        );
        for (const delivery of forPlain) {
          expect(delivery).toMatchObject({
            workspaceId: ws,
            eventId: plain!.id,
            emitterId: emitter.id,
            channel: "default",
            state: delivery?.webhookId === inactive.id ? "paused" : "pending",
            attempts: 0,
            nextAttemptAt: now,
          });
          expect(delivery!.id).toMatch(/^dlv_/);
          expect(delivery!.event?.body).toEqual({ kind: "plain" });
        }
        const forOrder = await store.deliveries.get(ws, order!.deliveryIds[0]!);
        expect(forOrder).toMatchObject({ webhookId: ordersHook.id, channel: "orders", eventId: order!.id });

        const listed = await store.deliveries.list(ws, { limit: 100 });
        expect(listed.items.map((d) => d.webhookId)).not.toContain(otherEmitterHook.id);
        expect(listed.items).toHaveLength(4);
        // The paused one is never claimed while its webhook is disabled.
        const claimed = await t.drain(new Set(plain!.deliveryIds), { owner: "w", now });
        expect(claimed.map((row) => row.webhookId).sort()).toEqual([active.id, explicitDefault.id].sort());
      },
    );

    t.test("a body given as its JSON text is stored and claimed as those bytes", async () => {
      const ws = await t.workspace();
      const emitter = await t.component(ws);
      const hook = await t.webhook(ws);
      await t.store.subscriptions.create({ workspaceId: ws, emitterId: emitter.id, listenerId: hook.id });
      // Spelled as no JSON.stringify writes it: key order, spaces, number forms, escapes.
      const json = '{ "z": 1.0, "a": [1E21, -0, 0.10], "s": "\\u00e9\\n" }';
      const now = nextWindow();
      const [event] = await t.emit(
        ws,
        emitter.id,
        [{ channel: "default", ts: now, body: JSON.parse(json), json }],
        now,
      );
      expect(event!.body).toEqual({ z: 1, a: [1e21, -0, 0.1], s: "\u00e9\n" });
      const [claimed] = await t.drain(new Set(event!.deliveryIds), { owner: "w", now });
      expect(claimed!.payload).toBe(json);
      expect(claimed!.event.body).toEqual(JSON.parse(json));
      expect((await t.store.events.get(ws, event!.id))?.body).toEqual(JSON.parse(json));
    });

    t.test("outbox: subscriptions and webhooks of another workspace never receive", async () => {
      const ws = await t.workspace();
      const other = await t.workspace();
      const emitter = await t.component(ws);
      const foreignHook = await t.webhook(other);
      // a subscription in the other workspace naming this emitter
      await t.store.subscriptions.create({
        workspaceId: other,
        emitterId: emitter.id,
        listenerId: foreignHook.id,
      });
      const [event] = await t.emit(ws, emitter.id, events(1, 1));
      expect(event!.deliveryIds).toEqual([]);
    });

    describe.skipIf(!t.options.faultInjection)("all or nothing (faultInjection)", () => {
      for (const point of FAULT_POINTS) {
        t.test(`a failure before writing ${point} leaves nothing of the commit written`, async () => {
          const { store } = t;
          const faults = t.options.faultInjection!;
          const now = nextWindow();
          const { ws, emitter, webhooks, appended } = await t.outbox(2, now);
          const ided = (n: number, at: number) =>
            events(n, at).map((e, i) => ({ ...e, eventId: `${at}-${i}` }));
          const before = {
            dedupe: await store.dedupe.get(emitter.id),
            events: (await store.events.list(ws, emitter.id, { limit: 100 })).items,
            deliveries: (await store.deliveries.list(ws, { webhookId: webhooks[0]!.id, limit: 100 })).items,
          };
          expect(before.events).toHaveLength(2);

          faults.arm(point);
          const failed = store.emits.commit({
            workspaceId: ws,
            componentId: emitter.id,
            events: ided(3, now + 10),
            dedupe: "unique",
            now: now + 10,
          });
          await expect(failed).rejects.toThrow(`injected fault before writing ${point}`);
          faults.disarm();

          expect(await store.dedupe.get(emitter.id)).toEqual(before.dedupe);
          expect((await store.events.list(ws, emitter.id, { limit: 100 })).items).toEqual(before.events);
          const deliveries = await store.deliveries.list(ws, { webhookId: webhooks[0]!.id, limit: 100 });
          expect(deliveries.items).toEqual(before.deliveries);
          // Nothing half-written is claimed either: only the two earlier deliveries are due.
          const ours = new Set(appended.flatMap((e) => e.deliveryIds));
          const claimed = await store.queue.deliveries.claim({
            owner: "w",
            now: now + 10,
            leaseMs: 60_000,
            limit: 100,
          });
          const mine = claimed.filter((row) => row.webhookId === webhooks[0]!.id).map((row) => row.id);
          expect(mine.sort()).toEqual([...ours].sort());

          // The store goes on as if the failed commit never happened.
          const next = await store.emits.commit({
            workspaceId: ws,
            componentId: emitter.id,
            events: ided(1, now + 20),
            dedupe: "unique",
            now: now + 20,
          });
          expect(next[0]!.seq).toBeGreaterThan(appended[1]!.seq);
          expect(next[0]!.deliveryIds).toHaveLength(1);
          expect(await store.dedupe.get(emitter.id)).toEqual({ ids: [`${now + 20}-0`] });
          expect((await store.events.list(ws, emitter.id, { limit: 100 })).items).toHaveLength(3);
        });
      }
    });
  });
}
