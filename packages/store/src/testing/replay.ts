/** Conformance: replayed deliveries (`deliveries.enqueue`) and delivery metrics from attempts. */
import { describe, expect } from "vitest";
import { nextWindow, type SuiteContext } from "./context.js";

/** Registers the replay and metrics tests. */
export function replaySuite(t: SuiteContext): void {
  describe("replay and metrics", () => {
    t.test("enqueue makes one new delivery per event, claimable, paused for a disabled webhook", async () => {
      const now = nextWindow();
      const { ws, appended, webhooks } = await t.outbox(3, now);
      const late = await t.webhook(ws);
      const other = await t.workspace();
      const made = await t.store.deliveries.enqueue(ws, late.id, appended, now + 1);
      expect(made.map((d) => d.eventId)).toEqual(appended.map((e) => e.id));
      expect(made.every((d) => d.state === "pending" && d.webhookId === late.id && d.attempts === 0)).toBe(
        true,
      );
      const claimed = await t.drain(new Set(made.map((d) => d.id)), { owner: "replayer", now: now + 1 });
      expect(claimed.map((d) => d.event.id).sort()).toEqual(appended.map((e) => e.id).sort());
      // Not another workspace's webhook, nor another workspace's events.
      expect(await t.store.deliveries.enqueue(other, late.id, appended, now)).toEqual([]);
      const stranger = await t.webhook(other);
      expect(await t.store.deliveries.enqueue(other, stranger.id, appended, now)).toEqual([]);
      // A disabled webhook's replayed deliveries wait paused.
      await t.store.webhooks.update(ws, webhooks[0]!.id, { active: false });
      const paused = await t.store.deliveries.enqueue(ws, webhooks[0]!.id, appended.slice(0, 1), now + 2);
      expect(paused.map((d) => d.state)).toEqual(["paused"]);
      expect((await t.store.deliveries.get(ws, paused[0]!.id))?.state).toBe("paused");
    });

    t.test(
      "metrics count attempts by outcome and status class, with nearest-rank latency percentiles",
      async () => {
        const now = nextWindow();
        const { ws, webhooks, deliveryIds } = await t.outbox(10, now);
        const hook = webhooks[0]!;
        const record = (i: number, status: number | undefined, durationMs: number, at = now + 10) =>
          t.store.queue.deliveries.recordAttempt({
            deliveryId: deliveryIds[i]!,
            workspaceId: ws,
            at,
            durationMs,
            ...(status === undefined ? { error: "timeout" } : { status }),
          });
        const statuses = [200, 200, 201, 204, 302, 404, 410, 500, 503, undefined];
        for (let i = 0; i < 10; i++) await record(i, statuses[i], (i + 1) * 10);
        await record(0, 200, 5, now - 1); // before the window
        await record(1, 500, 5, now + 1_000); // after it
        const metrics = await t.store.deliveries.metrics(ws, hook.id, { since: now, until: now + 1_000 });
        expect(metrics).toEqual({
          attempts: 10,
          succeeded: 4,
          failed: 6,
          statusClasses: { "1xx": 0, "2xx": 4, "3xx": 1, "4xx": 2, "5xx": 2, error: 1 },
          latencyMs: { p50: 50, p95: 100, p99: 100 },
        });
        expect((await t.store.deliveries.metrics(ws, hook.id, { since: now - 1 })).attempts).toBe(12);
        const empty = await t.store.deliveries.metrics(ws, hook.id, { since: now + 5_000 });
        expect(empty).toMatchObject({ attempts: 0, latencyMs: { p50: null, p95: null, p99: null } });
        expect((await t.store.deliveries.metrics(await t.workspace(), hook.id, { since: 0 })).attempts).toBe(
          0,
        );
      },
    );
  });
}
