/** Conformance: workflow requests (`$.send.http`) in the delivery queue. */
import { describe, expect } from "vitest";
import type { DeliveryRequest, EnqueueRequestInput } from "../types/index.js";
import { nextWindow, type SuiteContext, unique } from "./context.js";

const REQUEST: DeliveryRequest = {
  url: "https://example.com/hook?x=1",
  method: "PUT",
  headers: { "content-type": "text/plain", "x-a": "b\u0000c" },
  body: "hello \ud800 \u0000 world",
  secrets: ["sealed-1"],
};

/** Registers the workflow request tests. */
export function requestsSuite(t: SuiteContext): void {
  const input = (workspaceId: string, now: number, workflowId = unique("p")): EnqueueRequestInput => ({
    workspaceId,
    workflowId,
    executionId: unique("exe"),
    stepName: "notify",
    request: REQUEST,
    now,
  });

  describe("queue.deliveries.enqueue (workflow requests)", () => {
    t.test("enqueues a due row that claims return with its target, then complete and retry", async () => {
      const { store } = t;
      const now = nextWindow();
      const ws = await t.workspace();
      const given = input(ws, now);
      const row = await store.queue.deliveries.enqueue(given);
      expect(row).toMatchObject({
        workspaceId: ws,
        webhookId: given.workflowId,
        emitterId: given.workflowId,
        eventId: given.executionId,
        channel: "notify",
        state: "pending",
        attempts: 0,
        nextAttemptAt: now,
        request: REQUEST,
      });
      expect(row.id).toMatch(/^dlv_/);
      expect(await store.deliveries.get(ws, row.id)).toEqual(row);
      const claimed = await t.drain(new Set([row.id]), { owner: "w", now });
      expect(claimed).toHaveLength(1);
      const [leased] = claimed;
      expect(leased).toMatchObject({ state: "delivering", attempts: 1, leaseOwner: "w", request: REQUEST });
      expect(leased?.webhook).toMatchObject({
        id: given.workflowId,
        url: REQUEST.url,
        active: true,
        secrets: [{ value: "sealed-1" }],
      });
      expect(leased?.event).toMatchObject({ id: given.executionId, workspaceId: ws });
      // Retried on a schedule like any delivery, never paused (it has no webhook).
      expect(
        await store.queue.deliveries.complete(row.id, "w", {
          state: "pending",
          nextAttemptAt: now + 100,
          status: 503,
          error: "http_503",
          at: now,
        }),
      ).toBe(true);
      expect(await store.deliveries.get(ws, row.id)).toMatchObject({ state: "pending", lastStatus: 503 });
      expect(await t.drain(new Set([row.id]), { owner: "w", now: now + 50 })).toEqual([]);
      const again = await t.drain(new Set([row.id]), { owner: "w2", now: now + 100 });
      expect(again.map((r) => r.attempts)).toEqual([2]);
      expect(await store.queue.deliveries.complete(row.id, "w2", { state: "failed", at: now + 101 })).toBe(
        true,
      );
      expect(await store.deliveries.retry(ws, row.id, now + 200)).toBe(true);
      expect(await store.deliveries.get(ws, row.id)).toMatchObject({
        state: "pending",
        nextAttemptAt: now + 200,
      });
      const listed = await store.deliveries.list(ws, { webhookId: given.workflowId });
      expect(listed.items.map((r) => r.id)).toEqual([row.id]);
    });

    t.test("claims bounded per webhook bound requests per workflow", async () => {
      const { store } = t;
      const now = nextWindow();
      const ws = await t.workspace();
      const workflowId = unique("p");
      const ids = new Set<string>();
      for (let i = 0; i < 3; i++)
        ids.add((await store.queue.deliveries.enqueue(input(ws, now, workflowId))).id);
      const first = await t.drain(ids, { owner: "w", now, perWebhookLimit: 2 });
      expect(first).toHaveLength(2);
      await store.queue.deliveries.complete(first[0]!.id, "w", { state: "succeeded", at: now });
      const rest = await t.drain(ids, { owner: "w", now, perWebhookLimit: 2 });
      expect(rest).toHaveLength(1);
    });

    t.test("a swept request returns to pending", async () => {
      const { store } = t;
      const now = nextWindow();
      const ws = await t.workspace();
      const row = await store.queue.deliveries.enqueue(input(ws, now));
      await t.drain(new Set([row.id]), { owner: "dead", now, leaseMs: 10 });
      expect(await store.queue.deliveries.sweep(now + 10)).toBeGreaterThanOrEqual(1);
      expect((await store.deliveries.get(ws, row.id))?.state).toBe("pending");
    });

    describe.skipIf(!t.options.workflows)("with workflows", () => {
      t.test(
        "deleting a workflow fails its unfinished requests (workflow_deleted); others' stay",
        async () => {
          const { store } = t;
          const now = nextWindow();
          const ws = await t.workspace();
          const make = () =>
            store.workflows!.create({
              workspaceId: ws,
              name: unique("wf"),
              trigger: { type: "manual" },
              steps: [{ name: "a" }],
              active: true,
            });
          const [gone, kept] = [await make(), await make()];
          const done = await store.queue.deliveries.enqueue(input(ws, now, gone.id));
          await t.drain(new Set([done.id]), { owner: "w", now });
          await store.queue.deliveries.complete(done.id, "w", { state: "succeeded", status: 200, at: now });
          const open = await store.queue.deliveries.enqueue(input(ws, now, gone.id));
          const other = await store.queue.deliveries.enqueue(input(ws, now, kept.id));
          expect(await store.workflows!.delete(ws, gone.id)).toBe(true);
          expect(await store.deliveries.get(ws, open.id)).toMatchObject({
            state: "failed",
            lastError: "workflow_deleted",
          });
          expect((await store.deliveries.get(ws, done.id))?.state).toBe("succeeded");
          expect((await store.deliveries.get(ws, other.id))?.state).toBe("pending");
        },
      );
    });
  });
}
