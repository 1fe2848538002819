// Connect tokens: an embedding app's server mints one per end user; with it, a browser of another
// origin (CORS) runs the connect flow and reaches that end user's accounts, through every accounts
// route, and nothing else. Against a real OAuth server on loopback (oidc-provider).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeAs, startProvider, type TestProvider } from "../../../test/oauth/_provider.js";
import { ROUTES } from "../src/index.js";
import { type Api, startApi } from "./_harness.js";

const BASE = "http://hookline.test";
const CALLBACK = `${BASE}/oauth/callback`;
const APP_ORIGIN = "http://app.test";

let provider: TestProvider;
let api: Api;
let ada: string;
let bob: string;
/** Bob's account and connect flow, which Ada's token must never reach. */
let bobAccount: string;
let bobState: string;

async function mint(user: string, extra: Record<string, unknown> = {}) {
  const res = await api.call("POST", "/v1/connect/tokens", { body: { external_user_id: user, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.token).toMatch(/^ctok_/);
  return res.body.data.token as string;
}

beforeAll(async () => {
  provider = await startProvider([CALLBACK]);
  api = await startApi("fetch", { engine: { baseUrl: BASE } });
  await api.call("PUT", "/v1/oauth_clients/acme", { body: provider.client });
  ada = await mint("ada", { allowed_origins: [APP_ORIGIN] });
  bob = await mint("bob");
  const created = await api.call("POST", "/v1/accounts", {
    key: bob,
    body: { app: "keyed", auth: { api_key: "bob's" } },
  });
  bobAccount = created.body.data.id;
  bobState = (await api.call("POST", "/v1/accounts/connect", { key: bob, body: { app: "acme" } })).body.data
    .state;
});
afterAll(async () => {
  await api?.close();
  await provider?.close();
});

describe("connect tokens", () => {
  it("an end user connects through the OAuth flow with their token; the account is theirs", async () => {
    const started = await api.call("POST", "/v1/accounts/connect", {
      key: ada,
      body: { app: "acme", external_user_id: "bob", opener_origin: APP_ORIGIN },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const back = await authorizeAs(started.body.data.authorize_url, "ada", CALLBACK);
    const done = await api
      .raw(new URL(back).pathname + new URL(back).search)
      .then((r) => r.json() as Promise<any>);
    expect(done.data.account).toMatchObject({ app: "acme", oauth: true, external_user_id: "ada" });
    const status = await api.call("GET", `/v1/accounts/connect/${started.body.data.state}`, { key: ada });
    expect(status.body.data).toMatchObject({ status: "connected", account: { id: done.data.account.id } });
    expect(
      (await api.call("GET", `/v1/accounts/connect/${started.body.data.state}`, { key: bob })).status,
    ).toBe(404);
    // An opener origin the token does not allow is refused.
    const away = await api.call("POST", "/v1/accounts/connect", {
      key: ada,
      body: { app: "acme", opener_origin: "http://evil.test" },
    });
    expect([away.status, away.body.error.code]).toEqual([422, "invalid_url"]);
  });

  it("reaches only its end user's accounts, through every accounts route", async () => {
    const own = await api.call("POST", "/v1/accounts", {
      key: ada,
      body: { app: "keyed", auth: { k: 1 }, external_user_id: "bob" },
    });
    expect(own.body.data.external_user_id).toBe("ada");
    const seen = new Set<string>();
    const routes = ROUTES.filter((r) => r.auth === "connect");
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      "DELETE /v1/accounts/{id}",
      "GET /v1/accounts",
      "GET /v1/accounts/connect/{state}",
      "GET /v1/accounts/{id}",
      "PATCH /v1/accounts/{id}",
      "POST /v1/accounts",
      "POST /v1/accounts/connect",
    ]);
    for (const route of routes) {
      const name = `${route.method} ${route.path}`;
      const path = route.path.replace("{id}", bobAccount).replace("{state}", bobState);
      const body =
        route.path === "/v1/accounts/connect"
          ? { app: "acme", account_id: bobAccount }
          : route.method === "PATCH"
            ? { name: "stolen", auth: { api_key: "x" } }
            : route.method === "POST"
              ? { app: "keyed", auth: {}, external_user_id: "bob" }
              : undefined;
      const res = await api.call(route.method, path, {
        key: ada,
        ...(body ? { body } : {}),
        ...(route.method === "GET" && !path.includes(bobAccount) && !path.includes(bobState)
          ? { query: { external_user_id: "bob" } }
          : {}),
      });
      seen.add(name);
      expect(JSON.stringify(res.body), name).not.toContain(`"external_user_id":"bob"`);
      if (route.path.includes("{"))
        expect([res.status, res.body.error?.code], name).toEqual([404, "not_found"]);
      else if (route.method === "GET")
        expect(
          res.body.data.every((a: { external_user_id: string }) => a.external_user_id === "ada"),
          name,
        ).toBe(true);
      else if (route.path === "/v1/accounts/connect") expect(res.status, name).toBe(404);
      else expect(res.body.data.external_user_id, name).toBe("ada");
    }
    expect(seen.size).toBe(routes.length);
    // Bob's account is as it was, and Bob still reaches it.
    const bobs = await api.call("GET", `/v1/accounts/${bobAccount}`, { key: bob });
    expect(bobs.body.data).toMatchObject({ id: bobAccount, name: "keyed", external_user_id: "bob" });
    // The API key reaches everyone's.
    const all = (await api.call("GET", "/v1/accounts")).body.data.map(
      (a: { external_user_id: string | null }) => a.external_user_id,
    );
    expect(new Set(all)).toEqual(new Set(["ada", "bob"]));
  });

  it("reaches nothing but the accounts routes; unknown tokens are 401", async () => {
    for (const [method, path] of [
      ["GET", "/v1/sources"],
      ["POST", "/v1/connect/tokens"],
      ["GET", "/v1/oauth_clients"],
      ["GET", "/v1/webhooks"],
    ] as const) {
      const res = await api.call(method, path, {
        key: ada,
        body: method === "POST" ? { external_user_id: "ada" } : undefined,
      });
      expect([res.status, res.body.error.code], path).toEqual([401, "unauthorized"]);
    }
    const unknown = await api.call("GET", "/v1/accounts", { key: "ctok_not_a_token" });
    expect([unknown.status, unknown.body.error.code]).toEqual([401, "unauthorized"]);
    const bad = await api.call("POST", "/v1/connect/tokens", {
      body: { external_user_id: "x", allowed_origins: ["not an origin"] },
    });
    expect(bad.status).toBe(400);
  });

  it("answers browsers of another origin for a token (CORS), never for an API key", async () => {
    const preflight = await api.raw("/v1/accounts", {
      method: "OPTIONS",
      headers: {
        origin: APP_ORIGIN,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
    const withToken = await api.call("GET", "/v1/accounts", { key: ada, headers: { origin: APP_ORIGIN } });
    expect([withToken.status, withToken.headers.get("access-control-allow-origin")]).toEqual([
      200,
      APP_ORIGIN,
    ]);
    // Not an origin the token allows; an API key; a route a token does not reach.
    const otherOrigin = await api.call("GET", "/v1/accounts", {
      key: ada,
      headers: { origin: "http://evil.test" },
    });
    expect(otherOrigin.headers.get("access-control-allow-origin")).toBeNull();
    const withKey = await api.call("GET", "/v1/accounts", { headers: { origin: APP_ORIGIN } });
    expect([withKey.status, withKey.headers.get("access-control-allow-origin")]).toEqual([200, null]);
    const sources = await api.raw("/v1/sources", { method: "OPTIONS", headers: { origin: APP_ORIGIN } });
    expect(sources.headers.get("access-control-allow-origin")).toBeNull();
  });
});
