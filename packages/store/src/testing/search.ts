/** Conformance: event search (filters and time windows) and subscription filters in the outbox. */
import { filterDocument, matchesFilter, parseEventFilter } from "@hookline/core";
import { describe, expect } from "vitest";
import type { EventInput, StoredEvent } from "../types/index.js";
import type { SuiteContext } from "./context.js";

/** Varied bodies: numbers, strings, arrays, nested objects, nulls, missing keys, odd text. */
const BODIES: unknown[] = [
  { type: "order.created", total: 120, tags: ["vip", "eu"], customer: { name: "Ada", email: null } },
  { type: "order.created", total: 80, tags: ["eu"], customer: { name: "Bob" } },
  { type: "order.paid", total: 120.5, tags: [], items: [{ sku: "A" }, { sku: "B" }] },
  { type: "order.paid", total: "120", note: "paid in full" },
  { type: "refund", total: -5, note: "a\u0000b", customer: { name: "\ud800" } },
  { type: "order.created", total: 1e21, tags: ["vip"], items: [{ sku: "B" }] },
  "just a string",
  [1, 2, 3],
  null,
  { type: "Émile", total: 0, note: "🎉 party" },
];

/** Filters with every operator; each is checked against `matchesFilter` on the same events. */
const FILTERS: Record<string, unknown>[] = [
  { "event.type": "order.created" },
  { "event.total": 120 },
  { "event.total": { $gt: 80 } },
  { "event.total": { $gte: 80, $lt: 121 } },
  { "event.total": { $lte: 0 } },
  { "event.type": { $gt: "order.d" } },
  { "event.type": { $lt: "Z" } },
  { "event.type": { $ne: "order.created" } },
  { "event.type": { $in: ["refund", "order.paid"] } },
  { "event.type": { $nin: ["refund", "order.paid"] } },
  { "event.customer.email": { $exists: true } },
  { "event.customer": { $exists: false } },
  { "event.note": { $contains: "full" } },
  { "event.note": { $contains: "\u0000" } },
  { "event.tags": { $contains: "vip" } },
  { "event.items.1.sku": "B" },
  { "event.customer": { $eq: { name: "Bob" } } },
  { event: "just a string" },
  { event: { $contains: 2 } },
  { "metadata.name": "orders" },
  { "metadata.summary": { $contains: "#3" } },
  { "metadata.ts": { $gte: 5 } },
  { $or: [{ "event.total": { $lt: 0 } }, { "event.tags": { $contains: "eu" } }] },
  { $not: { "event.type": "order.created" } },
  { "event.customer.name": "\ud800" },
  // Names every object inherits: no event has them (JSON has no prototype), in every store.
  { valueOf: 1 },
  { toString: { $gt: 0 } },
  { "constructor.name": "Object" },
  { "event.constructor": { $exists: true } },
  { "event.toString": { $exists: false } },
  { "event.__proto__": { $ne: null } },
  { "metadata.valueOf": { $lt: 5 } },
];

/** Registers the search tests. */
export function searchSuite(t: SuiteContext): void {
  describe("event search", () => {
    const seed = async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const input: EventInput[] = BODIES.map((body, i) => ({
        channel: i % 3 === 0 ? "orders" : "default",
        summary: `Event #${i}`,
        ts: i,
        body,
      }));
      const stored = await t.emit(ws, dc.id, input, 1_000);
      await t.emit(
        ws,
        dc.id,
        [{ channel: "default", ts: 99, body: { type: "order.created", total: 120 } }],
        2_000,
      );
      return { ws, dc, stored };
    };
    const all = async (
      ws: string,
      dc: string,
      options: Parameters<SuiteContext["store"]["events"]["list"]>[2],
    ) => {
      const seen: StoredEvent[] = [];
      let before: string | undefined;
      for (let i = 0; i < 50; i++) {
        const page = await t.store.events.list(ws, dc, {
          limit: 3,
          ...options,
          ...(before ? { before } : {}),
        });
        seen.push(...page.items);
        before = page.nextCursor;
        if (!before) break;
      }
      return seen;
    };

    t.test("a filter of each operator returns exactly the events matchesFilter accepts", async () => {
      const { ws, dc } = await seed();
      const everything = await all(ws, dc.id, {});
      expect(everything).toHaveLength(BODIES.length + 1);
      for (const raw of FILTERS) {
        const filter = parseEventFilter(raw);
        const expected = everything.filter((e) => matchesFilter(filter, filterDocument(e))).map((e) => e.id);
        const got = (await all(ws, dc.id, { filter })).map((e) => e.id);
        expect({ filter: raw, ids: got }).toEqual({ filter: raw, ids: expected });
      }
      const created = await all(ws, dc.id, { filter: parseEventFilter({ "event.type": "order.created" }) });
      expect(created).toHaveLength(4);
    });

    t.test("a time window on the storage time, combined with a filter and the channel", async () => {
      const { ws, dc, stored } = await seed();
      const filter = parseEventFilter({ "event.total": 120 });
      expect((await all(ws, dc.id, { filter })).length).toBe(2);
      expect((await all(ws, dc.id, { filter, since: 1_500 })).length).toBe(1);
      expect((await all(ws, dc.id, { filter, until: 1_500 })).map((e) => e.id)).toEqual([stored[0]!.id]);
      expect((await all(ws, dc.id, { since: 1_000, until: 1_001, channel: "orders" })).length).toBe(4);
      expect(await all(ws, dc.id, { since: 2_001 })).toEqual([]);
      // The window is half open: an event stored exactly at `until` is out, one at `since` in.
      expect((await all(ws, dc.id, { until: 2_000 })).length).toBe(BODIES.length);
      expect((await all(ws, dc.id, { since: 2_000 })).length).toBe(1);
      expect(await all(ws, dc.id, { since: 1_000, until: 1_000 })).toEqual([]);
    });

    t.test("oldest first with order asc, paging with after", async () => {
      const { ws, dc, stored } = await seed();
      const filter = parseEventFilter({ "event.type": { $exists: true } });
      const first = await t.store.events.list(ws, dc.id, { filter, order: "asc", limit: 4 });
      expect(first.items.map((e) => e.id)).toEqual(
        stored
          .filter((e) => matchesFilter(filter, filterDocument(e)))
          .slice(0, 4)
          .map((e) => e.id),
      );
      const next = await t.store.events.list(ws, dc.id, {
        filter,
        order: "asc",
        limit: 100,
        after: first.nextCursor!,
      });
      expect(next.items.every((e, i, a) => i === 0 || e.seq > a[i - 1]!.seq)).toBe(true);
      expect(first.items.length + next.items.length).toBe(8);
    });

    t.test("a subscription filter keeps non-matching events out of the outbox", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const big = await t.webhook(ws);
      const all = await t.webhook(ws);
      const sub = await t.store.subscriptions.create({
        workspaceId: ws,
        emitterId: dc.id,
        listenerId: big.id,
        filter: { "event.total": { $gte: 100 } },
      });
      expect(sub.filter).toEqual({ "event.total": { $gte: 100 } });
      expect((await t.store.subscriptions.list(ws, { listenerId: big.id }))[0]?.filter).toEqual(sub.filter);
      await t.store.subscriptions.create({ workspaceId: ws, emitterId: dc.id, listenerId: all.id });
      const stored = await t.emit(ws, dc.id, [
        { channel: "default", ts: 1, body: { total: 150 } },
        { channel: "default", ts: 2, body: { total: 50 } },
        { channel: "default", ts: 3, body: { total: "150" } },
      ]);
      expect(stored.map((e) => e.deliveryIds.length)).toEqual([2, 1, 1]);
      const toBig = await t.store.deliveries.list(ws, { webhookId: big.id });
      expect(toBig.items.map((d) => d.eventId)).toEqual([stored[0]!.id]);
    });
  });
}
