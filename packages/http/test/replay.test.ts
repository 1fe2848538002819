// Issue 23 through REST: replaying a window to a webhook attached after the events were emitted
// (standardwebhooks-verifiable, with the original ids), in resumable batches; and the metrics of a
// webhook matching a known sequence of attempts.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { eventually, startApi } from "./_harness.js";
import { withBatchSource } from "./_source-api.js";
import { STORES } from "./_stores.js";

describe.each(STORES)("replay and metrics over REST, on %s", (_name, open) => {
  const t = withBatchSource(open, "history");

  it("replays a window to a webhook subscribed afterwards, same ids, signed, in batches", async () => {
    const { api, receiver, sourceId } = t;
    const since = Math.floor(Date.now() / 1000) - 1;
    const events = Array.from({ length: 7 }, (_, i) => ({ body: { n: i, kind: i % 2 ? "odd" : "even" } }));
    await api.call("POST", `/v1/sources/${sourceId}/run`, { body: { event: { events } } });
    await api.call("POST", `/v1/sources/${sourceId}/run`, {
      body: { event: { events: [{ body: { n: 99, kind: "even" }, channel: "other" }] } },
    });
    const stored = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
      query: { limit: "100" },
    });

    const hook = await api.call("POST", "/v1/webhooks", { query: { url: receiver.url } });
    const sub = await api.call("POST", "/v1/subscriptions", {
      query: {
        emitter_id: sourceId,
        listener_id: hook.body.data.id,
        filter: JSON.stringify({ "event.n": { $lt: 6 } }),
      },
    });
    expect(receiver.requests).toHaveLength(0); // nothing new was emitted since

    // Batches of 2 of the even events (the replay's filter) below 6 (the subscription's): 0, 2, 4.
    const subId = sub.body.data.id as string;
    const started = await api.call("POST", `/v1/subscriptions/${subId}/replay`, {
      query: { since: String(since), filter: JSON.stringify({ "event.kind": "even" }), limit: "2" },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const job = started.body.data;
    expect(job).toMatchObject({
      subscription_id: subId,
      webhook_id: hook.body.data.id,
      status: "running",
      since,
      until: null,
      filter: { "event.kind": "even" },
      enqueued: 2,
      error: null,
      batch: { replayed: 2 },
    });
    expect(job.id).toMatch(/^rpl_/);
    // Its progress is recorded: the job as GET shows it, and in the subscription's list.
    const shown = await api.call("GET", `/v1/subscriptions/${subId}/replays/${job.id}`);
    const { batch: _batch, ...recorded } = job;
    expect(shown.body.data).toEqual(recorded);
    const next = await api.call("POST", `/v1/subscriptions/${subId}/replays/${job.id}/continue`, {
      query: { limit: "2" },
    });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.data).toMatchObject({ id: job.id, status: "done", enqueued: 3, batch: { replayed: 1 } });
    expect(next.body.data.scanned).toBeGreaterThanOrEqual(7);
    // Continuing a finished replay sends nothing.
    const again = await api.call("POST", `/v1/subscriptions/${subId}/replays/${job.id}/continue`);
    expect(again.body.data).toMatchObject({
      status: "done",
      enqueued: 3,
      batch: { replayed: 0, scanned: 0 },
    });
    const listed = await api.call("GET", `/v1/subscriptions/${subId}/replays`);
    expect(listed.body.data.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([
      [job.id, "done"],
    ]);

    await eventually(() => expect(receiver.requests).toHaveLength(3), 15_000);
    const secret = (await api.call("GET", `/v1/webhooks/${hook.body.data.id}/secret`)).body.data.secret;
    const verifier = new Webhook(secret);
    const storedIds = new Set(stored.body.data.map((e: { id: string }) => e.id));
    const received = receiver.requests.map((r) => {
      const headers = {
        "webhook-id": String(r.headers["webhook-id"]),
        "webhook-timestamp": String(r.headers["webhook-timestamp"]),
        "webhook-signature": String(r.headers["webhook-signature"]),
      };
      const payload = verifier.verify(r.body, headers) as { n: number };
      return { n: payload.n, id: headers["webhook-id"] };
    });
    expect(received.map((r) => r.n).sort()).toEqual([0, 2, 4]);
    // webhook-id is the original event's id, so a receiver dedupes a replay against the first send.
    for (const r of received) expect(storedIds.has(r.id)).toBe(true);
    const original = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`, {
      query: { limit: "100", expand: "event", filter: JSON.stringify({ "event.n": { $in: [0, 2, 4] } }) },
    });
    expect(new Set(original.body.data.map((e: { id: string }) => e.id))).toEqual(
      new Set(received.map((r) => r.id)),
    );

    // Replaying an empty window is done at once; an unknown subscription is 404; bad input 422.
    const empty = await api.call("POST", `/v1/subscriptions/${sub.body.data.id}/replay`, {
      query: { since: String(since + 3600) },
    });
    expect(empty.body.data).toMatchObject({ status: "done", enqueued: 0, batch: { replayed: 0 } });
    expect((await api.call("POST", "/v1/subscriptions/sub_nope/replay")).status).toBe(404);
    expect((await api.call("GET", `/v1/subscriptions/${subId}/replays/rpl_nope`)).status).toBe(404);
    expect((await api.call("POST", `/v1/subscriptions/${subId}/replays/rpl_nope/continue`)).status).toBe(404);
    const tooMany = await api.call("POST", `/v1/subscriptions/${subId}/replay`, { query: { limit: "0" } });
    expect(tooMany.status).toBe(422);
    const bad = await api.call("POST", `/v1/subscriptions/${sub.body.data.id}/replay`, {
      query: { filter: JSON.stringify({ "event.n": { $lt: [] } }) },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.problems[0].path).toBe("filter.event.n.$lt");
  }, 60_000);

  it("a replay resumes from its recorded cursor on another engine, and fails once its webhook is gone", async () => {
    const { api, receiver, sourceId } = t;
    const since = Math.floor(Date.now() / 1000) - 1;
    await t.emit(Array.from({ length: 5 }, (_, n) => ({ body: { n, kind: "resume" } })));
    const hook = await api.call("POST", "/v1/webhooks", { query: { url: receiver.url } });
    const sub = await api.call("POST", "/v1/subscriptions", {
      query: { emitter_id: sourceId, listener_id: hook.body.data.id },
    });
    const subId = sub.body.data.id as string;
    const filter = JSON.stringify({ "event.kind": "resume" });
    const started = await api.call("POST", `/v1/subscriptions/${subId}/replay`, {
      query: { since: String(since), filter, limit: "2" },
    });
    expect(started.body.data).toMatchObject({ status: "running", enqueued: 2 });
    // A restart: another engine over the same store continues from the stored cursor.
    const other = await startApi("fetch", { engine: { store: api.hookline.store } });
    try {
      const rest = await other.call(
        "POST",
        `/v1/subscriptions/${subId}/replays/${started.body.data.id}/continue`,
        {
          query: { limit: "10" },
          key: api.key,
        },
      );
      expect(rest.status, JSON.stringify(rest.body)).toBe(200);
      expect(rest.body.data).toMatchObject({ status: "done", enqueued: 5, batch: { replayed: 3 } });
    } finally {
      await other.close();
    }
    const toHook = await api.call("GET", `/v1/webhooks/${hook.body.data.id}/deliveries`, {
      query: { limit: "100" },
    });
    expect(new Set(toHook.body.data.map((d: { event_id: string }) => d.event_id)).size).toBe(5);
    // A replay whose webhook is deleted before its next batch ends failed, with the reason recorded.
    const second = await api.call("POST", `/v1/subscriptions/${subId}/replay`, {
      query: { since: String(since), filter, limit: "1" },
    });
    expect(second.body.data.status).toBe("running");
    expect((await api.call("DELETE", `/v1/webhooks/${hook.body.data.id}`)).status).toBe(200);
    const failed = await api.call(
      "POST",
      `/v1/subscriptions/${subId}/replays/${second.body.data.id}/continue`,
    );
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body.data).toMatchObject({ status: "failed", enqueued: 1 });
    expect(failed.body.data.error).toMatch(/deleted/);
  }, 60_000);

  it("metrics of a webhook match a known sequence of attempts", async () => {
    const { api, sourceId } = t;
    // Disabled, so that no worker adds an attempt of its own.
    const hook = await api.call("POST", "/v1/webhooks", {
      query: { url: "https://example.com/metrics", active: "false" },
    });
    expect(hook.body.data.active).toBe(false);
    const webhookId = hook.body.data.id as string;
    const { store } = api.hookline;
    const [event] = await store.emits.commit({
      workspaceId: api.workspaceId,
      componentId: sourceId,
      events: [{ channel: "metrics", ts: 1, body: {} }],
    });
    const [delivery] = await store.deliveries.enqueue(api.workspaceId, webhookId, [event!], Date.now());
    const base = Date.UTC(2026, 0, 1);
    const sequence: [number | undefined, number][] = [
      [200, 10],
      [200, 20],
      [204, 30],
      [500, 40],
      [503, 50],
      [404, 60],
      [301, 70],
      [undefined, 15000],
    ];
    for (const [i, [status, durationMs]] of sequence.entries()) {
      await store.queue.deliveries.recordAttempt({
        deliveryId: delivery!.id,
        workspaceId: api.workspaceId,
        at: base + i * 1000,
        durationMs,
        ...(status === undefined ? { error: "timeout" } : { status }),
      });
    }
    const res = await api.call("GET", `/v1/webhooks/${webhookId}/metrics`, {
      query: { since: new Date(base).toISOString(), until: String(base / 1000 + 3600) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      webhook_id: webhookId,
      since: base / 1000,
      until: base / 1000 + 3600,
      attempts: 8,
      succeeded: 3,
      failed: 5,
      success_rate: 3 / 8,
      status_classes: { "1xx": 0, "2xx": 3, "3xx": 1, "4xx": 1, "5xx": 2, error: 1 },
      latency_ms: { p50: 40, p95: 15000, p99: 15000 },
    });
    const later = await api.call("GET", `/v1/webhooks/${webhookId}/metrics`, {
      query: { since: String(base / 1000 + 5), until: String(base / 1000 + 3600) },
    });
    expect(later.body.data).toMatchObject({ attempts: 3, succeeded: 0, latency_ms: { p50: 70 } });
    const recent = await api.call("GET", `/v1/webhooks/${webhookId}/metrics`);
    expect(recent.body.data).toMatchObject({ attempts: 0, success_rate: null, latency_ms: { p50: null } });
    expect((await api.call("GET", "/v1/webhooks/wh_nope/metrics")).status).toBe(404);
  }, 60_000);
});
