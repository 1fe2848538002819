/**
 * Conformance: two store instances over the same data, as two processes (nodes) open them (for
 * adapters that declare `multiProcess`).
 */
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { Store } from "../types/index.js";
import { events, nextWindow, type SuiteContext } from "./context.js";
import { RACED_IDS, raceSameIds } from "./dedupe.js";
import { eventually, listen, seqsOf } from "./notifications.js";

/** Registers the multi-process tests. */
export function multiProcessSuite(t: SuiteContext): void {
  const open = t.options.multiProcess;
  describe.skipIf(!open)("multiProcess", () => {
    let other: Store;
    beforeAll(async () => {
      other = await open!();
    }, t.options.timeout);
    afterAll(async () => {
      await other?.close();
    });

    t.test("a component db written by one instance is a new version for the other", async () => {
      const dc = `dc_kv_${nextWindow()}`;
      const { version } = await t.store.kv.snapshot(dc);
      expect(await other.kv.write(dc, [["cursor", 1]])).toBe(version + 1);
      expect(await t.store.kv.snapshot(dc, version)).toEqual({
        version: version + 1,
        entries: { cursor: 1 },
      });
      await Promise.all([t.store.kv.write(dc, [["a", 1]]), other.kv.write(dc, [["b", 2]])]);
      expect(await other.kv.snapshot(dc, version + 1)).toEqual({
        version: version + 3,
        entries: { a: 1, b: 2, cursor: 1 },
      });
    });

    t.test("rows written by one instance are read, claimed and completed by the other", async () => {
      const now = nextWindow();
      const { ws, emitter, deliveryIds } = await t.outbox(20, now, 2);
      expect((await other.events.list(ws, emitter.id, { limit: 100 })).items).toHaveLength(20);
      const ours = new Set(deliveryIds);
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? other : t.store).queue.deliveries.claim({
            owner: `n${i}`,
            now,
            leaseMs: 60_000,
            limit: 9,
          }),
        ),
      );
      const claimed = claims.flat().filter((row) => ours.has(row.id));
      expect(new Set(claimed.map((row) => row.id)).size).toBe(claimed.length);
      for (const row of claimed) {
        const owner = row.leaseOwner!;
        // Whichever instance completes it, the lease holder's completion counts.
        const store = Number(owner.slice(1)) % 2 ? t.store : other;
        expect(await store.queue.deliveries.complete(row.id, owner, { state: "succeeded", at: now })).toBe(
          true,
        );
      }
      const done = await other.deliveries.list(ws, { state: "succeeded", limit: 100 });
      expect(done.items.length).toBe(claimed.length);
    });

    t.test(
      "a key revoked by one instance is refused by the other at once; idempotency keys are shared",
      async () => {
        const ws = await t.workspace();
        const hash = `mp-${Math.random().toString(36).slice(2)}`;
        const key = await t.store.apiKeys.create({ workspaceId: ws, name: "k", hash, hint: "k" });
        expect((await other.apiKeys.findByHash(hash))?.id).toBe(key.id);
        await t.store.apiKeys.revoke(ws, key.id);
        expect(await other.apiKeys.findByHash(hash)).toBeUndefined();
        const claim = { workspaceId: ws, key: hash, fingerprint: "fp", lockMs: 60_000, ttlMs: 60_000 };
        expect((await t.store.idempotency.claim(claim)).claimed).toBe(true);
        expect((await other.idempotency.claim(claim)).claimed).toBe(false);
      },
    );

    for (const strategy of ["unique", "greatest", "last"] as const) {
      t.test(`${strategy}: both instances committing the same ids at once keep each id once`, async () => {
        const ws = await t.workspace();
        const dc = await t.component(ws);
        const hook = await t.webhook(ws);
        await t.store.subscriptions.create({ workspaceId: ws, emitterId: dc.id, listenerId: hook.id });
        expect(await raceSameIds([t.store, other], ws, dc.id, strategy, 16)).toEqual(RACED_IDS);
        const deliveries = await other.deliveries.list(ws, { webhookId: hook.id, limit: 100 });
        expect(deliveries.items).toHaveLength(RACED_IDS.length);
      });
    }

    t.test("an emit sees the subscriptions and webhooks the other instance changed", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const first = await t.webhook(ws);
      await other.subscriptions.create({ workspaceId: ws, emitterId: dc.id, listenerId: first.id });
      const targetsOf = async (round: number) => {
        const [event] = await t.emit(ws, dc.id, events(1, round));
        return (await other.deliveries.list(ws, { eventId: event!.id, limit: 10 })).items
          .map((d) => `${d.webhookId}:${d.state}`)
          .sort();
      };
      expect(await targetsOf(1)).toEqual([`${first.id}:pending`]);
      // The other instance subscribes a second webhook, disables the first, then deletes the second's
      // subscription: every emit of this instance right after sees each change.
      const second = await other.webhooks.create({
        workspaceId: ws,
        url: "https://example.com/second",
        active: true,
        secrets: [{ value: "s", createdAt: 1 }],
      });
      await other.subscriptions.create({ workspaceId: ws, emitterId: dc.id, listenerId: second.id });
      expect(await targetsOf(2)).toEqual([`${first.id}:pending`, `${second.id}:pending`].sort());
      await other.webhooks.update(ws, first.id, { active: false });
      expect(await targetsOf(3)).toEqual([`${first.id}:paused`, `${second.id}:pending`].sort());
      await other.subscriptions.delete(ws, { emitterId: dc.id, listenerId: second.id });
      expect(await targetsOf(4)).toEqual([`${first.id}:paused`]);
    });

    describe.skipIf(!t.options.notifications)("with notifications", () => {
      t.test("notices of one instance reach the other, not local", async () => {
        const { notices, unsubscribe } = await listen(t, other, t.store);
        try {
          const ws = await t.workspace();
          const dc = await t.component(ws);
          const [event] = await t.emit(ws, dc.id, events(1, 1));
          await eventually(() => seqsOf(notices, dc.id).length === 1);
          expect(notices.find((n) => n.kind === "events" && n.emitterId === dc.id)).toMatchObject({
            local: false,
            seqs: [event!.seq],
          });
        } finally {
          unsubscribe();
        }
      });
    });
  });
}
