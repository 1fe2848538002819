/** Conformance: change notifications (for adapters that declare `notifications`). */
import { describe, expect } from "vitest";
import type { Store, StoreNotice } from "../types/index.js";
import { events, nextWindow, type SuiteContext } from "./context.js";

/** Waits (up to 5 s) until `predicate` holds: notices may arrive after the write resolves. */
export async function eventually(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("the expected notice did not arrive");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** How many "deliveries are due" notices there are. */
export const dueNotices = (notices: StoreNotice[]): number =>
  notices.filter((n) => n.kind === "deliveries").length;

/** The seqs the events notices announce for one emitter. */
export const seqsOf = (notices: StoreNotice[], emitterId: string): number[] =>
  notices.flatMap((n) => (n.kind === "events" && n.emitterId === emitterId ? n.seqs : []));

/**
 * Subscribes to `store`'s notices and waits until the subscription is connected (a listener may be
 * connected only some time after `subscribe` returns), then empties the list.
 */
export async function listen(t: SuiteContext, store = t.store, probeStore = t.store) {
  const notifications = store.notifications;
  if (!notifications) throw new Error("the adapter declares notifications but the store has none");
  const notices: StoreNotice[] = [];
  const unsubscribe = notifications.subscribe((notice) => notices.push(notice));
  const ws = await probeStore.workspaces.create({ name: "settle" });
  const probe = await probeStore.deployedComponents.create({
    workspaceId: ws.id,
    savedComponentId: "sc_probe",
    name: "probe",
    slug: `probe-${Math.random().toString(36).slice(2)}`,
    props: {},
    active: true,
  });
  for (let i = 0; i < 50 && seqsOf(notices, probe.id).length === 0; i++) {
    await probeStore.emits.commit({ workspaceId: ws.id, componentId: probe.id, events: events(1, 1) });
    for (let wait = 0; wait < 10 && seqsOf(notices, probe.id).length === 0; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  await eventually(() => seqsOf(notices, probe.id).length > 0);
  notices.length = 0;
  return { notices, unsubscribe };
}

/**
 * The store the notification tests listen through: the store under test, or (`notifications:
 * "others"`) a second instance over the same data, which the caller closes.
 */
async function listenerOf(t: SuiteContext): Promise<Store> {
  if (t.options.notifications !== "others") return t.store;
  const open = t.options.multiProcess;
  if (!open)
    throw new Error('notifications: "others" needs multiProcess, to listen through another instance');
  return open();
}

/** Registers the notification tests (when the adapter declares `notifications`). */
export function notificationsSuite(t: SuiteContext): void {
  describe.skipIf(!t.options.notifications)("notifications", () => {
    /** Whether the notices the tests see are the listener's own (`local`). */
    const local = t.options.notifications !== "others";
    /**
     * A test with a settled subscription, unsubscribed afterwards: `fn` gets the notices and the
     * store they are heard through.
     */
    const withNotices = (
      title: string,
      fn: (notices: StoreNotice[], listener: Store) => Promise<void>,
    ): void =>
      t.test(title, async () => {
        const listener = await listenerOf(t);
        const { notices, unsubscribe } = await listen(t, listener);
        try {
          await fn(notices, listener);
        } finally {
          unsubscribe();
          if (listener !== t.store) await listener.close();
        }
      });

    withNotices("the outbox announces its events and, with them, due deliveries", async (notices) => {
      const now = nextWindow();
      const { ws, emitter, appended } = await t.outbox(3, now, 2);
      await eventually(() => seqsOf(notices, emitter.id).length === 3 && dueNotices(notices) > 0);
      expect(seqsOf(notices, emitter.id)).toEqual(appended.map((e) => e.seq));
      const notice = notices.find((n) => n.kind === "events" && n.emitterId === emitter.id);
      expect(notice).toMatchObject({ kind: "events", local, workspaceId: ws, emitterId: emitter.id });
      expect(notices.find((n) => n.kind === "deliveries")).toEqual({ kind: "deliveries", local });

      // Events without subscribers (or only paused deliveries): announced, but nothing became due.
      notices.length = 0;
      const quiet = await t.component(ws);
      const disabled = await t.webhook(ws, false);
      await t.store.subscriptions.create({ workspaceId: ws, emitterId: quiet.id, listenerId: disabled.id });
      const [event] = await t.emit(ws, quiet.id, events(1, now));
      await eventually(() => seqsOf(notices, quiet.id).length === 1);
      expect(seqsOf(notices, quiet.id)).toEqual([event!.seq]);
      expect(dueNotices(notices)).toBe(0);

      // Enabling the webhook makes its paused delivery due: announced.
      await t.store.webhooks.update(ws, disabled.id, { active: true });
      await eventually(() => dueNotices(notices) > 0);
    });

    withNotices("log appends are announced with their seqs", async (notices) => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const lines = await t.store.logs.append(ws, dc.id, [
        { level: "info", message: "one", ts: 1 },
        { level: "warn", message: "two", ts: 2 },
      ]);
      const logSeqs = () =>
        notices.flatMap((n) => (n.kind === "logs" && n.componentId === dc.id ? n.seqs : []));
      await eventually(() => logSeqs().length >= 2);
      expect(logSeqs()).toEqual(lines.map((line) => line.seq));
      expect(notices.find((n) => n.kind === "logs")).toMatchObject({
        local,
        workspaceId: ws,
        componentId: dc.id,
      });
    });

    withNotices("the log lines of a commitRun are announced with their seqs", async (notices) => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const { logs } = await t.store.emits.commitRun({
        workspaceId: ws,
        componentId: dc.id,
        events: events(1, 1),
        logs: [
          { level: "info", message: "one", ts: 1 },
          { level: "warn", message: "two", ts: 2 },
        ],
      });
      const logSeqs = () =>
        notices.flatMap((n) => (n.kind === "logs" && n.componentId === dc.id ? n.seqs : []));
      await eventually(() => logSeqs().length >= 2);
      expect(logSeqs()).toEqual(logs.map((line) => line.seq));
      expect(notices.find((n) => n.kind === "logs" && n.componentId === dc.id)).toMatchObject({
        local,
        workspaceId: ws,
      });
    });

    withNotices("retry, recover, a release due now and a sweep announce due deliveries", async (notices) => {
      const { store } = t;
      const now = nextWindow();
      const { ws, webhooks, deliveryIds } = await t.outbox(3, now);
      const [a, b, c] = deliveryIds as [string, string, string];
      const ours = new Set(deliveryIds);
      const rows = await t.drain(ours, { owner: "n", now, leaseMs: 1000 });
      expect(rows).toHaveLength(3);
      await eventually(() => dueNotices(notices) > 0); // the outbox's own notice
      notices.length = 0;

      expect(await store.queue.deliveries.complete(a, "n", { state: "failed", at: now })).toBe(true);
      expect(await store.deliveries.retry(ws, a, now)).toBe(true);
      await eventually(() => dueNotices(notices) > 0);

      notices.length = 0;
      expect(
        await store.queue.deliveries.complete(b, "n", { state: "pending", nextAttemptAt: now, at: now }),
      ).toBe(true);
      await eventually(() => dueNotices(notices) > 0);

      notices.length = 0;
      expect(await store.queue.deliveries.sweep(now + 1000)).toBeGreaterThanOrEqual(1); // c's lease expired
      await eventually(() => dueNotices(notices) > 0);

      notices.length = 0;
      const again = await t.drain(ours, { owner: "m", now: now + 1000, leaseMs: 1000 });
      expect(again.map((row) => row.id).sort()).toEqual([a, b, c].sort());
      for (const row of again) {
        await store.queue.deliveries.complete(row.id, "m", { state: "failed", at: now + 1000 });
      }
      expect(await store.deliveries.recover(ws, webhooks[0]!.id, { since: now }, now + 2000)).toBe(3);
      await eventually(() => dueNotices(notices) > 0);
      expect(notices.every((n) => n.local === local)).toBe(true);
    });

    withNotices("an unsubscribed listener gets nothing more", async (notices, listener) => {
      const late: StoreNotice[] = [];
      const unsubscribe = listener.notifications!.subscribe((notice) => late.push(notice));
      unsubscribe();
      unsubscribe(); // twice is harmless
      const ws = await t.workspace();
      const dc = await t.component(ws);
      await t.emit(ws, dc.id, events(1, 1));
      await eventually(() => seqsOf(notices, dc.id).length === 1); // the other subscriber got it
      expect(late).toEqual([]);
    });
  });
}
