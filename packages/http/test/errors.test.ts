// Errors become API errors in one place (src/_errors.ts): every StoreError code maps to a
// documented error, bad input in a path id is a 400 naming the parameter on every route, and
// nothing internal (a stack, a file:line) reaches a client.
import { ERROR_CODES, HooklineError } from "@hookline/core";
import { createMemoryStore, type Store, StoreError, type StoreErrorCode } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toApiError } from "../src/_errors.js";
import { ROUTES } from "../src/index.js";
import { type Api, startApi } from "./_harness.js";
import { expectActionableError } from "./_messages.js";

const STORE_CODES: Record<StoreErrorCode, [string, number]> = {
  not_found: ["not_found", 404],
  conflict: ["conflict", 409],
  invalid: ["bad_request", 400],
  closed: ["service_unavailable", 503],
};

/** A memory store whose `webhooks.list` throws what `failure.next` holds (once). */
function faultyStore(failure: { next?: unknown }): Store {
  const store = createMemoryStore();
  const list = store.webhooks.list.bind(store.webhooks);
  store.webhooks.list = async (...args: Parameters<typeof list>) => {
    const error = failure.next;
    failure.next = undefined;
    if (error) throw error;
    return list(...args);
  };
  return store;
}

describe("the one error mapping", () => {
  const failure: { next?: unknown } = {};
  const reported: unknown[] = [];
  let api: Api;
  beforeAll(async () => {
    api = await startApi("fetch", {
      engine: { store: faultyStore(failure) },
      handler: { onError: (error) => reported.push(error) },
    });
  });
  afterAll(() => api.close());

  it.each(Object.entries(STORE_CODES))(
    "answers StoreError(%s) with its documented API error",
    async (storeCode, [code, status]) => {
      failure.next = new StoreError(storeCode as StoreErrorCode, `store says ${storeCode}`);
      const res = await api.call("GET", "/v1/webhooks");
      expect([res.status, res.body.error.code]).toEqual([status, code]);
      expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toBe(status);
      expect(res.body.error.message).toBe(`store says ${storeCode}`);
    },
  );

  it("answers an unexpected error 500 internal_error naming only the request, and reports it", async () => {
    failure.next = new Error("boom\n    at secret (/srv/hookline/packages/store/src/memory.ts:10:5)");
    const res = await api.call("GET", "/v1/webhooks", { headers: { "x-request-id": "req_test" } });
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ code: "internal_error", message: "Internal error (request req_test)" });
    expect(reported).toHaveLength(1);
  });

  it("keeps stack frames and Hookline's sandbox frames out of Hookline errors", () => {
    const error = new HooklineError(
      "bad_request",
      "boom\n    at options (component.mjs:1:105)\n    at <anonymous> (<input>:59:41)",
      {
        error: {
          stack:
            "    at options (component.mjs:1:105)\n    at call (native)\n    at <anonymous> (<input>:59:41)\n",
        },
      },
    );
    const mapped = toApiError(error);
    expect(mapped?.message).toBe("boom");
    expect(mapped?.details).toEqual({ error: { stack: "    at options (component.mjs:1:105)\n" } });
    expect(toApiError(new Error("plain"))).toBeUndefined();
  });
});

describe("path ids", () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi("fetch");
  });
  afterAll(() => api.close());

  const withIds = ROUTES.filter((r) => r.path.includes("{"));

  it.each(withIds.map((r) => [r.method, r.path]))(
    "%s %s: broken percent-encoding or NUL in an id is a 400 naming the parameter",
    async (method, path) => {
      for (const [segment, why] of [
        ["%ZZ", "is not valid percent-encoding"],
        ["%E0%A4%A", "is not valid percent-encoding"],
        ["a%00b", "must not contain NUL"],
      ] as const) {
        const name = /\{(\w+)\}/.exec(path)?.[1] as string;
        const url = path.replace(`{${name}}`, segment).replace(/\{\w+\}/g, "x");
        const res = await api.call(method, url, method === "GET" || method === "DELETE" ? {} : { body: {} });
        expect([res.status, res.body.error.code], `${method} ${url}`).toEqual([400, "bad_request"]);
        expect(res.body.error.message).toContain(`${name} ${why}`);
        expectActionableError(res.body.error, `${method} ${url}`);
      }
    },
  );

  it("a bad id in the HTTP interface path is a 400, not a 500", async () => {
    const res = await api.raw("/http/%ZZ", { method: "POST", body: "{}" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("bad_request");
  });
});

describe("validation messages a person can act on", () => {
  let api: Api;
  let webhook: string;
  let source: string;
  beforeAll(async () => {
    api = await startApi("fetch");
    webhook = (await api.call("POST", "/v1/webhooks", { body: { url: "https://example.com/v" } })).body.data
      .id;
    source = (
      await api.call("POST", "/v1/sources", {
        body: { component_code: `export default { name: "V", version: "0.1.0", props: {}, run() {} };` },
      })
    ).body.data.id;
  });
  afterAll(() => api.close());

  const schemaOf = (method: string, path: string) =>
    ROUTES.find((r) => r.method === method && r.path === path)?.params;

  it.each([
    [
      "GET",
      "/v1/webhooks/{id}/deliveries",
      { status: "bogus" },
      'status must be one of "pending", "paused", "delivering", "succeeded", "failed"; got "bogus"',
    ],
    [
      "GET",
      "/v1/webhooks/{id}/deliveries",
      { status: "a\u0000b" },
      'status must be one of "pending", "paused", "delivering", "succeeded", "failed"; it must not contain NUL',
    ],
    ["POST", "/v1/webhooks", { name: "no url" }, "url is required"],
    ["GET", "/v1/webhooks", { limit: "1000" }, "limit must be at most 100; got 1000"],
    ["GET", "/v1/webhooks", { limit: "abc" }, 'limit must be an integer; got "abc"'],
    [
      "GET",
      "/v1/sources/{id}/event_summaries",
      { after: "abc" },
      'after must be the end_cursor of a previous page (digits); got "abc"',
    ],
    ["GET", "/v1/sources/{id}/event_summaries", { expand: "all" }, 'expand must be "event"; got "all"'],
    [
      "POST",
      "/v1/webhooks/{id}/recover",
      { since: "yesterday" },
      "since must be epoch seconds or an ISO 8601 date such as 2026-01-31T12:00:00Z",
    ],
    [
      "POST",
      "/v1/webhooks",
      { url: "https://e.test", name: "x".repeat(201) },
      "name must be at most 200 characters",
    ],
    [
      "POST",
      "/v1/webhooks",
      { url: "https://e.test", name: "a\u0000b" },
      "name must not contain NUL (U+0000)",
    ],
    [
      "POST",
      "/v1/accounts",
      { app: "Git Hub", auth: {} },
      "app must be an app's name slug: lowercase letters, digits and _ (such as github)",
    ],
  ] as const)("%s %s %j: %s", async (method, path, params, message) => {
    const url = path.replace("{id}", path.startsWith("/v1/webhooks") ? webhook : source);
    const res =
      method === "GET"
        ? await api.call(method, url, { query: params as Record<string, string> })
        : await api.call(method, url, { body: params });
    expect([res.status, res.body.error.code]).toEqual([422, "validation_failed"]);
    expect(res.body.error.message).toContain(message);
    expectActionableError(res.body.error, `${method} ${path}`, schemaOf(method, path));
  });

  // TypeBox lists at most a few errors, so a value failing every member of a five-value union
  // twice over (type and const) used to lose the union's own error and name only the first member.
  it("a repeated enum parameter names every allowed value", async () => {
    const path = "/v1/webhooks/{id}/deliveries";
    const res = await api.call("GET", `/v1/webhooks/${webhook}/deliveries?status=%5B%5D&status=%ZZ`);
    expect([res.status, res.body.error.code]).toEqual([422, "validation_failed"]);
    expect(res.body.error.message).toContain(
      'status must be one of "pending", "paused", "delivering", "succeeded", "failed"; got ["[]","%ZZ"]',
    );
    expectActionableError(res.body.error, `GET ${path}`, schemaOf("GET", path));
  });
});
