import { verifyWebhook } from "@hookline/delivery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Api,
  eventually,
  HTTP_SOURCE,
  MODES,
  type Receiver,
  startApi,
  startReceiver,
} from "./_harness.js";

describe.each(MODES)("REST API through %s", (mode) => {
  let api: Api;
  let receiver: Receiver;
  beforeAll(async () => {
    api = await startApi(mode);
    api.hookline.start();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await api.close();
  });

  it("SPEC's two documented calls, sent as SPEC shows them, and an emitted event reaches the webhook", async () => {
    const headers = { Authorization: `Bearer ${api.key}`, "Content-Type": "application/json" };
    const url = new URLSearchParams({ url: receiver.url, name: "orders hook", description: "all orders" });
    const created = await api.raw(`/v1/webhooks?${url}`, { method: "POST", headers });
    expect(created.status).toBe(200);
    const webhook = (await created.json()) as { data: { id: string } };
    expect(webhook.data).toMatchObject({
      id: expect.stringMatching(/^wh_/),
      url: receiver.url,
      name: "orders hook",
      description: "all orders",
      active: true,
    });

    const source = await api.call("POST", "/v1/sources", {
      body: { component_code: HTTP_SOURCE, name: "orders" },
    });
    expect(source.status).toBe(200);
    const sourceId = source.body.data.id as string;

    const sub = new URLSearchParams({ emitter_id: sourceId, listener_id: webhook.data.id });
    const subscribed = await api.raw(`/v1/subscriptions?${sub}`, { method: "POST", headers });
    expect(subscribed.status).toBe(200);
    expect(((await subscribed.json()) as { data: unknown }).data).toMatchObject({
      id: expect.stringMatching(/^sub_/),
      emitter_id: sourceId,
      listener_id: webhook.data.id,
      event_name: null,
    });

    const endpoint = new URL(source.body.data.endpoint_url as string);
    const hit = await api.raw(endpoint.pathname, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"total":42}',
    });
    expect(hit.status).toBe(200);
    expect(await hit.json()).toEqual({ success: true });
    await eventually(() => expect(receiver.requests).toHaveLength(1));
    const delivered = receiver.requests[0];
    expect(JSON.parse(delivered?.body ?? "")).toEqual({ total: 42 });
    expect(delivered?.headers["x-hookline-emitter-id"]).toBe(sourceId);
    const secret = await api.call("GET", `/v1/webhooks/${webhook.data.id}/secret`);
    expect(() =>
      verifyWebhook(
        secret.body.data.secret,
        delivered?.headers as Record<string, string>,
        delivered?.body ?? "",
      ),
    ).not.toThrow();
  });

  it("a disabled webhook receives the events emitted meanwhile once enabled again; purge drops them", async () => {
    const hook = await startReceiver();
    try {
      const webhook = await api.call("POST", "/v1/webhooks", { query: { url: hook.url } });
      const whId = webhook.body.data.id as string;
      const source = await api.call("POST", "/v1/sources", {
        body: { component_code: HTTP_SOURCE, name: "paused" },
      });
      const sourceId = source.body.data.id as string;
      await api.call("POST", "/v1/subscriptions", { query: { emitter_id: sourceId, listener_id: whId } });
      const endpoint = new URL(source.body.data.endpoint_url as string).pathname;
      const emit = async (total: number) => {
        const res = await api.raw(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ total }),
        });
        expect(res.status).toBe(200);
      };

      expect((await api.call("PATCH", `/v1/webhooks/${whId}`, { body: { active: false } })).status).toBe(200);
      await emit(1);
      await emit(2);
      const paused = await api.call("GET", `/v1/webhooks/${whId}/deliveries`, {
        query: { status: "paused" },
      });
      expect(paused.status).toBe(200);
      expect(paused.body.data).toHaveLength(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hook.requests).toHaveLength(0);

      // Enabled again: both are sent, in order, without waiting for a poll.
      expect((await api.call("PATCH", `/v1/webhooks/${whId}`, { body: { active: true } })).status).toBe(200);
      await eventually(() => expect(hook.requests).toHaveLength(2));
      expect(hook.requests.map((r) => JSON.parse(r.body))).toEqual([{ total: 1 }, { total: 2 }]);

      // Disabled again: what waits can be purged explicitly; the events stay.
      await api.call("PATCH", `/v1/webhooks/${whId}`, { body: { active: false } });
      await emit(3);
      const purged = await api.call("POST", `/v1/webhooks/${whId}/deliveries/purge`);
      expect(purged.status).toBe(200);
      expect(purged.body.data).toEqual({ purged: 1 });
      expect((await api.call("POST", `/v1/webhooks/${whId}/deliveries/purge`)).body.data).toEqual({
        purged: 0,
      });
      await api.call("PATCH", `/v1/webhooks/${whId}`, { body: { active: true } });
      await eventually(async () => {
        const all = await api.call("GET", `/v1/webhooks/${whId}/deliveries`);
        expect(all.body.data.map((d: { status: string }) => d.status)).toEqual(["succeeded", "succeeded"]);
      });
      const events = await api.call("GET", `/v1/sources/${sourceId}/event_summaries`);
      expect(events.body.data).toHaveLength(3);
      expect(hook.requests).toHaveLength(2);
    } finally {
      await hook.close();
    }
  });

  it("answers 401 without a key and with a bad key", async () => {
    for (const key of [null, "hl_nope"]) {
      const res = await api.call("GET", "/v1/webhooks", { key });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
    }
  });

  it("hides another workspace's resources behind 404 for every verb", async () => {
    const hook = await api.call("POST", "/v1/webhooks", { query: { url: "https://example.com/a" } });
    const source = await api.call("POST", "/v1/sources", { body: { component_code: HTTP_SOURCE } });
    const account = await api.call("POST", "/v1/accounts", { body: { app: "github", auth: { token: "t" } } });
    const sub = await api.call("POST", "/v1/subscriptions", {
      query: { emitter_id: source.body.data.id, listener_id: hook.body.data.id },
    });
    const other = await api.hookline.workspaces.create({ name: "other" });
    const { key } = await api.hookline.apiKeys.create(other.id);
    const wh = hook.body.data.id;
    const dc = source.body.data.id;
    const calls: [string, string, Record<string, unknown>?][] = [
      ["GET", `/v1/webhooks/${wh}`],
      ["PATCH", `/v1/webhooks/${wh}`, { name: "x" }],
      ["DELETE", `/v1/webhooks/${wh}`],
      ["GET", `/v1/webhooks/${wh}/secret`],
      ["POST", `/v1/webhooks/${wh}/secret/rotate`],
      ["GET", `/v1/webhooks/${wh}/deliveries`],
      ["POST", `/v1/webhooks/${wh}/recover`, { since: 0 }],
      ["POST", `/v1/webhooks/${wh}/deliveries/purge`],
      ["DELETE", `/v1/subscriptions/${sub.body.data.id}`],
      ["GET", `/v1/sources/${dc}`],
      ["PUT", `/v1/sources/${dc}`, { name: "x" }],
      ["DELETE", `/v1/sources/${dc}`],
      ["POST", `/v1/sources/${dc}/run`],
      ["GET", `/v1/sources/${dc}/event_summaries`],
      ["DELETE", `/v1/sources/${dc}/events`],
      ["GET", `/v1/sources/${dc}/logs`],
      ["GET", `/v1/sources/${dc}/sse`],
      ["GET", `/v1/components/${source.body.data.component_id}`],
      ["GET", `/v1/accounts/${account.body.data.id}`],
      ["DELETE", `/v1/accounts/${account.body.data.id}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await api.call(method, path, { key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code, `${method} ${path}`).toBe("not_found");
    }
    const subDelete = await api.call("DELETE", "/v1/subscriptions", {
      key,
      query: { emitter_id: dc, listener_id: wh },
    });
    expect(subDelete.status).toBe(404);
    const listed = await api.call("GET", "/v1/subscriptions", { key });
    expect(listed.body.data).toEqual([]);
    // Still there for their owner.
    expect((await api.call("GET", `/v1/webhooks/${wh}`)).status).toBe(200);
  });

  it("webhooks: list, read, change, secret rotation, delete; errors with exact codes", async () => {
    const created = await api.call("POST", "/v1/webhooks", {
      body: { url: "https://example.com/w", name: "w" },
    });
    const id = created.body.data.id as string;
    const list = await api.call("GET", "/v1/webhooks", { query: { limit: "1" } });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.page_info).toMatchObject({ count: 1, total_count: expect.any(Number) });
    const patched = await api.call("PATCH", `/v1/webhooks/${id}`, {
      body: { active: false, description: "d" },
    });
    expect(patched.body.data).toMatchObject({ active: false, description: "d" });
    const before = await api.call("GET", `/v1/webhooks/${id}/secret`);
    expect(before.body.data.secret).toMatch(/^whsec_/);
    const rotated = await api.call("POST", `/v1/webhooks/${id}/secret/rotate`);
    expect(rotated.body.data.secret).not.toBe(before.body.data.secret);
    expect((await api.call("GET", `/v1/webhooks/${id}/secret`)).body.data.secret).toBe(
      rotated.body.data.secret,
    );
    expect((await api.call("GET", `/v1/webhooks/${id}/deliveries`)).body).toEqual({
      data: [],
      page_info: { count: 0, start_cursor: null, end_cursor: null },
    });
    expect((await api.call("DELETE", `/v1/webhooks/${id}`)).body).toEqual({ data: { deleted: true } });
    expect((await api.call("GET", `/v1/webhooks/${id}`)).status).toBe(404);
    const missing = await api.call("POST", "/v1/webhooks", { body: { name: "no url" } });
    expect([missing.status, missing.body.error.code]).toEqual([422, "validation_failed"]);
    const ftp = await api.call("POST", "/v1/webhooks", { query: { url: "ftp://example.com" } });
    expect([ftp.status, ftp.body.error.code]).toEqual([422, "invalid_url"]);
    const conflict = await api.call("POST", "/v1/webhooks", {
      query: { url: "https://a.example" },
      body: { url: "https://b.example" },
    });
    expect([conflict.status, conflict.body.error.code]).toEqual([400, "conflicting_parameter"]);
    const retry = await api.call("POST", `/v1/webhooks/${created.body.data.id}/deliveries/dlv_nope/retry`);
    expect(retry.status).toBe(404);
  });

  it("subscriptions: idempotent create, list, delete; unknown emitter or listener is 404", async () => {
    const hook = await api.call("POST", "/v1/webhooks", { query: { url: "https://example.com/s" } });
    const source = await api.call("POST", "/v1/sources", { body: { component_code: HTTP_SOURCE } });
    const query = { emitter_id: source.body.data.id, listener_id: hook.body.data.id, event_name: "paid" };
    const first = await api.call("POST", "/v1/subscriptions", { query });
    const again = await api.call("POST", "/v1/subscriptions", { query });
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(first.body.data.event_name).toBe("paid");
    const listed = await api.call("GET", "/v1/subscriptions", { query: { emitter_id: source.body.data.id } });
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([first.body.data.id]);
    expect((await api.call("DELETE", "/v1/subscriptions", { query })).body).toEqual({
      data: { deleted: true },
    });
    expect((await api.call("DELETE", "/v1/subscriptions", { query })).status).toBe(404);
    for (const bad of [
      { emitter_id: "dc_nope", listener_id: hook.body.data.id },
      { emitter_id: source.body.data.id, listener_id: "wh_nope" },
    ]) {
      const res = await api.call("POST", "/v1/subscriptions", { query: bad });
      expect([res.status, res.body.error.code]).toEqual([404, "not_found"]);
    }
    const missing = await api.call("POST", "/v1/subscriptions", { query: { emitter_id: "x" } });
    expect([missing.status, missing.body.error.code]).toEqual([422, "validation_failed"]);
  });

  it("components and sources: save, deploy, update, run, events, logs, delete", async () => {
    const component = await api.call("POST", "/v1/components", {
      body: {
        component_code: `export default { name: "Ticker", version: "0.2.0", props: { n: { type: "integer", min: 1 } }, run(e) { console.log("n=" + this.n); this.$emit({ n: this.n }, { summary: "n is " + this.n }); } };`,
      },
    });
    expect(component.status).toBe(200);
    expect(component.body.data).toMatchObject({
      id: expect.stringMatching(/^sc_/),
      name: "Ticker",
      version: "0.2.0",
      configurable_props: [{ name: "n", type: "integer", min: 1 }],
    });
    expect((await api.call("GET", `/v1/components/${component.body.data.id}`)).body.data.id).toBe(
      component.body.data.id,
    );
    const invalid = await api.call("POST", "/v1/sources", {
      body: { component_id: component.body.data.id, configured_props: { n: 0 } },
    });
    expect([invalid.status, invalid.body.error.code]).toEqual([422, "invalid_prop_value"]);
    const source = await api.call("POST", "/v1/sources", {
      body: { component_id: component.body.data.id, configured_props: { n: 2 } },
    });
    expect(source.body.data).toMatchObject({
      name: "Ticker",
      name_slug: "ticker",
      active: true,
      configured_props: { n: 2 },
    });
    const id = source.body.data.id as string;
    const run = await api.call("POST", `/v1/sources/${id}/run`);
    expect(run.body.data.emitted[0]).toMatchObject({
      event: { n: 2 },
      metadata: { summary: "n is 2", emitter_id: id, name: "default" },
    });
    const updated = await api.call("PUT", `/v1/sources/${id}`, {
      body: { configured_props: { n: 3 }, name: "Ticker Two" },
    });
    expect(updated.body.data).toMatchObject({
      name: "Ticker Two",
      name_slug: "ticker-two",
      configured_props: { n: 3 },
    });
    await api.call("POST", `/v1/sources/${id}/run`);
    const events = await api.call("GET", `/v1/sources/${id}/event_summaries`, {
      query: { expand: "event", limit: "1" },
    });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toMatchObject({ event: { n: 3 }, indexed_at_ms: expect.any(Number) });
    const next = await api.call("GET", `/v1/sources/${id}/event_summaries`, {
      query: { after: events.body.page_info.end_cursor },
    });
    expect(next.body.data.map((e: { event?: unknown }) => e.event)).toEqual([undefined]);
    const logs = await api.call("GET", `/v1/sources/${id}/logs`);
    expect(logs.body.data.map((l: { message: string }) => l.message)).toEqual(["n=2", "n=3"]);
    expect((await api.call("DELETE", `/v1/sources/${id}/events`)).body.data.deleted).toBe(2);
    expect((await api.call("GET", "/v1/sources")).body.data.some((s: { id: string }) => s.id === id)).toBe(
      true,
    );
    expect((await api.call("DELETE", `/v1/sources/${id}`)).body.data).toEqual({
      deleted: true,
      warnings: [],
    });
    expect((await api.call("GET", `/v1/sources/${id}`)).status).toBe(404);
    const bad = await api.call("POST", "/v1/components", {
      body: { component_code: "export default { name: 1 }" },
    });
    expect([bad.status, bad.body.error.code]).toEqual([422, "invalid_component"]);
  });

  it("async options and reload_props", async () => {
    const component = await api.call("POST", "/v1/components", {
      body: {
        component_code: `export default { name: "Opts", version: "0.1.0", props: {
          color: { type: "string", async options({ page }) { return page ? [] : ["red", "blue"]; } },
          mode: { type: "string", reloadProps: true, options: ["a", "b"] } },
          additionalProps() { return this.mode === "b" ? { extra: { type: "integer" } } : {}; },
          run() {} };`,
      },
    });
    const id = component.body.data.id;
    const opts = await api.call("POST", `/v1/components/${id}/props/color/options`, { body: { page: 0 } });
    expect(opts.body.data).toEqual({ options: ["red", "blue"] });
    const reload = await api.call("POST", `/v1/components/${id}/reload_props`, {
      body: { configured_props: { mode: "b" } },
    });
    expect(reload.body.data.configurable_props.map((p: { name: string }) => p.name)).toEqual([
      "color",
      "mode",
      "extra",
    ]);
    expect((await api.call("POST", `/v1/components/${id}/props/nope/options`)).status).toBe(404);
  });

  it("connected accounts never return credentials; in use is 409", async () => {
    const created = await api.call("POST", "/v1/accounts", {
      body: { app: "slack", name: "team", auth: { token: "xoxb-secret" } },
    });
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^apn_/),
      app: "slack",
      name: "team",
      oauth: false,
      status: "active",
      external_user_id: null,
      expires_at: null,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect(JSON.stringify((await api.call("GET", "/v1/accounts")).body)).not.toContain("xoxb-secret");
    const app = `export default { name: "Uses Slack", version: "0.1.0", props: { slack: { type: "app", app: "slack" } }, run() { this.$emit({ t: this.slack.$auth.token }); } };`;
    const source = await api.call("POST", "/v1/sources", {
      body: { component_code: app, configured_props: { slack: { authProvisionId: created.body.data.id } } },
    });
    expect(source.status).toBe(200);
    const run = await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
    expect(run.body.data.emitted[0].event).toEqual({ t: "xoxb-secret" });
    const inUse = await api.call("DELETE", `/v1/accounts/${created.body.data.id}`);
    expect([inUse.status, inUse.body.error.code]).toEqual([409, "account_in_use"]);
    await api.call("DELETE", `/v1/sources/${source.body.data.id}`);
    expect((await api.call("DELETE", `/v1/accounts/${created.body.data.id}`)).status).toBe(200);
  });

  it("edges: unknown route 404, wrong method 405, malformed JSON 400, request ids", async () => {
    const unknown = await api.call("GET", "/v1/nothing");
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "route_not_found"]);
    const wrong = await api.call("PUT", "/v1/webhooks");
    expect([wrong.status, wrong.body.error.code, wrong.headers.get("allow")]).toEqual([
      405,
      "method_not_allowed",
      "POST, GET",
    ]);
    const malformed = await api.raw("/v1/webhooks", {
      method: "POST",
      headers: { authorization: `Bearer ${api.key}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
    expect(malformed.headers.get("x-request-id")).toMatch(/^req_/);
    const echoed = await api.call("GET", "/v1/webhooks", { headers: { "x-request-id": "my-id" } });
    expect(echoed.headers.get("x-request-id")).toBe("my-id");
  });
});

describe.each(MODES)("limits through %s", (mode) => {
  it("413 over the body limit, 429 with Retry-After over the rate limit, CORS when configured", async () => {
    const api = await startApi(mode, {
      handler: {
        bodyLimit: 100,
        rateLimit: { requests: 3, windowMs: 60_000 },
        cors: { origin: "https://app.example" },
      },
    });
    const big = await api.call("POST", "/v1/webhooks", {
      body: { url: "https://example.com", description: "x".repeat(200) },
    });
    expect([big.status, big.body.error.code]).toEqual([413, "payload_too_large"]);
    await api.call("GET", "/v1/webhooks");
    await api.call("GET", "/v1/webhooks");
    const limited = await api.call("GET", "/v1/webhooks");
    expect([limited.status, limited.body.error.code]).toEqual([429, "rate_limited"]);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const preflight = await api.raw("/v1/webhooks", {
      method: "OPTIONS",
      headers: { origin: "https://app.example" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    await api.close();
  });
});
