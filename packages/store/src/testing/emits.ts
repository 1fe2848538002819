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

    t.test("commitRun writes the events and the run's log lines together, each in order", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, emitter } = await t.outbox(0, now);
      const logs = [
        { level: "info", message: "first", ts: now },
        { level: "error", message: "second\u0000 with a NUL", ts: now + 1 },
        { level: "warn", message: "third", ts: now + 2 },
      ];
      const committed = await store.emits.commitRun({
        workspaceId: ws,
        componentId: emitter.id,
        events: events(2, now),
        logs,
        now,
      });
      expect(committed.events).toHaveLength(2);
      expect(committed.events[0]!.deliveryIds).toHaveLength(1);
      expect(committed.logs.map(({ level, message, ts }) => ({ level, message, ts }))).toEqual(logs);
      expect(committed.logs.every((line) => line.workspaceId === ws && line.componentId === emitter.id)).toBe(
        true,
      );
      const seqs = committed.logs.map((line) => line.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(3);
      const listed = await store.logs.list(ws, emitter.id);
      expect(listed.items).toEqual(committed.logs);
      expect((await store.events.list(ws, emitter.id, { order: "asc" })).items.map((e) => e.body)).toEqual([
        { n: 0 },
        { n: 1 },
      ]);

      // Lines alone (a run that emitted nothing) are written too; a later run's come after.
      const alone = await store.emits.commitRun({
        workspaceId: ws,
        componentId: emitter.id,
        events: [],
        logs: [{ level: "info", message: "no event", ts: now + 3 }],
      });
      expect(alone.events).toEqual([]);
      expect(alone.logs[0]!.seq).toBeGreaterThan(seqs[2]!);
      expect((await store.logs.list(ws, emitter.id)).items.map((line) => line.message)).toEqual([
        "first",
        "second\u0000 with a NUL",
        "third",
        "no event",
      ]);
    });

    t.test("concurrent commitRuns of one emitter keep each run's lines in its order", async () => {
      const { store } = t;
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const runs = await Promise.all(
        Array.from({ length: 8 }, (_, r) =>
          store.emits.commitRun({
            workspaceId: ws,
            componentId: dc.id,
            events: events(r % 3, r * 10),
            logs: Array.from({ length: (r % 4) + 1 }, (_, i) => ({
              level: "info",
              message: `${r}.${i}`,
              ts: r,
            })),
          }),
        ),
      );
      const listed = (await store.logs.list(ws, dc.id, { limit: 1000 })).items;
      expect(listed).toHaveLength(runs.reduce((n, run) => n + run.logs.length, 0));
      for (const [r, run] of runs.entries()) {
        expect(run.logs.map((line) => line.message)).toEqual(
          Array.from({ length: (r % 4) + 1 }, (_, i) => `${r}.${i}`),
        );
        expect(run.events).toHaveLength(r % 3);
        const mine = listed.filter((line) => line.message.startsWith(`${r}.`));
        expect(mine).toEqual(run.logs);
      }
    });

    t.test("a refused commitRun writes none of its log lines", async () => {
      const { store } = t;
      const ws = await t.workspace();
      const dc = await t.component(ws);
      // Under a strategy every event needs its id: refused before anything is written.
      await expect(
        store.emits.commitRun({
          workspaceId: ws,
          componentId: dc.id,
          events: events(1, 1),
          dedupe: "unique",
          logs: [{ level: "info", message: "refused", ts: 1 }],
        }),
      ).rejects.toMatchObject({ code: "dedupe_missing_id" });
      expect((await store.logs.list(ws, dc.id)).items).toEqual([]);
      expect((await store.events.list(ws, dc.id)).items).toEqual([]);
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

          const logsBefore = (await store.logs.list(ws, emitter.id, { limit: 1000 })).items;
          faults.arm(point);
          const failed = store.emits.commitRun({
            workspaceId: ws,
            componentId: emitter.id,
            events: ided(3, now + 10),
            dedupe: "unique",
            now: now + 10,
            logs: [{ level: "info", message: "lost with the commit", ts: now + 10 }],
          });
          await expect(failed).rejects.toThrow(`injected fault before writing ${point}`);
          faults.disarm();

          expect(await store.dedupe.get(emitter.id)).toEqual(before.dedupe);
          expect((await store.events.list(ws, emitter.id, { limit: 100 })).items).toEqual(before.events);
          const deliveries = await store.deliveries.list(ws, { webhookId: webhooks[0]!.id, limit: 100 });
          expect(deliveries.items).toEqual(before.deliveries);
          expect((await store.logs.list(ws, emitter.id, { limit: 1000 })).items).toEqual(logsBefore);
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
