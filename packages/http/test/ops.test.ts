// /healthz, /readyz and /metrics through a real node:http server: readiness follows the store
// (cut, then back), and the metrics, read with a Prometheus text parser, move with the work done.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { createHookline, type Hookline } from "@hookline/engine";
import { createSqlStore, pgliteClient, type SqlClient } from "@hookline/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";
import { toNodeListener } from "../src/adapters/node.js";
import { createHandler, type HandlerOptions } from "../src/index.js";
import { createMetrics, type HooklineMetrics } from "../src/metrics/index.js";
import { eventually, HTTP_SOURCE, type Receiver, startReceiver } from "./_harness.js";
import { parseMetrics, sampleValue } from "./_prometheus.js";
import { STORES } from "./_stores.js";

const TOKEN = "metrics-token-for-tests";

/** A real server over `handler`; its base URL and a close. */
async function listen(handler: (request: Request) => Promise<Response>) {
  const server: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A SQL client that can be cut from its database: every statement then fails as a lost connection would. */
function cuttable(client: SqlClient): { client: SqlClient; cut(on: boolean): void } {
  let down = false;
  const refuse = () =>
    Promise.reject(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }));
  return {
    client: {
      ...client,
      query: (text, params) => (down ? refuse() : client.query(text, params)),
      transaction: (fn) => (down ? refuse() : (client.transaction?.(fn) ?? fn(client))),
    },
    cut: (on) => {
      down = on;
    },
  };
}

describe("/healthz and /readyz", () => {
  let db: PGlite;
  let hookline: Hookline;
  let cut: (on: boolean) => void;
  let api: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    db = await freshPglite();
    const wrapped = cuttable(pgliteClient(db));
    cut = wrapped.cut;
    hookline = createHookline({ store: await createSqlStore(wrapped.client), secretsKey: "ops" });
    api = await listen(createHandler(hookline));
  });
  afterAll(async () => {
    cut(false);
    await api.close();
    await hookline.close();
    await db.close();
  });

  const readyz = async () => {
    const res = await fetch(`${api.base}/readyz`);
    type Check = { ok: boolean; detail?: string };
    const body = (await res.json()) as {
      status: string;
      checks: Record<"store" | "migrations" | "worker", Check>;
    };
    return { status: res.status, body };
  };

  it("/healthz answers 200 with no key, whatever the store", async () => {
    cut(true);
    const res = await fetch(`${api.base}/healthz`);
    cut(false);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("/readyz is 503 until the engine is started, then 200", async () => {
    const before = await readyz();
    expect(before.status).toBe(503);
    expect(before.body.status).toBe("not_ready");
    expect(before.body.checks.worker).toEqual({ ok: false, detail: "the engine is not started" });
    await hookline.start();
    const after = await readyz();
    expect(after.status).toBe(200);
    expect(after.body).toEqual({
      status: "ready",
      checks: { store: { ok: true }, migrations: { ok: true }, worker: { ok: true } },
    });
  });

  it("/readyz goes 503 with the reason when the store is unreachable, and back to 200", async () => {
    await hookline.start();
    expect((await readyz()).status).toBe(200);
    cut(true);
    const down = await readyz();
    expect(down.status).toBe(503);
    expect(down.body.checks.store.ok).toBe(false);
    expect(down.body.checks.store.detail).toContain("the store is unreachable: connect ECONNREFUSED");
    expect(down.body.checks.worker.ok).toBe(true);
    cut(false);
    expect((await readyz()).status).toBe(200);
  });

  it("/readyz names migrations the store has not applied", async () => {
    await db.query("DELETE FROM hookline_migrations WHERE id = (SELECT max(id) FROM hookline_migrations)");
    const behind = await readyz();
    expect(behind.status).toBe(503);
    expect(behind.body.checks.migrations.ok).toBe(false);
    expect(behind.body.checks.migrations.detail).toMatch(/^migrations not applied: \d+$/);
  });
});

describe.each(STORES)("/metrics on %s", (_name, openStore) => {
  let hookline: Hookline;
  let metrics: HooklineMetrics;
  let receiver: Receiver;
  let api: Awaited<ReturnType<typeof listen>>;
  let key: string;
  let workspaceId: string;
  let closeStore: () => Promise<void>;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as { data: Record<string, any> };
  };
  const scrape = async () => {
    const res = await fetch(`${api.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(await res.text());
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    const opened = await openStore();
    closeStore = opened.close;
    hookline = createHookline({ store: opened.store, secretsKey: "ops", allowPrivateUrls: true });
    metrics = createMetrics(hookline, { processMetrics: false });
    const options: HandlerOptions = {
      observer: metrics.observer,
      metrics: { source: metrics, token: TOKEN },
      workspaceIngressRateLimit: { perSecond: 0.001, burst: 5 },
    };
    api = await listen(createHandler(hookline, options));
    await hookline.start();
    const ws = await hookline.workspaces.create({ name: "ops" });
    workspaceId = ws.id;
    key = (await hookline.apiKeys.create(ws.id)).key;
  });
  afterAll(async () => {
    metrics.close();
    await api.close();
    await hookline.close();
    await closeStore();
    await receiver.close();
  });

  it("refuses a scrape without the metrics token (an API key is not it)", async () => {
    expect((await fetch(`${api.base}/metrics`)).status).toBe(401);
    const withKey = await fetch(`${api.base}/metrics`, { headers: { authorization: `Bearer ${key}` } });
    expect(withKey.status).toBe(401);
  });

  it("counts requests, ingress, emits, deliveries and the ingress guard's 429s as the work happens", async () => {
    const before = await scrape();
    expect(before.get("hookline_http_requests_total")?.type).toBe("COUNTER");
    expect(before.get("hookline_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
    expect(before.get("hookline_delivery_queue_depth")?.type).toBe("GAUGE");
    expect(sampleValue(before, "hookline_emits_total")).toBe(0);

    const source = await call("POST", "/v1/sources", { component_code: HTTP_SOURCE, name: "orders" });
    const hook = await call("POST", "/v1/webhooks", { url: receiver.url });
    await call("POST", "/v1/subscriptions", { emitter_id: source.data.id, listener_id: hook.data.id });
    const endpoint = new URL(source.data.endpoint_url as string).pathname;
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${api.base}${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n: i }),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    // The workspace's bucket holds 5: the 6th and 7th requests are refused.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    await eventually(() => expect(receiver.requests).toHaveLength(5), 10_000);

    await eventually(async () => {
      const after = await scrape();
      const route = { route: "/http/{endpoint_id}", method: "POST" };
      expect(sampleValue(after, "hookline_http_requests_total", { ...route, status: "200" })).toBe(5);
      expect(sampleValue(after, "hookline_http_requests_total", { ...route, status: "429" })).toBe(2);
      expect(sampleValue(after, "hookline_http_request_duration_seconds_count", route)).toBe(7);
      expect(
        sampleValue(after, "hookline_http_requests_total", { route: "/v1/sources", status: "200" }),
      ).toBe(1);
      expect(sampleValue(after, "hookline_ingress_requests_total", { kind: "source", status: "2xx" })).toBe(
        5,
      );
      expect(sampleValue(after, "hookline_ingress_requests_total", { kind: "source", status: "4xx" })).toBe(
        2,
      );
      expect(sampleValue(after, "hookline_ingress_rate_limited_total", { scope: "workspace" })).toBe(2);
      expect(sampleValue(after, "hookline_ingress_rate_limited_total", { scope: "endpoint" })).toBe(0);
      expect(sampleValue(after, "hookline_emits_total", { emitter: "source" })).toBe(5);
      expect(
        sampleValue(after, "hookline_source_runs_total", { trigger: "http", outcome: "succeeded" }),
      ).toBe(5);
      expect(
        sampleValue(after, "hookline_delivery_attempts_total", { outcome: "succeeded", status: "2xx" }),
      ).toBe(5);
      expect(
        sampleValue(after, "hookline_delivery_attempt_duration_seconds_count", { outcome: "succeeded" }),
      ).toBe(5);
      expect(sampleValue(after, "hookline_delivery_queue_depth", { state: "pending" })).toBe(0);
      expect(sampleValue(after, "hookline_delivery_queue_oldest_due_age_seconds")).toBe(0);
    });
  });

  it("reports the queue's depth and its oldest due delivery while a receiver fails", async () => {
    receiver.status = 503;
    // A manual run: the ingress guard is not in the way.
    await hookline.sources.run(workspaceId, "orders", { body: { n: "late" } });
    await eventually(async () => {
      const now = await scrape();
      expect(
        sampleValue(now, "hookline_delivery_attempts_total", { outcome: "pending", status: "5xx" }),
      ).toBe(1);
      expect(sampleValue(now, "hookline_delivery_queue_depth", { state: "pending" })).toBe(1);
      expect(sampleValue(now, "hookline_emits_total", { emitter: "source" })).toBe(6);
      expect(sampleValue(now, "hookline_source_runs_total", { trigger: "manual" })).toBe(1);
    }, 10_000);
  });
});
