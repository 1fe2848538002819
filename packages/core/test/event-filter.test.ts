// The filter language: each operator, missing paths, combinators, and validation naming the path.
import { filterDocument, isHooklineError, matchesFilter, parseEventFilter } from "@hookline/core";
import { describe, expect, it } from "vitest";

const EVENT = {
  id: "evt_1",
  emitterId: "dc_1",
  channel: "orders",
  summary: "Order 42 from Ada",
  eventId: "42",
  ts: 1_000,
  createdAt: 2_000,
  body: {
    type: "order.created",
    total: 120,
    tags: ["vip", "eu"],
    customer: { name: "Ada", email: null },
    items: [{ sku: "A" }],
  },
};
const doc = filterDocument(EVENT);
const match = (filter: unknown) => matchesFilter(parseEventFilter(filter), doc);

describe("matchesFilter", () => {
  it("equality on paths, objects compared deeply, array items by index", () => {
    expect(match({ "event.type": "order.created" })).toBe(true);
    expect(match({ "event.type": "order.paid" })).toBe(false);
    expect(match({ "event.customer": { $eq: { email: null, name: "Ada" } } })).toBe(true);
    expect(match({ "event.items.0.sku": "A" })).toBe(true);
    expect(match({ "metadata.name": "orders", "metadata.id": "42" })).toBe(true);
    expect(match({ "event.customer.email": null })).toBe(true);
    expect(match({ "event.missing": null })).toBe(false);
  });
  it("comparisons hold between numbers or between strings only", () => {
    expect(match({ "event.total": { $gt: 100, $lte: 120 } })).toBe(true);
    expect(match({ "event.total": { $lt: 120 } })).toBe(false);
    expect(match({ "event.total": { $gte: "1" } })).toBe(false);
    expect(match({ "event.type": { $gte: "order." } })).toBe(true);
    expect(match({ "metadata.ts": { $gte: 1000, $lt: 1001 } })).toBe(true);
  });
  it("$ne and $nin match a missing path; $in and $eq do not", () => {
    expect(match({ "event.nope": { $ne: 1 } })).toBe(true);
    expect(match({ "event.nope": { $nin: [1] } })).toBe(true);
    expect(match({ "event.nope": { $in: [1] } })).toBe(false);
    expect(match({ "event.total": { $in: [1, 120] } })).toBe(true);
    expect(match({ "event.total": { $nin: [1, 120] } })).toBe(false);
    expect(match({ "event.total": { $ne: 120 } })).toBe(false);
  });
  it("$exists, with JSON null present", () => {
    expect(match({ "event.customer.email": { $exists: true } })).toBe(true);
    expect(match({ "event.customer.phone": { $exists: false } })).toBe(true);
    expect(match({ "event.total.deeper": { $exists: true } })).toBe(false);
  });
  it("$contains: a substring of a string, an element of an array", () => {
    expect(match({ "metadata.summary": { $contains: "from Ada" } })).toBe(true);
    expect(match({ "metadata.summary": { $contains: "from Bob" } })).toBe(false);
    expect(match({ "event.tags": { $contains: "vip" } })).toBe(true);
    expect(match({ "event.tags": { $contains: "us" } })).toBe(false);
    expect(match({ "event.total": { $contains: "1" } })).toBe(false);
  });
  it("$and, $or, $not", () => {
    expect(match({ $or: [{ "event.total": 1 }, { "event.tags": { $contains: "eu" } }] })).toBe(true);
    expect(match({ $and: [{ "event.total": 120 }, { "event.type": "x" }] })).toBe(false);
    expect(match({ $not: { "event.type": "order.created" } })).toBe(false);
  });
  it("reads own properties only: inherited names such as constructor are missing paths", () => {
    // The SQL stores read JSON, which has no prototype: the memory store must agree with them.
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      expect(match({ [`event.${name}`]: { $exists: true } }), name).toBe(false);
      expect(match({ [`event.${name}`]: { $exists: false } }), name).toBe(true);
      expect(match({ [`event.customer.${name}`]: { $ne: 1 } }), name).toBe(true);
    }
    const own = filterDocument({ ...EVENT, body: JSON.parse('{"constructor":"mine","__proto__":{"x":1}}') });
    expect(matchesFilter(parseEventFilter({ "event.constructor": "mine" }), own)).toBe(true);
    expect(matchesFilter(parseEventFilter({ "event.__proto__.x": 1 }), own)).toBe(true);
  });
  it("compares strings by code point", () => {
    expect(match({ "event.type": { $lt: "\u{1F600}" } })).toBe(true);
    expect(
      matchesFilter(parseEventFilter({ "event.s": { $gt: "\uE000" } }), { event: { s: "\u{1F600}" } }),
    ).toBe(true);
  });
});

describe("parseEventFilter", () => {
  const problems = (input: unknown): { code: string; path: string; message: string }[] => {
    try {
      parseEventFilter(input);
    } catch (error) {
      if (!isHooklineError(error)) throw error;
      expect(error.code).toBe("validation_failed");
      expect(error.status).toBe(422);
      return (error.details as { problems: { code: string; path: string; message: string }[] }).problems;
    }
    throw new Error("no error");
  };
  it("names the path of every problem", () => {
    const found = problems({
      "event.total": { $gt: true, $bogus: 1 },
      "event..x": 1,
      $or: [],
      "event.t": { $in: "a" },
    });
    expect(found.map((p) => p.path).sort()).toEqual([
      "filter.$or",
      "filter.event..x",
      "filter.event.t.$in",
      "filter.event.total.$bogus",
      "filter.event.total.$gt",
    ]);
    expect(found.every((p) => p.code === "invalid_filter")).toBe(true);
    expect(found.find((p) => p.path === "filter.event.total.$gt")?.message).toMatch(/number or a string/);
  });
  it("refuses malformed JSON text, a non-object, mixed operators and too many conditions", () => {
    expect(problems("{nope")[0]?.path).toBe("filter");
    expect(problems([1])[0]?.message).toMatch(/must be an object/);
    expect(problems({ a: { $eq: 1, b: 2 } })[0]?.message).toMatch(/mixes operators/);
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`event.k${i}`, i]));
    expect(problems(many)[0]?.message).toMatch(/at most 64/);
  });
  it("refuses nesting deeper than 8 levels of $and, $or and $not, and accepts 8", () => {
    const nest = (levels: number): Record<string, unknown> => {
      let filter: Record<string, unknown> = { "event.a": 1 };
      for (let i = 0; i < levels; i++) filter = i % 2 ? { $not: filter } : { $and: [filter] };
      return filter;
    };
    expect(() => parseEventFilter(nest(8))).not.toThrow();
    expect(problems(nest(9))[0]?.message).toMatch(/nests deeper than 8 levels/);
    expect(problems(nest(40))[0]?.message).toMatch(/nests deeper than 8 levels/);
  });
  it("parses JSON text", () => {
    expect(parseEventFilter('{"event.a":1}')).toEqual({
      kind: "condition",
      path: ["event", "a"],
      op: "$eq",
      value: 1,
    });
  });
});
