/** Conformance: the Queue (claims, completions and sweeps of deliveries; claims of timer ticks). */
import { describe, expect } from "vitest";
import type { ClaimedDelivery, Webhook } from "../types/index.js";
import { events, nextWindow, type SuiteContext, unique } from "./context.js";

/** Registers the queue tests. */
export function queueSuite(t: SuiteContext): void {
  describe("queue.deliveries", () => {
    t.test("claim returns due rows oldest first, with event and webhook, leased", async () => {
      const { store } = t;
      const now = nextWindow();
      const ws = await t.workspace();
      const emitter = await t.component(ws);
      const hook = await t.webhook(ws);
      await store.subscriptions.create({ workspaceId: ws, emitterId: emitter.id, listenerId: hook.id });
      const [late] = await t.emit(ws, emitter.id, events(1, 0), now + 20);
      const [early] = await t.emit(ws, emitter.id, events(1, 0), now + 10);
      const [future] = await t.emit(ws, emitter.id, events(1, 0), now + 1000);
      const ours = new Set([late!, early!, future!].flatMap((event) => event.deliveryIds));
      const claimed = (
        await store.queue.deliveries.claim({ owner: "worker", now: now + 30, leaseMs: 5000, limit: 100 })
      ).filter((row) => ours.has(row.id));
      expect(claimed.map((row) => row.eventId)).toEqual([early!.id, late!.id]);
      expect(claimed[0]).toMatchObject({
        state: "delivering",
        attempts: 1,
        leaseOwner: "worker",
        leaseExpiresAt: now + 5030,
        webhookId: hook.id,
      });
      expect(claimed[0]!.event).toMatchObject({ id: early!.id, body: { n: 0 } });
      expect(claimed[0]!.webhook).toMatchObject({ id: hook.id, url: hook.url });
      expect((await store.deliveries.get(ws, claimed[0]!.id))?.state).toBe("delivering");
      // limit is honoured
      const limited = await store.queue.deliveries.claim({
        owner: "w",
        now: now + 2000,
        leaseMs: 5000,
        limit: 1,
      });
      expect(limited).toHaveLength(1);
    });

    t.test("concurrent claims never return a row twice", async () => {
      const now = nextWindow();
      const { deliveryIds } = await t.outbox(50, now, 2);
      expect(deliveryIds).toHaveLength(100);
      const ours = new Set(deliveryIds);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.store.queue.deliveries.claim({ owner: `worker-${i}`, now: now + 10, leaseMs: 60_000, limit: 15 }),
        ),
      );
      const rest = await t.drain(ours, { owner: "late", now: now + 10, limit: 50 });
      const claimed = [...results.flat().filter((row) => ours.has(row.id)), ...rest];
      expect(claimed).toHaveLength(100);
      expect(new Set(claimed.map((row) => row.id)).size).toBe(100);
    });

    t.test("complete: succeeded, failed, rescheduled, and lost leases", async () => {
      const { store } = t;
      const queue = store.queue.deliveries;
      const now = nextWindow();
      const { ws, deliveryIds } = await t.outbox(4, now);
      const ours = new Set(deliveryIds);
      const claimed = await t.drain(ours, { owner: "w", now });
      expect(claimed).toHaveLength(4);
      const [a, b, c, d] = claimed as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
      expect(await queue.complete(a.id, "other", { state: "succeeded", at: now })).toBe(false);
      expect(await queue.complete(a.id, "w", { state: "succeeded", status: 200, at: now + 1 })).toBe(true);
      expect(await store.deliveries.get(ws, a.id)).toMatchObject({ state: "succeeded", lastStatus: 200 });
      expect((await store.deliveries.get(ws, a.id))?.leaseOwner).toBeUndefined();
      expect(await queue.complete(a.id, "w", { state: "failed", at: now + 2 })).toBe(false);
      expect(
        await queue.complete(b.id, "w", { state: "failed", status: 500, error: "http_500", at: now }),
      ).toBe(true);
      expect(await store.deliveries.get(ws, b.id)).toMatchObject({
        state: "failed",
        lastStatus: 500,
        lastError: "http_500",
      });
      expect(
        await queue.complete(c.id, "w", {
          state: "pending",
          nextAttemptAt: now + 5000,
          error: "timeout",
          at: now,
        }),
      ).toBe(true);
      expect(await store.deliveries.get(ws, c.id)).toMatchObject({
        state: "pending",
        nextAttemptAt: now + 5000,
        lastError: "timeout",
        attempts: 1,
      });
      const early = await queue.claim({ owner: "w", now: now + 4999, leaseMs: 1000, limit: 100 });
      expect(early.map((row) => row.id)).not.toContain(c.id);
      const due = await t.drain(ours, { owner: "w2", now: now + 5000, leaseMs: 1000 });
      expect(due.map((row) => row.id)).toEqual([c.id]);
      expect(due[0]!.attempts).toBe(2);
      expect(await queue.complete(d.id, "w", { state: "succeeded", at: now })).toBe(true);
    });

    t.test("complete records the attempt given with it, even when the lease was lost", async () => {
      const { store } = t;
      const queue = store.queue.deliveries;
      const now = nextWindow();
      const { ws, deliveryIds } = await t.outbox(2, now);
      const claimed = await t.drain(new Set(deliveryIds), { owner: "w", now });
      const [a, b] = claimed as [ClaimedDelivery, ClaimedDelivery];
      const attempt = (deliveryId: string, status: number) => ({
        deliveryId,
        workspaceId: ws,
        at: now,
        status,
        durationMs: 3,
        responseExcerpt: "ok",
      });
      expect(
        await queue.complete(a.id, "w", { state: "succeeded", status: 200, attempt: attempt(a.id, 200) }),
      ).toBe(true);
      expect(
        await queue.complete(b.id, "lost", { state: "failed", status: 500, attempt: attempt(b.id, 500) }),
      ).toBe(false);
      expect(await store.deliveries.get(ws, a.id)).toMatchObject({ state: "succeeded", lastStatus: 200 });
      expect((await store.deliveries.get(ws, b.id))?.state).toBe("delivering");
      expect(await store.deliveries.listAttempts(ws, a.id)).toMatchObject([
        { deliveryId: a.id, status: 200, durationMs: 3, responseExcerpt: "ok", at: now },
      ]);
      expect(await store.deliveries.listAttempts(ws, b.id)).toMatchObject([
        { deliveryId: b.id, status: 500 },
      ]);
    });

    t.test("concurrent completions and attempts each get their own answer", async () => {
      const { store } = t;
      const queue = store.queue.deliveries;
      const now = nextWindow();
      const { ws, deliveryIds } = await t.outbox(12, now);
      const claimed = await t.drain(new Set(deliveryIds), { owner: "w", now });
      expect(claimed).toHaveLength(12);
      // Every third is completed by an owner that lost its lease; some are rescheduled; each row is
      // also completed a second time at once (only the first of the two can win).
      const answers = await Promise.all(
        claimed.flatMap((row, i) => [
          queue.complete(row.id, i % 3 === 0 ? "lost" : "w", {
            state: i % 2 === 0 ? "succeeded" : "pending",
            nextAttemptAt: now + 60_000,
            status: 200 + i,
            at: now,
            attempt: { deliveryId: row.id, workspaceId: ws, at: now, status: 200 + i, durationMs: i },
          }),
          queue.complete(row.id, "w", { state: "failed", at: now }),
          queue.recordAttempt({
            deliveryId: row.id,
            workspaceId: ws,
            at: now + 1,
            durationMs: 1,
            error: "x",
          }),
        ]),
      );
      for (const [i, row] of claimed.entries()) {
        const [first, second] = answers.slice(i * 3, i * 3 + 2);
        const stored = await store.deliveries.get(ws, row.id);
        if (i % 3 === 0) {
          expect([first, second]).toEqual([false, true]);
          expect(stored?.state).toBe("failed");
        } else {
          expect([first, second]).toEqual([true, false]);
          expect(stored).toMatchObject({ state: i % 2 === 0 ? "succeeded" : "pending", lastStatus: 200 + i });
        }
        const attempts = await store.deliveries.listAttempts(ws, row.id);
        expect(attempts.map((a) => a.durationMs).sort()).toEqual([1, i].sort());
      }
    });

    t.test("expired leases are swept back to pending", async () => {
      const { store } = t;
      const now = nextWindow();
      const { ws, deliveryIds } = await t.outbox(3, now);
      const ours = new Set(deliveryIds);
      const claimed = await t.drain(ours, { owner: "crashed", now, leaseMs: 1000 });
      expect(claimed).toHaveLength(3);
      // not expired yet: nothing of ours is swept
      await store.queue.deliveries.sweep(now + 999);
      expect((await store.deliveries.get(ws, claimed[0]!.id))?.state).toBe("delivering");
      const swept = await store.queue.deliveries.sweep(now + 1000);
      expect(swept).toBeGreaterThanOrEqual(3);
      for (const row of claimed) {
        const stored = await store.deliveries.get(ws, row.id);
        expect(stored?.state).toBe("pending");
        expect(stored?.leaseOwner).toBeUndefined();
      }
      expect(
        await store.queue.deliveries.complete(claimed[0]!.id, "crashed", { state: "succeeded", at: now }),
      ).toBe(false);
      const again = await t.drain(ours, { owner: "healthy", now: now + 1000, leaseMs: 1000 });
      expect(again).toHaveLength(3);
      expect(again.every((row) => row.leaseOwner === "healthy" && row.attempts === 2)).toBe(true);
      expect(await store.queue.deliveries.sweep(now + 1001)).toBe(0);
    });

    describe.skipIf(!t.options.handOff)("with hand-offs", () => {
      t.test("completeAndTakeNext hands a finished row's slot to its webhook's next due row", async () => {
        const queue = t.store.queue.deliveries;
        // Optional in the interface: a worker without it claims.
        if (!queue.completeAndTakeNext)
          throw new Error("the store has no queue.deliveries.completeAndTakeNext");
        const now = nextWindow();
        const { ws, emitter, deliveryIds, webhooks } = await t.outbox(6, now, 2);
        const ours = new Set(deliveryIds);
        const [a, b] = webhooks as [Webhook, Webhook];
        const limit = { leaseMs: 60_000, limit: 100, perWebhookLimit: 2 };
        const first = (await queue.claim({ owner: "w", now, ...limit })).filter((row) => ours.has(row.id));
        const ofA = first.filter((row) => row.webhookId === a.id);
        expect(ofA).toHaveLength(2);
        const [done, other] = ofA as [ClaimedDelivery, ClaimedDelivery];
        // Another worker cannot hand off a row it does not hold, nor take anything.
        expect(await queue.completeAndTakeNext(done.id, "x", { state: "succeeded", at: now }, 1000)).toEqual({
          completed: false,
        });
        const handed = await queue.completeAndTakeNext(
          done.id,
          "w",
          { state: "succeeded", status: 200, at: now + 1 },
          5000,
        );
        expect(handed.completed).toBe(true);
        const next = handed.next as ClaimedDelivery;
        expect(next).toMatchObject({ webhookId: a.id, state: "delivering", leaseOwner: "w", attempts: 1 });
        expect(next.leaseExpiresAt).toBe(now + 5001);
        expect(next.event.id).toBe(next.eventId);
        expect(next.webhook.id).toBe(a.id);
        expect(ours.has(next.id) && ![done.id, other.id].includes(next.id)).toBe(true);
        expect(await t.store.deliveries.get(ws, done.id)).toMatchObject({
          state: "succeeded",
          lastStatus: 200,
        });
        // The webhook's rows in flight stay at the limit: a claim gets none of them.
        const again = (await queue.claim({ owner: "y", now: now + 2, ...limit })).filter((row) =>
          ours.has(row.id),
        );
        expect(again.filter((row) => row.webhookId === a.id)).toHaveLength(0);
        // A row not yet due is not handed over; with nothing due there is no next row.
        await t.emit(ws, emitter.id, events(1, 0), now + 10_000);
        const rest = [next, other];
        for (let i = 0; i < 10 && rest.length > 0; i++) {
          const row = rest.shift() as ClaimedDelivery;
          const out = await queue.completeAndTakeNext(row.id, "w", { state: "succeeded", at: now + 3 }, 5000);
          expect(out.completed).toBe(true);
          if (out.next) {
            expect(out.next.webhookId).toBe(a.id);
            expect(out.next.nextAttemptAt).toBeLessThanOrEqual(now + 3);
            rest.push(out.next);
          }
        }
        expect(rest).toHaveLength(0);
        // Every due row of webhook a was delivered by hand-offs; webhook b's were never touched.
        const rowsOf = async (hook: Webhook) =>
          (await t.store.deliveries.list(ws, { webhookId: hook.id, limit: 100 })).items.filter((d) =>
            ours.has(d.id),
          );
        expect((await rowsOf(a)).every((d) => d.state === "succeeded")).toBe(true);
        expect((await rowsOf(b)).filter((d) => d.state === "delivering")).toHaveLength(2);
        expect((await rowsOf(b)).filter((d) => d.state === "pending")).toHaveLength(4);
      });
    });

    t.test("perWebhookLimit bounds the rows of one webhook in flight", async () => {
      const now = nextWindow();
      const { deliveryIds, webhooks } = await t.outbox(10, now, 2);
      const ours = new Set(deliveryIds);
      const [a, b] = webhooks as [Webhook, Webhook];
      const claim = (owner: string, at = now) =>
        t.store.queue.deliveries.claim({ owner, now: at, leaseMs: 60_000, limit: 100, perWebhookLimit: 3 });
      const count = (rows: ClaimedDelivery[], hook: Webhook) =>
        rows.filter((row) => ours.has(row.id) && row.webhookId === hook.id).length;
      const first = await claim("w1");
      expect(count(first, a)).toBe(3);
      expect(count(first, b)).toBe(3);
      const second = await claim("w2");
      expect(count(second, a) + count(second, b)).toBe(0);
      const done = first.find((row) => row.webhookId === a.id)!;
      expect(await t.store.queue.deliveries.complete(done.id, "w1", { state: "succeeded", at: now })).toBe(
        true,
      );
      const third = await claim("w3");
      expect(count(third, a)).toBe(1);
      expect(count(third, b)).toBe(0);
      // concurrent claimers together respect the limit too
      const rows = (await Promise.all([claim("x"), claim("y"), claim("z")])).flat();
      expect(count(rows, a) + count(rows, b)).toBe(0);
      // expired leases do not count
      const afterExpiry = await claim("w4", now + 60_000);
      expect(count(afterExpiry, a)).toBe(3);
    });

    for (const perWebhookLimit of [undefined, 4]) {
      const how = perWebhookLimit ? "with perWebhookLimit" : "without perWebhookLimit";
      t.test(`excludeWebhookIds (${how}) leaves those webhooks' rows due and untouched`, async () => {
        const { store } = t;
        const now = nextWindow();
        const { ws, deliveryIds, webhooks } = await t.outbox(4, now, 2);
        const ours = new Set(deliveryIds);
        const [a, b] = webhooks as [Webhook, Webhook];
        const options = {
          owner: "w",
          now,
          excludeWebhookIds: [a.id, "wh_other"],
          ...(perWebhookLimit ? { perWebhookLimit } : {}),
        };
        const rows = await t.drain(ours, options);
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((row) => row.webhookId === b.id)).toBe(true);
        for (const id of deliveryIds) {
          const row = await store.deliveries.get(ws, id);
          if (row?.webhookId === a.id) expect([row.state, row.attempts]).toEqual(["pending", 0]);
        }
        // Not excluded any more: they are claimed as usual.
        const later = await t.drain(ours, { ...options, excludeWebhookIds: [] });
        expect(later.length).toBeGreaterThan(0);
        expect(later.every((row) => row.webhookId === a.id)).toBe(true);
      });
      t.test(`a claim (${how}) pauses, instead of leasing, a pending row of a disabled webhook`, async () => {
        const { store } = t;
        const now = nextWindow();
        const { ws, webhooks, deliveryIds } = await t.outbox(2, now);
        const ours = new Set(deliveryIds);
        // A worker dies holding both rows; the webhook is disabled meanwhile; the sweep returns the
        // rows to pending. The claim is the guard that keeps them from being sent.
        expect(await t.drain(ours, { owner: "dead", now, leaseMs: 1000 })).toHaveLength(2);
        await store.webhooks.update(ws, webhooks[0]!.id, { active: false });
        expect(await store.queue.deliveries.sweep(now + 1000)).toBeGreaterThanOrEqual(2);
        const options = { owner: "w", now: now + 1000, ...(perWebhookLimit ? { perWebhookLimit } : {}) };
        expect(await t.drain(ours, options)).toEqual([]);
        for (const id of deliveryIds) expect((await store.deliveries.get(ws, id))?.state).toBe("paused");
      });
    }
  });

  describe("queue.timers", () => {
    t.test("claim returns due timers once, leased", async () => {
      const { store } = t;
      const ws = await t.workspace();
      const at = nextWindow();
      const due = unique("dc");
      const later = unique("dc");
      await store.timers.upsert({ componentId: due, workspaceId: ws, nextAt: at });
      await store.timers.upsert({ componentId: later, workspaceId: ws, nextAt: at + 10_000 });
      const mine = (timers: { componentId: string }[]) =>
        timers.map((timer) => timer.componentId).filter((id) => id === due || id === later);
      const claim = (now: number, owner: string) =>
        store.queue.timers.claim({ now, owner, leaseMs: 1000, limit: 100 });
      const first = await claim(at + 1, "a");
      expect(mine(first)).toEqual([due]);
      const claimed = first.find((timer) => timer.componentId === due)!;
      expect(claimed).toMatchObject({ nextAt: at, leaseOwner: "a", leaseExpiresAt: at + 1001 });
      expect(mine(await claim(at + 2, "b"))).toEqual([]);
      // an expired lease can be claimed again
      expect(mine(await claim(at + 1001, "b"))).toEqual([due]);
      // the first owner lost it
      expect(await store.queue.timers.advance(due, "a", at, at + 60_000)).toBe(false);
      expect(await store.queue.timers.advance(due, "b", at, at + 60_000)).toBe(true);
      expect(mine(await claim(at + 2000, "c"))).toEqual([]);
    });

    t.test("advance is a compare-and-set on owner and fired time", async () => {
      const { store } = t;
      const timers = store.queue.timers;
      const ws = await t.workspace();
      const at = nextWindow();
      const id = unique("dc");
      await store.timers.upsert({ componentId: id, workspaceId: ws, nextAt: at });
      const claimed = await timers.claim({ now: at, owner: "owner", leaseMs: 60_000, limit: 1000 });
      expect(claimed.map((timer) => timer.componentId)).toContain(id);
      expect(await timers.advance(id, "intruder", at, at + 100)).toBe(false);
      expect(await timers.advance(id, "owner", at - 1, at + 100)).toBe(false);
      expect(await timers.advance(id, "owner", at, at + 100)).toBe(true);
      expect(await timers.advance(id, "owner", at, at + 200)).toBe(false);
      expect((await store.timers.get(ws, id))?.nextAt).toBe(at + 100);
      // a reschedule (upsert) while claimed makes the claim stale
      const again = await timers.claim({ now: at + 100, owner: "owner", leaseMs: 60_000, limit: 1000 });
      expect(again.map((timer) => timer.componentId)).toContain(id);
      await store.timers.upsert({ componentId: id, workspaceId: ws, nextAt: at + 500 });
      expect(await timers.advance(id, "owner", at + 100, at + 300)).toBe(false);
      expect(await timers.advance("dc_missing", "owner", at, at)).toBe(false);
    });

    t.test("each tick is claimed by exactly one concurrent caller", async () => {
      const { store } = t;
      const ws = await t.workspace();
      const at = nextWindow();
      const ids = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const id = unique("dc");
        ids.add(id);
        await store.timers.upsert({ componentId: id, workspaceId: ws, nextAt: at + i });
      }
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.queue.timers.claim({ now: at + 100, owner: `node-${i}`, leaseMs: 60_000, limit: 100 }),
        ),
      );
      const claimed = results.flat().filter((timer) => ids.has(timer.componentId));
      expect(claimed).toHaveLength(30);
      expect(new Set(claimed.map((timer) => timer.componentId)).size).toBe(30);
      const outcomes = await Promise.all(
        claimed.map((timer) =>
          store.queue.timers.advance(timer.componentId, timer.leaseOwner!, timer.nextAt, at + 1e6),
        ),
      );
      expect(outcomes.every(Boolean)).toBe(true);
    });
  });
}
