import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/index.js";
import { type Api, startApi } from "./_harness.js";

// Random query strings, bodies and headers at every write route: the API answers with a
// documented 4xx (or a 2xx) and never a 500, and the process does not crash.
describe("write routes under random input", () => {
  let api: Api;
  let ids: Record<string, string>;
  beforeAll(async () => {
    api = await startApi("fetch", { handler: { rateLimit: false } });
    const hook = await api.call("POST", "/v1/webhooks", { query: { url: "https://example.com/f" } });
    const source = await api.call("POST", "/v1/sources", {
      body: {
        component_code: `export default { name: "F", version: "0.1.0", props: { n: { type: "integer", optional: true } }, run() {} };`,
      },
    });
    ids = { id: source.body.data.id, delivery_id: "dlv_x", prop: "n" };
    ids.webhook = hook.body.data.id;
  });
  afterAll(() => api.close());

  const writes = ROUTES.filter((r) => r.method !== "GET");
  const value = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 3 }),
  );
  const fields = fc.dictionary(
    fc.oneof(
      fc.constantFrom(
        "url",
        "name",
        "description",
        "active",
        "emitter_id",
        "listener_id",
        "event_name",
        "component_code",
        "component_id",
        "configured_props",
        "app",
        "auth",
        "since",
        "until",
        "limit",
        "page",
        "query",
        "ids",
        "event",
      ),
      fc.string({ maxLength: 8 }),
    ),
    value,
    { maxKeys: 5 },
  );

  it("never answers 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writes),
        fields,
        fields,
        fc.oneof(fc.constant("application/json"), fc.constant("text/plain"), fc.string({ maxLength: 20 })),
        fc.oneof(fc.constant(undefined), fc.string({ maxLength: 40 })),
        async (route, query, body, contentType, rawBody) => {
          const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
            name === "id" && route.path.startsWith("/v1/webhooks")
              ? (ids.webhook as string)
              : (ids[name] ?? "x"),
          );
          const url = new URL(path, "http://hookline.test");
          for (const [k, v] of Object.entries(query))
            url.searchParams.set(k, typeof v === "string" ? v : JSON.stringify(v));
          const headers = new Headers({ authorization: `Bearer ${api.key}` });
          try {
            headers.set("content-type", contentType);
          } catch {
            // not a valid header value: send none
          }
          const res = await api.raw(url.pathname + url.search, {
            method: route.method,
            headers,
            ...(route.method === "DELETE" ? {} : { body: rawBody ?? JSON.stringify(body) }),
          });
          expect(res.status, `${route.method} ${url.pathname}`).not.toBe(500);
          expect(res.status).toBeLessThan(500);
          await res.arrayBuffer();
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);
});
