// The SQL translation of event filters: a necessary condition for every filter (no matching row is
// left out before the re-check), and exactly the filter where it says so. Run on PGlite.
import type { PGlite } from "@electric-sql/pglite";
import { filterDocument, matchesFilter, parseEventFilter } from "@hookline/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlStore, pgliteClient } from "../src/index.js";
import { filterSql, UNINDEXED_BODY } from "../src/sql/event-filter-sql.js";
import { freshPglite } from "./fresh-pglite.js";

const BODIES: unknown[] = [
  { type: "order.created", total: 120, tags: ["vip", "eu"], customer: { name: "Ada", email: null } },
  { type: "order.created", total: 80, tags: ["eu"], customer: { name: "Bob" }, 'we"ird': { "k,y": 1 } },
  { type: "order.paid", total: 120.5, tags: [], items: [{ sku: "A" }, { sku: "B" }] },
  { type: "order.paid", total: "120", note: "paid in full", nested: [[1], { a: [2] }] },
  { type: "refund", total: -5, note: "a\u0000b" },
  { type: "order.created", total: 1e21, tags: ["vip", { x: 1, y: 2 }], items: { "0": { sku: "B" } } },
  "just a string",
  [1, 2, 3],
  null,
  undefined,
  { type: "Émile", total: 0, note: "🎉 party", big: 0.1 },
];
const FILTERS: Record<string, unknown>[] = [
  { "event.type": "order.created" },
  { "event.total": 120 },
  { "event.total": { $gt: 80 } },
  { "event.total": { $gte: 80, $lt: 121 } },
  { "event.big": { $gt: 0.1 } },
  { "event.type": { $gt: "order.d" } },
  { "event.type": { $lte: "Émile" } },
  { "event.type": { $ne: "order.created" } },
  { "event.type": { $in: ["refund", "order.paid", 3] } },
  { "event.type": { $nin: ["refund", "order.paid"] } },
  { "event.customer.email": { $exists: true } },
  { "event.customer": { $exists: false } },
  { "event.note": { $contains: "full" } },
  { "event.note": { $contains: "" } },
  { "event.tags": { $contains: "vip" } },
  { "event.tags": { $contains: { x: 1 } } },
  { "event.items.1.sku": "B" },
  { "event.items.0.sku": "B" },
  { "event.customer": { $eq: { name: "Bob" } } },
  { "event.tags": ["eu"] },
  { 'event.we"ird.k,y': 1 },
  { event: "just a string" },
  { event: { $contains: 2 } },
  { event: null },
  { event: { $exists: false } },
  { "metadata.name": { $in: ["orders", 1] } },
  { "metadata.ts": { $gte: 5 } },
  { indexed_at_ms: { $lt: 5 } },
  { $or: [{ "event.total": { $lt: 0 } }, { "event.tags": { $contains: "eu" } }] },
  { $not: { "event.type": "order.created" } },
  { $not: { "event.tags": { $contains: { x: 1 } } } },
];

describe("filterSql on PGlite", () => {
  let db: PGlite;
  const ws = "ws_filters";
  const emitter = "dc_filters";
  beforeAll(async () => {
    db = await freshPglite();
    const store = await createSqlStore(pgliteClient(db));
    await store.emits.commit({
      workspaceId: ws,
      componentId: emitter,
      events: BODIES.map((body, i) => ({ channel: i % 3 ? "default" : "orders", ts: i, body })),
    });
  }, 90_000);
  afterAll(() => db.close());

  it("is implied by every filter, and exact where it says so", async () => {
    const { rows } = await db.query<{ id: string; exotic: boolean }>(
      "SELECT id, (body_json IS NULL AND body IS NOT NULL) AS exotic FROM events",
    );
    const exotic = new Set(rows.filter((r) => r.exotic).map((r) => r.id));
    expect(exotic.size).toBe(1);
    const store = await createSqlStore(pgliteClient(db));
    const stored = (await store.events.list(ws, emitter, { limit: 100 })).items;
    const inexact: unknown[] = [];
    for (const raw of FILTERS) {
      const filter = parseEventFilter(raw);
      const expected = stored
        .filter((e) => matchesFilter(filter, filterDocument(e)))
        .map((e) => e.id)
        .sort();
      const params: unknown[] = [];
      const condition = filterSql(filter, params);
      const found = (
        await db.query<{ id: string }>(
          `SELECT t.id FROM events t WHERE (${condition.sql}) OR ${UNINDEXED_BODY}`,
          params,
        )
      ).rows
        .map((r) => r.id)
        .sort();
      const missing = expected.filter((id) => !found.includes(id));
      expect({ raw, missing: stored.filter((e) => missing.includes(e.id)).map((e) => e.body) }).toEqual({
        raw,
        missing: [],
      });
      if (condition.exact && condition.sql !== "TRUE") {
        const wanted = expected.filter((id) => !exotic.has(id));
        expect({ raw, found: found.filter((id) => !exotic.has(id)) }).toEqual({ raw, found: wanted });
      } else {
        inexact.push(raw);
      }
    }
    // Only the conditions without an exact SQL form: object elements of arrays, and $not of them.
    expect(inexact).toEqual([
      { "event.tags": { $contains: { x: 1 } } },
      { $not: { "event.tags": { $contains: { x: 1 } } } },
    ]);
  });

  it("translates equality to containment (which the GIN index answers) and comparisons exactly", () => {
    const params: unknown[] = [];
    expect(filterSql(parseEventFilter({ "event.a.b": 1 }), params).sql).toContain("t.body_json @>");
    expect(params).toContain('{"a":{"b":1}}');
  });
});
