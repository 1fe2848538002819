// Issue 23 through REST: event_summaries filters (each operator, a window, paging), 422 naming the
// problem, and subscription filters that keep events out of a webhook's deliveries.
import { describe, expect, it } from "vitest";
import { eventually } from "./_harness.js";
import { withBatchSource } from "./_source-api.js";
import { STORES } from "./_stores.js";

const EVENTS = [
  {
    body: { type: "order.created", total: 120, tags: ["vip"], customer: { name: "Ada" } },
    summary: "Ada's order",
  },
  { body: { type: "order.created", total: 80, tags: [] }, summary: "small" },
  { body: { type: "order.paid", total: 120.5, items: [{ sku: "A" }] }, channel: "payments" },
  { body: { type: "refund", total: -5, note: "paid back in full" } },
];

describe.each(STORES)("event search and subscription filters over REST, on %s", (_name, open) => {
  const t = withBatchSource(open, "batch");

  const summaries = async (query: Record<string, string>) => {
    const { api, sourceId } = t;
    const res = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
      query: { expand: "event", ...query },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as {
      event: { type: string; total: unknown };
      metadata: { summary: string | null };
    }[];
  };
  const totals = async (filter: unknown, extra: Record<string, string> = {}) =>
    (await summaries({ filter: JSON.stringify(filter), ...extra })).map((e) => e.event.total);

  it("filters event_summaries with each operator, a window and pages", async () => {
    const { api, receiver, sourceId } = t;
    const before = Math.floor(Date.now() / 1000) - 1;
    const hook = await api.call("POST", "/v1/webhooks", { query: { url: receiver.url } });
    const sub = await api.call("POST", "/v1/subscriptions", {
      query: {
        emitter_id: sourceId,
        listener_id: hook.body.data.id,
        filter: JSON.stringify({ "event.total": { $gte: 100 } }),
      },
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(sub.body.data.filter).toEqual({ "event.total": { $gte: 100 } });
    const run = await api.call("POST", `/v1/sources/${sourceId}/run`, {
      body: { event: { events: EVENTS } },
    });
    expect(run.status).toBe(200);

    expect(await totals({ "event.type": "order.created" })).toEqual([80, 120]);
    expect(await totals({ "event.total": { $gt: 80 } })).toEqual([120.5, 120]);
    expect(await totals({ "event.total": { $gte: 80, $lt: 120 } })).toEqual([80]);
    expect(await totals({ "event.total": { $lte: 0 } })).toEqual([-5]);
    expect(await totals({ "event.type": { $ne: "order.created" } })).toEqual([-5, 120.5]);
    expect(await totals({ "event.type": { $in: ["refund", "order.paid"] } })).toEqual([-5, 120.5]);
    expect(await totals({ "event.type": { $nin: ["refund", "order.paid"] } })).toEqual([80, 120]);
    expect(await totals({ "event.customer.name": { $exists: true } })).toEqual([120]);
    expect(await totals({ "event.items": { $exists: false } })).toEqual([-5, 80, 120]);
    expect(await totals({ "event.note": { $contains: "in full" } })).toEqual([-5]);
    expect(await totals({ "event.tags": { $contains: "vip" } })).toEqual([120]);
    expect(await totals({ "event.items.0.sku": "A" })).toEqual([120.5]);
    expect(await totals({ "metadata.summary": { $contains: "order" } })).toEqual([120]);
    expect(await totals({ "metadata.name": "payments" })).toEqual([120.5]);
    expect(await totals({ $or: [{ "event.total": -5 }, { "event.total": 80 }] })).toEqual([-5, 80]);
    // A window: everything is after `before`, nothing before it.
    expect(await totals({ "event.total": { $gt: 0 } }, { since: String(before) })).toEqual([120.5, 80, 120]);
    expect(await totals({ "event.total": { $gt: 0 } }, { until: String(before) })).toEqual([]);
    expect(
      await totals({ "event.total": { $gt: 0 } }, { since: new Date(before * 1000).toISOString() }),
    ).toHaveLength(3);
    // Pages of a filtered list follow end_cursor.
    const first = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
      query: { limit: "2", filter: JSON.stringify({ "event.total": { $exists: true } }) },
    });
    expect(first.body.data).toHaveLength(2);
    const next = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
      query: {
        limit: "2",
        after: first.body.page_info.end_cursor,
        filter: JSON.stringify({ "event.total": { $exists: true } }),
      },
    });
    expect(next.body.data).toHaveLength(2);

    // The subscription (default channel) filter let only the one event of 100 or more through.
    await eventually(() => expect(receiver.requests).toHaveLength(1), 15_000);
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ total: 120 });
    const deliveries = await api.call("GET", `/v1/webhooks/${hook.body.data.id}/deliveries`);
    expect(deliveries.body.data).toHaveLength(1);
  }, 60_000);

  it("answers 422 naming the problem for an invalid filter, in a search and a subscription", async () => {
    const { api, receiver, sourceId } = t;
    const bad = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
      query: { filter: JSON.stringify({ "event.total": { $gt: true }, "event.x": { $regex: "a" } }) },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("validation_failed");
    expect(bad.body.error.details.problems.map((p: { path: string }) => p.path).sort()).toEqual([
      "filter.event.total.$gt",
      "filter.event.x.$regex",
    ]);
    const notJson = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
      query: { filter: "{nope" },
    });
    expect(notJson.status).toBe(422);
    expect(notJson.body.error.details.problems[0]).toMatchObject({ code: "invalid_filter", path: "filter" });
    const badTime = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
      query: { since: "yesterday" },
    });
    expect(badTime.status).toBe(422);
    expect(badTime.body.error.details.problems[0].path).toBe("since");

    const hook = await api.call("POST", "/v1/webhooks", { query: { url: receiver.url } });
    const sub = await api.call("POST", "/v1/subscriptions", {
      body: { emitter_id: sourceId, listener_id: hook.body.data.id, filter: { "event.total": { $in: [] } } },
    });
    expect(sub.status).toBe(422);
    expect(sub.body.error.details.problems[0]).toMatchObject({
      code: "invalid_filter",
      path: "filter.event.total.$in",
    });
    expect(
      (await api.call("GET", "/v1/subscriptions", { query: { listener_id: hook.body.data.id } })).body.data,
    ).toEqual([]);
    // The same subscription with another filter is a conflict; with the same, it is returned.
    const made = await api.call("POST", "/v1/subscriptions", {
      body: { emitter_id: sourceId, listener_id: hook.body.data.id, filter: { "event.total": 1 } },
    });
    expect(made.status).toBe(200);
    const again = await api.call("POST", "/v1/subscriptions", {
      body: { emitter_id: sourceId, listener_id: hook.body.data.id, filter: { "event.total": 1 } },
    });
    expect(again.body.data.id).toBe(made.body.data.id);
    const other = await api.call("POST", "/v1/subscriptions", {
      body: { emitter_id: sourceId, listener_id: hook.body.data.id, filter: { "event.total": 2 } },
    });
    expect(other.status).toBe(409);
  }, 60_000);

  it("a page examines at most scan events: budget_reached, has_more and end_cursor continue the scan", async () => {
    const { api, sourceId } = t;
    await t.emit(Array.from({ length: 130 }, (_, n) => ({ body: { n, kind: "scan" } })));
    const filter = JSON.stringify({ "event.kind": "scan", "event.n": { $lt: 3 } });
    const pages: { data: { event: { n: number } }[]; page_info: Record<string, unknown> }[] = [];
    let after: string | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
        query: { filter, scan: "100", expand: "event", ...(after ? { after } : {}) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(res.body);
      after = res.body.page_info.end_cursor ?? undefined;
      if (!res.body.page_info.has_more) break;
    }
    // The first page examined the 100 newest events: none matched, and the scan stopped on its budget.
    expect(pages[0]!.data).toEqual([]);
    expect(pages[0]!.page_info).toMatchObject({
      count: 0,
      has_more: true,
      scanned: 100,
      scan_budget: 100,
      budget_reached: true,
    });
    expect(typeof pages[0]!.page_info.end_cursor).toBe("string");
    const last = pages[pages.length - 1]!;
    expect(last.page_info).toMatchObject({ has_more: false, budget_reached: false, end_cursor: null });
    expect(pages.flatMap((p) => p.data.map((e) => e.event.n))).toEqual([2, 1, 0]);
    // The default budget covers the whole source here; a budget over the maximum is 422 naming scan.
    const whole = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, { query: { filter } });
    expect(whole.body.page_info).toMatchObject({ count: 3, has_more: false, scan_budget: 10_000 });
    const bad = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, { query: { scan: "0" } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.error)).toContain("scan");
  }, 60_000);
});
