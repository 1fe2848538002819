// The HTTP caps, each through the handler and a real node:http server: list pages bounded by bytes
// as well as by count, the request body cap on the API and on HTTP endpoints, and the rate limit
// per HTTP endpoint.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenBuckets } from "../src/_limits.js";
import { HANDLER_DEFAULTS } from "../src/index.js";
import { type Api, eventually, MODES, startApi } from "./_harness.js";

/** A source whose run emits `count` events of about `size` bytes each. */
const bigEvents = (count: number, size: number) => `export default {
  name: "Big", version: "0.1.0", props: { http: "$.interface.http" },
  run() { for (let i = 0; i < ${count}; i++) this.$emit({ i, pad: "x".repeat(${size}) }, { summary: "e" + i }); },
};`;

describe.each(MODES)("list pages bounded by bytes through %s", (mode) => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi(mode, { handler: { maxPageBytes: 1_000_000 } });
  });
  afterAll(() => api.close());

  it("stops a page of events before it passes the budget and continues from its end_cursor", async () => {
    const source = await api.call("POST", "/v1/sources", {
      body: { component_code: bigEvents(10, 300_000) },
    });
    const id = source.body.data.id as string;
    expect((await api.call("POST", `/v1/sources/${id}/run`)).status).toBe(200);
    const seen: number[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string> = { limit: "100", expand: "event", ...(after ? { after } : {}) };
      const res = await api.raw(`/v1/sources/${id}/event_summaries?${new URLSearchParams(query)}`, {
        headers: { authorization: `Bearer ${api.key}` },
      });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(text)).toBeLessThan(1_000_000 + 2_000);
      const page = JSON.parse(text) as { data: { event: { i: number } }[]; page_info: any };
      expect(page.data.length).toBe(page.page_info.count);
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((e) => e.event.i));
      after = page.page_info.end_cursor;
      pages++;
    } while (after && pages < 20);
    // Newest first, every event once.
    expect(seen).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(pages).toBe(4);
  });

  it("pages lists ordered by id and log lines the same way", async () => {
    const small = await startApi(mode, { handler: { maxPageBytes: 700 } });
    try {
      const created: string[] = [];
      for (let i = 0; i < 4; i++) {
        const hook = await small.call("POST", "/v1/webhooks", {
          body: { url: `https://example.com/${i}`, description: "d".repeat(500) },
        });
        created.push(hook.body.data.id);
      }
      const ids: string[] = [];
      let after: string | null = null;
      do {
        const res = await small.call("GET", "/v1/webhooks", {
          query: { limit: "100", ...(after ? { after } : {}) },
        });
        expect(res.body.data).toHaveLength(1);
        expect(res.body.page_info.total_count).toBe(4);
        ids.push(...res.body.data.map((w: { id: string }) => w.id));
        after = res.body.page_info.end_cursor;
      } while (after);
      expect(ids).toEqual(created);

      const source = await small.call("POST", "/v1/sources", {
        body: {
          component_code: `export default { name: "Logs", version: "0.1.0", props: {}, run() { for (let i = 0; i < 3; i++) console.log(i + "-" + "l".repeat(400)); } };`,
        },
      });
      await small.call("POST", `/v1/sources/${source.body.data.id}/run`);
      const lines: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await small.call("GET", `/v1/sources/${source.body.data.id}/logs`, {
          query: cursor ? { after: cursor } : {},
        });
        lines.push(...res.body.data.map((l: { message: string }) => l.message.slice(0, 2)));
        cursor = res.body.page_info.end_cursor;
      } while (cursor);
      expect(lines.filter((l) => /^\d-/.test(l))).toEqual(["0-", "1-", "2-"]);
    } finally {
      await small.close();
    }
  });

  it("documents a default of 4 MB", () => {
    expect(HANDLER_DEFAULTS.maxPageBytes).toBe(4 * 1024 * 1024);
  });
});

describe.each(MODES)("body and rate caps of HTTP endpoints through %s", (mode) => {
  let api: Api;
  let endpoint: string;
  let other: string;
  beforeAll(async () => {
    api = await startApi(mode, {
      handler: { bodyLimit: 1000, ingressRateLimit: { perSecond: 0.25, burst: 3 } },
    });
    const code = `export default { name: "In", version: "0.1.0", props: { http: "$.interface.http" }, run(e) { this.$emit(e.body); } };`;
    for (const name of ["a", "b"]) {
      const source = await api.call("POST", "/v1/sources", { body: { component_code: code, name } });
      const path = new URL(source.body.data.endpoint_url).pathname;
      if (name === "a") endpoint = path;
      else other = path;
    }
  });
  afterAll(() => api.close());

  const post = (path: string, body: string | ReadableStream<Uint8Array>) =>
    api.raw(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      ...(typeof body === "string" ? {} : { duplex: "half" }),
    } as RequestInit);

  it("refuses a body over bodyLimit with 413 payload_too_large, declared or streamed", async () => {
    const declared = await post(other, JSON.stringify({ pad: "x".repeat(2000) }));
    expect(declared.status).toBe(413);
    const error = ((await declared.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("payload_too_large");
    expect(error.message).toContain("1000 bytes");
    const chunk = new TextEncoder().encode("x".repeat(600));
    const streamed = await post(
      other,
      new ReadableStream({
        start(controller) {
          controller.enqueue(chunk);
          controller.enqueue(chunk);
          controller.close();
        },
      }),
    );
    expect(streamed.status).toBe(413);
  });

  it("answers 429 rate_limited with Retry-After past the bucket, per endpoint, and refills", {
    timeout: 30_000,
  }, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(endpoint, `{"i":${i}}`)).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[3]).toBe(429);
    const limited = await post(endpoint, "{}");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    // Another endpoint has its own bucket.
    expect((await post(other, "{}")).status).toBe(200);
    // A token comes back every 4 seconds (slow enough that a loaded machine cannot refill one
    // while the first four requests run).
    await eventually(async () => expect((await post(endpoint, "{}")).status).toBe(200), 20_000);
  });
});

describe("token buckets", () => {
  it("allow the burst, then the sustained rate, and say when to retry", () => {
    let now = 0;
    const limiter = tokenBuckets({ perSecond: 10, burst: 20 }, () => now);
    for (let i = 0; i < 20; i++) expect(limiter.take("en_1")).toBeUndefined();
    expect(limiter.take("en_1")).toBe(1);
    now += 100; // one token back
    expect(limiter.take("en_1")).toBeUndefined();
    expect(limiter.take("en_1")).toBe(1);
    expect(limiter.take("en_2")).toBeUndefined();
    now += 60_000;
    for (let i = 0; i < 20; i++) expect(limiter.take("en_1")).toBeUndefined();
    expect(limiter.take("en_1")).toBe(1);
  });

  it("forget refilled buckets once there are many, so random endpoint ids cannot grow memory", () => {
    let now = 0;
    const limiter = tokenBuckets({ perSecond: 1, burst: 1 }, () => now);
    for (let i = 0; i < 10_000; i++) limiter.take(`en_${i}`);
    expect(limiter.size()).toBe(10_000);
    now += 2000;
    limiter.take("en_new");
    expect(limiter.size()).toBe(1);
  });

  it("default to 400 per second with bursts of 2,000 per endpoint, twice that per workspace", () => {
    expect(HANDLER_DEFAULTS.ingressRateLimit).toEqual({ perSecond: 400, burst: 2000 });
    expect(HANDLER_DEFAULTS.workspaceIngressRateLimit).toEqual({ perSecond: 800, burst: 4000 });
  });
});

describe("the per-workspace guard of HTTP endpoints", () => {
  it("refuses a workspace's requests past its bucket, across its endpoints, and leaves other workspaces alone", async () => {
    const api = await startApi("node", {
      handler: { ingressRateLimit: false, workspaceIngressRateLimit: { perSecond: 0.001, burst: 3 } },
    });
    try {
      const code = `export default { name: "In", version: "0.1.0", props: { http: "$.interface.http" }, run(e) { this.$emit(e.body); } };`;
      const endpoints: string[] = [];
      for (const name of ["a", "b"]) {
        const source = await api.call("POST", "/v1/sources", { body: { component_code: code, name } });
        endpoints.push(new URL(source.body.data.endpoint_url).pathname);
      }
      const other = await api.hookline.workspaces.create({ name: "other" });
      const otherSource = await api.hookline.sources.deploy(other.id, { code: { code, filename: "in.mjs" } });
      const post = async (path: string) => (await api.raw(path, { method: "POST", body: "{}" })).status;
      const [a, b] = endpoints as [string, string];
      expect([await post(a), await post(b), await post(a)]).toEqual([200, 200, 200]);
      const refused = await api.raw(b, { method: "POST", body: "{}" });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /^Too many requests to this workspace's HTTP endpoints; retry in \d+ s$/,
      );
      expect(await post(`/http/${otherSource.endpointId}`)).toBe(200);
      // An unknown endpoint is not the workspace's: 404, not 429.
      expect(await post("/http/en_unknown")).toBe(404);
    } finally {
      await api.close();
    }
  });
});
