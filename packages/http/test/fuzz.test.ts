import { ERROR_CODES } from "@hookline/core";
import type { Store } from "@hookline/store";
import { createMemoryStore } from "@hookline/store";
import { createSqlStore, pgliteClient } from "@hookline/store-sql";
import fc from "fast-check";
import type { TSchema } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";
import type { Route } from "../src/_define.js";
import { ROUTES } from "../src/index.js";
import { type Api, startApi } from "./_harness.js";
import { expectActionableError } from "./_messages.js";

const COMPONENT = `export default {
  name: "Fuzz", version: "0.1.0",
  props: {
    http: "$.interface.http",
    n: { type: "integer", optional: true, min: 1, max: 10 },
    color: { type: "string", optional: true, async options() { return ["red", "blue"]; } },
  },
  run() { this.$emit({ ok: true }, { summary: "ok" }); },
};`;

/** Text a store may not hold, broken encodings, and sizes past every limit. */
const HOSTILE_TEXT = [
  "\u0000",
  "a\u0000b",
  "\uD800",
  "x\uDFFFy",
  "%ZZ",
  "%",
  "%E0%A4%A",
  "../..",
  "\u{1F600}",
  " ",
  "",
  "null",
  "-1",
  "1e309",
  "abc",
  "0",
  "99999999999999999999",
  "x".repeat(3000),
  // Names every object inherits: a lookup by a field's value must not find them.
  "__proto__",
  "constructor",
  "toString",
  "valueOf",
];

/** Path segments: hostile raw encodings, sent as they are. */
const HOSTILE_SEGMENTS = [
  "%ZZ",
  "%",
  "%E0%A4%A",
  "%00",
  "a%00b",
  "%ED%A0%80",
  "%C0%AF",
  "%FF",
  "a%2Fb",
  "x".repeat(5000),
  "%2e%2e",
  "%20",
  "dc_%00",
];

/** The seed CI runs with. */
const FUZZ_SEED = 20261129;
const seedSetting = process.env.HOOKLINE_FUZZ_SEED;
const SEED =
  seedSetting === "random"
    ? Math.floor(Math.random() * 2 ** 31)
    : seedSetting
      ? Number(seedSetting)
      : FUZZ_SEED;
const REPLAY_PATH = process.env.HOOKLINE_FUZZ_PATH;

/**
 * Values that break code calling their methods or trusting their keys: the names every object
 * inherits, and objects with them as own properties (`__proto__` included: JSON.parse makes them
 * own, as a request body does).
 */
const HOSTILE_OBJECTS: unknown[] = [
  '"__proto__"',
  '"constructor"',
  '"toString"',
  '{"toString":""}',
  '{"valueOf":""}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"__proto__":{"toString":"","polluted":true}}',
  '{"toString":{},"valueOf":1,"constructor":"x","__proto__":{"valueOf":""},"hasOwnProperty":""}',
].map((text) => JSON.parse(text));

/** encodeURIComponent that cannot throw (a lone surrogate becomes broken UTF-8 on purpose). */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return "%ED%A0%80";
  }
}

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  text,
  fc.constantFrom(...HOSTILE_OBJECTS),
  fc.constantFrom(...HOSTILE_OBJECTS).map((o) => [o]),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(text, text, { maxKeys: 3 }),
);
const FIELDS = [
  "url",
  "name",
  "description",
  "active",
  "emitter_id",
  "listener_id",
  "event_name",
  "component_code",
  "component_id",
  "component_key",
  "component_version",
  "component_url",
  "configured_props",
  "previous_props",
  "visibility",
  "all_versions",
  "version",
  "app",
  "auth",
  "since",
  "until",
  "limit",
  "after",
  "expand",
  "status",
  "page",
  "prevContext",
  "query",
  "ids",
  "event",
  "filename",
  "workspace_id",
  "role",
];
const fieldName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 1, arbitrary: text },
);
const fields = fc.dictionary(fieldName, value, { maxKeys: 4 });
/** A query value: well encoded, or a raw hostile encoding. */
const queryValue = fc.oneof(
  value.map((v) => encode(typeof v === "string" ? v : (JSON.stringify(v) ?? ""))),
  fc.constantFrom(...HOSTILE_SEGMENTS),
);
const query = fc.array(fc.tuple(fieldName.map(encode), queryValue), { maxLength: 4 });

/** The resources the routes' path parameters name, recreated after a route deletes one. */
interface Fixtures {
  webhook: string;
  source: string;
  endpoint: string;
  component: string;
  account: string;
  subscription: string;
  /** A workspace and a key of it that the operator routes may revoke. */
  workspace: string;
  apiKey: string;
}

async function createFixtures(api: Api): Promise<Fixtures> {
  const ok = async (method: string, path: string, body: unknown, key = api.key) => {
    const res = await api.call(method, path, { body, key });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };
  // Loopback, where nothing listens: deliveries and test events (POST .../test) stay on this machine.
  const webhook = await ok("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/fuzz" });
  const component = await ok("POST", "/v1/components", { component_code: COMPONENT });
  const source = await ok("POST", "/v1/sources", { component_id: component.id });
  const account = await ok("POST", "/v1/accounts", { app: "github", auth: { token: "t" } });
  const subscription = await ok("POST", "/v1/subscriptions", {
    emitter_id: source.id,
    listener_id: webhook.id,
  });
  const workspace = await ok("POST", "/v1/workspaces", { name: "fuzz" }, api.operatorKey);
  const apiKey = await ok("POST", "/v1/api_keys", { workspace_id: workspace.id }, api.operatorKey);
  return {
    workspace: workspace.id,
    apiKey: apiKey.id,
    webhook: webhook.id,
    source: source.id,
    endpoint: new URL(source.endpoint_url).pathname.split("/")[2] as string,
    component: component.id,
    account: account.id,
    subscription: subscription.id,
  };
}

/** The valid value of a path parameter of `path`. */
function validParam(path: string, name: string, f: Fixtures): string {
  if (name === "delivery_id") return "dlv_0";
  if (name === "prop") return "color";
  if (name === "key") return "fuzz";
  if (name === "endpoint_id") return f.endpoint;
  if (path.startsWith("/v1/webhooks")) return f.webhook;
  if (path.startsWith("/v1/sources")) return f.source;
  if (path.startsWith("/v1/components")) return f.component;
  if (path.startsWith("/v1/accounts")) return f.account;
  if (path.startsWith("/v1/workspaces")) return f.workspace;
  if (path.startsWith("/v1/api_keys")) return f.apiKey;
  return f.subscription;
}

/** Every route: the REST routes, the OpenAPI document and the HTTP interface. */
const ALL_ROUTES: { method: string; path: string; params?: TSchema; auth?: Route["auth"] }[] = [
  ...ROUTES.map((r) => ({
    method: r.method,
    path: r.path,
    ...(r.params ? { params: r.params } : {}),
    ...(r.auth === undefined ? {} : { auth: r.auth }),
  })),
  { method: "GET", path: "/v1/openapi.json" },
  { method: "POST", path: "/http/{endpoint_id}" },
  { method: "GET", path: "/http/{endpoint_id}/sub/path" },
];

/**
 * The stores, and the hostile values each sweeps every field with: all of them on memory; on
 * PGlite (slower per request) those that reach SQL differently (a name as text, the object with
 * every inherited name as an own key, an own `__proto__`).
 */
const STORES: {
  name: string;
  open(): Promise<{ store: Store; close(): Promise<void> }>;
  sweep: unknown[];
}[] = [
  {
    name: "memory",
    open: async () => ({ store: createMemoryStore(), close: async () => undefined }),
    sweep: HOSTILE_OBJECTS,
  },
  {
    name: "PGlite",
    async open() {
      const db = await freshPglite();
      const store = await createSqlStore(pgliteClient(db));
      return { store, close: () => db.close() };
    },
    sweep: HOSTILE_OBJECTS.filter((_, i) => i === 0 || i === 6 || i === 7),
  },
];

describe.each(STORES)("every route under hostile input ($name store)", ({ open, sweep }) => {
  let api: Api;
  let fixtures: Fixtures;
  let closeStore: () => Promise<void>;
  const unexpected: string[] = [];
  beforeAll(async () => {
    const opened = await open();
    closeStore = opened.close;
    api = await startApi("fetch", {
      engine: { store: opened.store, worker: false },
      handler: { rateLimit: false, ingressRateLimit: false, onError: (e) => unexpected.push(String(e)) },
    });
    fixtures = await createFixtures(api);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await closeStore();
  });

  /** Sends one request and checks the answer: below 500, and an error documented and actionable. */
  async function check(
    route: { path: string; auth?: Route["auth"] },
    method: string,
    path: string,
    search: string,
    init: { headers?: Headers; body?: string },
  ): Promise<void> {
    const headers = init.headers ?? new Headers({ authorization: `Bearer ${keyFor(route)}` });
    const res = await api.raw(`${path}${search ? `?${search}` : ""}`, {
      method,
      headers,
      ...(method === "GET" || method === "DELETE" || init.body === undefined ? {} : { body: init.body }),
    });
    const where = `${method} ${path.slice(0, 120)}?${search.slice(0, 200)} ${(init.body ?? "").slice(0, 200)}`;
    expect(res.status, where).toBeLessThan(500);
    if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
      await res.body?.cancel();
      return;
    }
    const text = await res.text();
    if (method === "DELETE" && res.status < 300) fixtures = await createFixtures(api);
    if (res.status < 400 || path.startsWith("/http/")) return;
    const { error } = JSON.parse(text) as {
      error: { code: string; message: string; details?: unknown };
    };
    expect(Object.keys(ERROR_CODES), where).toContain(error.code);
    expect(ERROR_CODES[error.code as keyof typeof ERROR_CODES], where).toBe(res.status);
    expect(error.message, where).not.toMatch(/\n\s+at |<input>:\d+|\.[jt]s:\d+/);
    const schema = ALL_ROUTES.find((r) => r.method === method && r.path === route.path)?.params;
    expectActionableError(error, where, schema);
  }

  /** The key a route is called with: an operator key on the operator's routes. */
  const keyFor = (route: { auth?: Route["auth"] }) => (route.auth === "operator" ? api.operatorKey : api.key);

  /** A route's path with its parameters' valid values. */
  const validPath = (route: { path: string }) =>
    route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encode(validParam(route.path, name, fixtures)));

  it(
    "never answers 500, and every error is documented, actionable and leaks no stack",
    async () => {
      await fc
        .assert(
          fc.asyncProperty(
            fc.constantFrom(...ALL_ROUTES),
            fc.option(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"), { freq: 8 }),
            fc.array(
              fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, fc.constantFrom(...HOSTILE_SEGMENTS)),
            ),
            query,
            fields,
            fc.oneof(
              fc.constant("application/json"),
              fc.constant("text/plain"),
              fc.string({ maxLength: 20 }),
            ),
            fc.oneof(
              { weight: 4, arbitrary: fc.constant(undefined) },
              fc.string({ maxLength: 40 }),
              fc.constantFrom(
                "{",
                "[]",
                "null",
                '"x"',
                '{"a":1}{',
                "\u0000",
                `{"name":"${"x".repeat(3000)}"}`,
              ),
            ),
            fc.option(fc.oneof(text, fc.constantFrom("", "x".repeat(300), "fuzz-key", "é", "a\nb")), {
              freq: 3,
            }),
            async (route, otherMethod, segments, q, body, contentType, rawBody, idempotencyKey) => {
              const method = otherMethod ?? route.method;
              let i = 0;
              const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
                const hostile = segments[i++];
                return hostile ?? encode(validParam(route.path, name, fixtures));
              });
              const search = q.map(([k, v]) => `${k}=${v}`).join("&");
              const headers = new Headers({ authorization: `Bearer ${keyFor(route)}`, "last-event-id": "1" });
              for (const [name, value] of [
                ["content-type", contentType],
                ["idempotency-key", idempotencyKey],
              ] as const) {
                try {
                  if (value !== null) headers.set(name, value);
                } catch {
                  // not a valid header value: send none
                }
              }
              await check(route, method, path, search, { headers, body: rawBody ?? JSON.stringify(body) });
            },
          ),
          {
            numRuns: Number(process.env.HOOKLINE_FUZZ_RUNS ?? 250),
            seed: SEED,
            ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}),
          },
        )
        .catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          const path = /path: "([^"]*)"/.exec(message)?.[1];
          throw new Error(
            `fuzz failed with HOOKLINE_FUZZ_SEED=${SEED}${path ? ` HOOKLINE_FUZZ_PATH=${path}` : ""} (set them to replay)\n${message}`,
          );
        });
      expect(unexpected).toEqual([]);
    },
    process.env.HOOKLINE_FUZZ_RUNS ? 3_600_000 : 180_000,
  );

  it("an object with its own toString, valueOf, __proto__ or constructor in any field of any route is a 4xx or a 2xx", async () => {
    // Every failure is listed, not only the first.
    const failures: string[] = [];
    const soft = (request: Promise<void>) =>
      request.catch((error: unknown) => {
        failures.push(error instanceof Error ? error.message.split("\n")[0]! : String(error));
      });
    for (const route of ALL_ROUTES) {
      for (const at of fieldPaths(route.params)) {
        for (const hostile of sweep) {
          const body = JSON.stringify(bodyWith(at, hostile));
          await soft(check(route, route.method, validPath(route), "", { body }));
        }
        // The same field in the query too (as text): the two are compared, never called.
        const search = `${encodeURIComponent(at[0] as string)}=x`;
        const body = JSON.stringify(bodyWith(at, HOSTILE_OBJECTS[3])); // {"toString":""}
        await soft(check(route, route.method, validPath(route), search, { body }));
      }
    }
    expect(failures).toEqual([]);
    // Nothing reached the prototypes of this process.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(unexpected).toEqual([]);
  }, 120_000);
});

/**
 * The fields of a route's parameters: each property, and each property of an object property (an
 * array's items counted as its first item), as paths.
 */
function fieldPaths(schema: TSchema | undefined, depth = 1): string[][] {
  const out: string[][] = [];
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    out.push([name]);
    if (depth === 0) continue;
    const items = (property as { type?: string; items?: TSchema }).type === "array";
    const inner = items ? (property as { items?: TSchema }).items : property;
    for (const path of fieldPaths(inner, depth - 1)) out.push([name, ...(items ? ["0"] : []), ...path]);
  }
  return out;
}

/** A body with `value` at `path` (an index makes an array). */
function bodyWith(path: string[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  const inner = bodyWith(rest, value);
  if (/^\d+$/.test(head)) return [inner];
  return JSON.parse(`{${JSON.stringify(head)}:${JSON.stringify(inner)}}`);
}
