/** Conformance: replay jobs (`replays`): creation, progress, the compare-and-set of each batch. */
import { describe, expect } from "vitest";
import { nextWindow, type SuiteContext } from "./context.js";

/** Registers the replay job tests. */
export function replayJobsSuite(t: SuiteContext): void {
  describe("replay jobs", () => {
    t.test("a replay records each batch with its deliveries, and lists newest first", async () => {
      const now = nextWindow();
      const { ws, emitter, appended } = await t.outbox(4, now);
      const late = await t.webhook(ws);
      const sub = await t.store.subscriptions.create({
        workspaceId: ws,
        emitterId: emitter.id,
        listenerId: late.id,
      });
      const input = {
        workspaceId: ws,
        subscriptionId: sub.id,
        webhookId: late.id,
        emitterId: emitter.id,
        since: now - 10,
        filter: { "event.n": { $gte: 0 } },
      };
      const job = await t.store.replays.create(input, now);
      expect(job).toEqual({
        id: job.id,
        ...input,
        status: "running",
        scanned: 0,
        enqueued: 0,
        cursor: null,
        createdAt: now,
        updatedAt: now,
      });
      expect(job.id).toMatch(/^rpl_/);
      const cursorOf = (i: number) => String(appended[i]!.seq);
      const first = await t.store.replays.advance(
        ws,
        job.id,
        { from: null, cursor: cursorOf(1), scanned: 2, events: appended.slice(0, 2), status: "running" },
        now + 1,
      );
      expect(first?.replay).toMatchObject({
        status: "running",
        scanned: 2,
        enqueued: 2,
        cursor: cursorOf(1),
      });
      expect(first?.deliveries.map((d) => [d.eventId, d.webhookId, d.state])).toEqual(
        appended.slice(0, 2).map((e) => [e.id, late.id, "pending"]),
      );
      // A second caller from the same cursor loses: nothing is sent twice.
      const stale = {
        from: null,
        cursor: cursorOf(1),
        scanned: 2,
        events: appended.slice(0, 2),
        status: "running" as const,
      };
      expect(await t.store.replays.advance(ws, job.id, stale, now + 2)).toBeUndefined();
      const last = await t.store.replays.advance(
        ws,
        job.id,
        { from: cursorOf(1), cursor: cursorOf(3), scanned: 2, events: appended.slice(2), status: "done" },
        now + 3,
      );
      expect(last?.replay).toMatchObject({ status: "done", scanned: 4, enqueued: 4, updatedAt: now + 3 });
      expect(await t.store.replays.get(ws, job.id)).toEqual(last?.replay);
      const toLate = await t.store.deliveries.list(ws, { webhookId: late.id, limit: 100 });
      expect(toLate.items.map((d) => d.eventId).sort()).toEqual(appended.map((e) => e.id).sort());
      // Done: no further step applies.
      const after = { ...stale, from: cursorOf(3) };
      expect(await t.store.replays.advance(ws, job.id, after, now + 4)).toBeUndefined();
      const failed = await t.store.replays.create({ ...input, since: undefined }, now + 5);
      expect(failed).not.toHaveProperty("since");
      const broken = await t.store.replays.advance(
        ws,
        failed.id,
        { from: null, cursor: null, scanned: 0, events: [], status: "failed", error: "webhook deleted" },
        now + 6,
      );
      expect(broken?.replay).toMatchObject({ status: "failed", error: "webhook deleted", enqueued: 0 });
      expect((await t.store.replays.list(ws, sub.id)).map((r) => r.id)).toEqual([failed.id, job.id]);
      // Another workspace sees none of it.
      const other = await t.workspace();
      expect(await t.store.replays.get(other, job.id)).toBeUndefined();
      expect(await t.store.replays.list(other, sub.id)).toEqual([]);
    });
  });
}
