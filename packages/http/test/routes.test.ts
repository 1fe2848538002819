import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/index.js";
import { type Api, MODES, startApi } from "./_harness.js";

// A sweep over every route the router serves (new routes are covered as they are added): each
// answers 401 with a code without a key, and each route about one resource answers 404
// `not_found` for an id that does not exist, whatever its body.
// The flow URLs' token is their credential (checked below instead).
const FLOW = ["resume", "cancel"].flatMap((k) => [
  `GET /v1/flow/{exe_id}/${k}`,
  `POST /v1/flow/{exe_id}/${k}`,
]);
// The connect flow's pages are for browsers (the callback's state is its credential; test/oauth).
const PUBLIC = new Set(["GET /v1/openapi.json", "GET /oauth/callback", "GET /oauth/connect", ...FLOW]);
// The fields a route validates before it looks the resource up.
const MINIMAL_BODY: Record<string, Record<string, unknown>> = {
  "POST /v1/webhooks/{id}/recover": { since: 0 },
  "PUT /v1/data_stores/{id}/records/{key}": { value: 1 },
};
const fill = (path: string) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "prop" ? "some_prop" : `${name}_missing`));

describe.each(MODES)("every route through %s", (mode) => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(() => api.close());

  it("answers 401 `unauthorized` without a key and with a bad key", async () => {
    expect(ROUTES.length).toBeGreaterThan(30);
    for (const route of ROUTES) {
      const name = `${route.method} ${route.path}`;
      if (PUBLIC.has(name)) continue;
      for (const key of [null, "hk_not_a_key"]) {
        const res = await api.call(route.method, fill(route.path), { key });
        expect(res.status, name).toBe(401);
        expect(res.body.error.code, name).toBe("unauthorized");
      }
    }
  });

  it("the flow URLs need no key: an unknown run or a wrong token is 404 `not_found`, a missing token 422", async () => {
    for (const name of FLOW) {
      const [method, path] = name.split(" ") as [string, string];
      const res = await api.call(method, `${fill(path)}?token=wrong`, { key: null });
      expect(res.status, name).toBe(404);
      expect(res.body.error.code, name).toBe("not_found");
      const missing = await api.call(method, fill(path), { key: null });
      expect(missing.status, name).toBe(422);
      expect(missing.body.error.code, name).toBe("validation_failed");
    }
  });

  it("answers 404 `not_found` for an unknown id on every route about one resource", async () => {
    const withId = ROUTES.filter((r) => /\{(id|key)\}/.test(r.path));
    expect(withId.length).toBeGreaterThan(15);
    for (const route of withId) {
      const name = `${route.method} ${route.path}`;
      const res = await api.call(route.method, fill(route.path), {
        ...(route.method === "GET" || route.method === "DELETE" ? {} : { body: MINIMAL_BODY[name] ?? {} }),
        ...(route.auth === "operator" ? { key: api.operatorKey } : {}),
      });
      expect(res.status, name).toBe(404);
      expect(res.body.error.code, name).toBe("not_found");
    }
  });

  it("answers 403 `operator_key_required` to a workspace key on every operator route", async () => {
    const operator = ROUTES.filter((r) => r.auth === "operator");
    expect(operator.map((r) => `${r.method} ${r.path}`)).toContain("POST /v1/workspaces");
    for (const route of operator) {
      const name = `${route.method} ${route.path}`;
      const res = await api.call(route.method, fill(route.path), {
        ...(route.method === "GET" || route.method === "DELETE" ? {} : { body: { name: "x" } }),
      });
      expect(res.status, name).toBe(403);
      expect(res.body.error.code, name).toBe("operator_key_required");
    }
  });
});
