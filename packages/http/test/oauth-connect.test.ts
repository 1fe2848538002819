// Managed auth over the REST API against a real OAuth 2.0 server on loopback (oidc-provider, its
// own login and consent pages driven without a browser): OAuth clients, the connect flow and what
// it refuses (tampered state, replayed code, wrong redirect, PKCE), refreshes, needs_reconnect and
// the workspace's event, PATCH, end-user app props. Connect tokens are in oauth-connect-tokens.test.ts.
import { createFakeClock, type FakeClock } from "@hookline/engine";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { apiCaller, authorizeAs, startProvider, type TestProvider } from "../../../test/oauth/_provider.js";
import { type Api, startApi } from "./_harness.js";

const BASE = "http://hookline.test";
const CALLBACK = `${BASE}/oauth/callback`;
const ELSEWHERE = "http://elsewhere.test/cb";

let provider: TestProvider;
let api: Api;
let clock: FakeClock;

async function putClient(extra: Record<string, unknown> = {}) {
  return api.call("PUT", "/v1/oauth_clients/acme", { body: { ...provider.client, ...extra } });
}

async function connect(login: string, body: Record<string, unknown> = {}) {
  const started = await api.call("POST", "/v1/accounts/connect", { body: { app: "acme", ...body } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return {
    ...started.body.data,
    callback: await authorizeAs(started.body.data.authorize_url, login, CALLBACK),
  };
}

const callback = (url: string) =>
  api
    .raw(new URL(url).pathname + new URL(url).search)
    .then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
const accounts = async () => (await api.call("GET", "/v1/accounts")).body.data as { id: string }[];

beforeAll(async () => {
  provider = await startProvider([CALLBACK, ELSEWHERE]);
  clock = createFakeClock(Date.now());
  api = await startApi("fetch", { engine: { baseUrl: BASE, clock } });
});
afterAll(async () => {
  await api?.close();
  await provider?.close();
});

describe("OAuth clients", () => {
  it("a client is put, read without its secret and with the redirect URL to register; bad settings are 422 naming the field", async () => {
    const put = await putClient();
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data).toMatchObject({
      app: "acme",
      client_id: "hookline",
      has_client_secret: true,
      redirect_uri: CALLBACK,
      token_auth: "client_secret_post",
      pkce: true,
    });
    expect(JSON.stringify((await api.call("GET", "/v1/oauth_clients")).body)).not.toContain(
      provider.clientSecret,
    );
    // A catalogue app needs only its id and secret.
    const github = await api.call("PUT", "/v1/oauth_clients/github", {
      body: { client_id: "Iv1.x", client_secret: "s" },
    });
    expect(github.body.data).toMatchObject({
      provider: "github",
      authorize_url: "https://github.com/login/oauth/authorize",
    });
    // Secret left out: the stored one is kept.
    const again = await api.call("PUT", "/v1/oauth_clients/github", {
      body: { client_id: "Iv1.y", scopes: ["repo"] },
    });
    expect(again.body.data).toMatchObject({ client_id: "Iv1.y", has_client_secret: true, scopes: ["repo"] });
    const catalogue = (await api.call("GET", "/v1/oauth_providers")).body.data as { app: string }[];
    expect(catalogue.map((p) => p.app)).toEqual(
      expect.arrayContaining(["github", "google", "slack", "shopify"]),
    );
    for (const [body, field] of [
      [{ client_id: "x", client_secret: "s" }, "authorize_url"],
      [
        { client_id: "x", client_secret: "s", authorize_url: "ftp://x", token_url: "https://t" },
        "authorize_url",
      ],
      [{ client_id: "x", authorize_url: "https://a", token_url: "https://t" }, "client_secret"],
      [
        {
          client_id: "x",
          client_secret: "s",
          authorize_url: "https://a",
          token_url: "https://t",
          token_auth: "jwt",
        },
        "token_auth",
      ],
    ] as const) {
      const res = await api.call("PUT", "/v1/oauth_clients/custom_app", { body });
      expect(
        [
          res.status,
          res.body.error.code,
          res.body.error.details?.field ?? res.body.error.details?.problems?.[0]?.path,
        ],
        JSON.stringify(res.body),
      ).toEqual([
        422,
        expect.stringMatching(/invalid_oauth_client|validation_failed/),
        expect.stringContaining(field),
      ]);
    }
    expect((await api.call("DELETE", "/v1/oauth_clients/github")).status).toBe(200);
    expect((await api.call("GET", "/v1/oauth_clients/github")).status).toBe(404);
  });

  it("the OpenAPI document describes the managed-auth routes", async () => {
    const doc = (await api.call("GET", "/v1/openapi.json", { key: null })).body;
    for (const [path, method] of [
      ["/v1/accounts/connect", "post"],
      ["/v1/accounts/connect/{state}", "get"],
      ["/v1/accounts/{id}", "patch"],
      ["/v1/oauth_clients/{app}", "put"],
      ["/v1/oauth_providers", "get"],
      ["/v1/connect/tokens", "post"],
      ["/oauth/callback", "get"],
      ["/oauth/connect", "get"],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths["/oauth/callback"].get.security).toEqual([]);
  });

  it("connecting an app without a client is 422 oauth_not_configured", async () => {
    const res = await api.call("POST", "/v1/accounts/connect", { body: { app: "nothing_here" } });
    expect([res.status, res.body.error.code]).toEqual([422, "oauth_not_configured"]);
  });
});

describe("the connect flow", () => {
  beforeEach(async () => {
    for (const a of await accounts()) await api.call("DELETE", `/v1/accounts/${a.id}`);
    await putClient();
  });

  it("signs in at the provider and stores the account, whose tokens never come back; a source uses them", async () => {
    process.env.API_URL = `${provider.api}/me`;
    const flow = await connect("ada", { name: "Ada at Acme" });
    expect(new URL(flow.authorize_url).searchParams.get("code_challenge_method")).toBe("S256");
    expect((await api.call("GET", `/v1/accounts/connect/${flow.state}`)).body.data.status).toBe("pending");
    const done = await callback(flow.callback);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const account = done.body.data.account;
    expect(account).toMatchObject({
      app: "acme",
      name: "Ada at Acme",
      oauth: true,
      status: "active",
      external_user_id: null,
    });
    expect(account.expires_at).toBeGreaterThan(Math.floor(clock.now() / 1000));
    const status = await api.call("GET", `/v1/accounts/connect/${flow.state}`);
    expect(status.body.data).toMatchObject({ status: "connected", account: { id: account.id } });
    const everything = JSON.stringify([
      (await api.call("GET", "/v1/accounts")).body,
      (await api.call("GET", `/v1/accounts/${account.id}`)).body,
    ]);
    expect(everything).not.toMatch(/access_token|refresh_token|ey[A-Za-z0-9_-]{20}/);

    const source = await api.call("POST", "/v1/sources", {
      body: {
        component_code: apiCaller(`${provider.api}/me`),
        configured_props: { acme: { authProvisionId: account.id } },
      },
    });
    expect(source.status, JSON.stringify(source.body)).toBe(200);
    const run = await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
    expect(run.body.data.error).toBeNull();
    expect(run.body.data.emitted[0].event).toEqual({ me: { sub: "ada" }, uid: "ada", client: "hookline" });

    // The token expires at the provider and by the engine's clock: the next run refreshes first.
    provider.expireAccessTokens();
    clock.advance(3_600_000);
    const refreshedBefore = provider.counts.refreshed;
    const second = await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
    expect(second.body.data.error, JSON.stringify(second.body)).toBeNull();
    expect(second.body.data.emitted[0].event.me).toEqual({ sub: "ada" });
    expect(provider.counts.refreshed).toBe(refreshedBefore + 1);
    // Not due again: no second refresh.
    await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
    expect(provider.counts.refreshed).toBe(refreshedBefore + 1);

    // The grant is revoked: the refresh is refused, the account needs reconnecting, the run says so,
    // and the workspace's event reaches the webhook subscribed to it.
    const hook = await api.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/hook" } });
    const sub = await api.call("POST", "/v1/subscriptions", {
      body: {
        emitter_id: api.workspaceId,
        listener_id: hook.body.data.id,
        event_name: "account.needs_reconnect",
      },
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    provider.revokeGrants();
    clock.advance(3_600_000);
    const third = await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
    expect(third.body.data.error?.message).toContain("401");
    expect((await api.call("GET", `/v1/accounts/${account.id}`)).body.data.status).toBe("needs_reconnect");
    const logs = (await api.call("GET", `/v1/sources/${source.body.data.id}/logs`)).body.data as {
      message: string;
    }[];
    expect(logs.map((l) => l.message).join("\n")).toMatch(
      new RegExp(`account ${account.id} \\(acme\\) needs reconnect.*invalid_grant`),
    );
    const deliveries = (await api.call("GET", `/v1/webhooks/${hook.body.data.id}/deliveries`)).body.data;
    expect(deliveries).toHaveLength(1);
    const event = (await api.hookline.store.events.get(api.workspaceId, deliveries[0].event_id))?.body;
    expect(event).toMatchObject({ account_id: account.id, app: "acme", reason: "invalid_grant" });

    // Reconnecting keeps the apn_ id and makes it active again.
    const re = await connect("ada", { account_id: account.id });
    const back = await callback(re.callback);
    expect(back.body.data).toMatchObject({
      reconnected: true,
      account: { id: account.id, status: "active" },
    });
    const fourth = await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
    expect(fourth.body.data.emitted[0].event.me).toEqual({ sub: "ada" });
    await api.call("DELETE", `/v1/sources/${source.body.data.id}`);
  });

  it("tampered state, replayed code, wrong redirect and a code without our PKCE challenge: each a 4xx with a stable code, nothing stored", async () => {
    const flow = await connect("bob");
    const tampered = new URL(flow.callback);
    tampered.searchParams.set("state", `${flow.state.slice(0, -2)}xx`);
    expect(await callback(tampered.href)).toMatchObject({
      status: 400,
      body: { error: { code: "oauth_state_invalid" } },
    });
    expect(await accounts()).toEqual([]);

    // The real callback works once; the same callback again (a replayed code) is refused.
    expect((await callback(flow.callback)).status).toBe(200);
    expect((await callback(flow.callback)).body.error.code).toBe("oauth_state_invalid");
    const [only] = await accounts();
    // The used code carried into a new flow: the provider refuses it.
    const next = await connect("bob");
    const replay = new URL(next.callback);
    replay.searchParams.set("code", new URL(flow.callback).searchParams.get("code") as string);
    expect(await callback(replay.href)).toMatchObject({
      status: 400,
      body: { error: { code: "oauth_exchange_failed", details: { provider_error: "invalid_grant" } } },
    });
    expect(await accounts()).toEqual([only]);

    // A code issued for another redirect URL, or against another PKCE challenge, fed to a real flow.
    const started = await api.call("POST", "/v1/accounts/connect", { body: { app: "acme" } });
    const theirs = new URL(started.body.data.authorize_url);
    theirs.searchParams.set("redirect_uri", ELSEWHERE);
    const elsewhere = new URL(await authorizeAs(theirs.href, "bob", ELSEWHERE));
    const ours = new URL(CALLBACK);
    ours.search = new URLSearchParams({
      code: elsewhere.searchParams.get("code") as string,
      state: started.body.data.state,
      iss: provider.issuer,
    }).toString();
    expect(await callback(ours.href)).toMatchObject({
      status: 400,
      body: { error: { code: "oauth_exchange_failed" } },
    });

    const other = await api.call("POST", "/v1/accounts/connect", { body: { app: "acme" } });
    const forged = new URL(other.body.data.authorize_url);
    forged.searchParams.set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    const forgedBack = new URL(await authorizeAs(forged.href, "bob", CALLBACK));
    expect(await callback(forgedBack.href)).toMatchObject({
      status: 400,
      body: { error: { code: "oauth_exchange_failed", details: { provider_error: "invalid_grant" } } },
    });
    expect(await accounts()).toEqual([only]);

    // A client that sends no PKCE challenge: this provider requires one and sends the user back with an error.
    await putClient({ pkce: false });
    const noPkce = await api.call("POST", "/v1/accounts/connect", { body: { app: "acme" } });
    expect(new URL(noPkce.body.data.authorize_url).searchParams.has("code_challenge")).toBe(false);
    const refused = await authorizeAs(noPkce.body.data.authorize_url, "bob", CALLBACK);
    expect(await callback(refused)).toMatchObject({
      status: 400,
      body: { error: { code: "oauth_denied", details: { provider_error: "invalid_request" } } },
    });
    expect((await api.call("GET", `/v1/accounts/connect/${noPkce.body.data.state}`)).body.data).toMatchObject(
      { status: "failed", error: { code: "oauth_denied" } },
    );
    expect(await accounts()).toEqual([only]);

    // A return URL of another origin is refused before anything starts.
    await putClient();
    const away = await api.call("POST", "/v1/accounts/connect", {
      body: { app: "acme", return_url: "https://evil.example/x" },
    });
    expect([away.status, away.body.error.code, away.body.error.details.field]).toEqual([
      422,
      "invalid_url",
      "return_url",
    ]);
  });

  it("a return URL of this server gets the outcome in its query; a browser gets a page posting it to the opener", async () => {
    const flow = await connect("cy", { return_url: `${BASE}/accounts` });
    const res = await api.raw(new URL(flow.callback).pathname + new URL(flow.callback).search);
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get("location") as string);
    expect([to.origin + to.pathname, to.searchParams.get("hookline_status")]).toEqual([
      `${BASE}/accounts`,
      "connected",
    ]);
    expect(to.searchParams.get("hookline_account_id")).toMatch(/^apn_/);
    const page = await api.raw("/oauth/callback?state=nope&code=x", { headers: { accept: "text/html" } });
    expect(page.status).toBe(400);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await page.text()).toContain("oauth_state_invalid");
  });
});

describe("refreshing ahead of use", () => {
  it("refreshes the tokens about to expire, once, without a run", async () => {
    await putClient();
    const flow = await connect("fay");
    const account = (await callback(flow.callback)).body.data.account;
    expect(await api.hookline.oauth.refreshDue()).toBe(0);
    // Within the skew (2 minutes) of its expiry: refreshed now; then not due again.
    clock.set(account.expires_at * 1000 - 60_000);
    const before = provider.counts.refreshed;
    expect(await api.hookline.oauth.refreshDue()).toBeGreaterThanOrEqual(1);
    expect(provider.counts.refreshed).toBeGreaterThan(before);
    const after = (await api.call("GET", `/v1/accounts/${account.id}`)).body.data;
    expect(after.expires_at).toBeGreaterThan(account.expires_at);
    expect(after.status).toBe("active");
    expect(await api.hookline.oauth.refreshDue()).toBe(0);
  });
});

describe("accounts", () => {
  it("PATCH renames and sets key fields; an OAuth account's tokens are the engine's", async () => {
    const key = await api.call("POST", "/v1/accounts", {
      body: { app: "keyed", name: "k", auth: { api_key: "a", region: "eu" } },
    });
    const id = key.body.data.id;
    const patched = await api.call("PATCH", `/v1/accounts/${id}`, {
      body: { name: "renamed", auth: { api_key: "b", region: null } },
    });
    expect(patched.body.data).toMatchObject({ id, name: "renamed" });
    const app = `export default { name: "K", version: "0.1.0", props: { keyed: { type: "app", app: "keyed" } }, run() { this.$emit(this.keyed.$auth); } };`;
    const source = await api.call("POST", "/v1/sources", {
      body: { component_code: app, configured_props: { keyed: { authProvisionId: id } } },
    });
    const run = await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
    expect(run.body.data.emitted[0].event).toEqual({ api_key: "b" });
    await api.call("DELETE", `/v1/sources/${source.body.data.id}`);
    await putClient();
    const flow = await connect("dee");
    const oauthId = (await callback(flow.callback)).body.data.account.id;
    const refused = await api.call("PATCH", `/v1/accounts/${oauthId}`, {
      body: { auth: { oauth_access_token: "forged" } },
    });
    expect([refused.status, refused.body.error.code]).toEqual([400, "bad_request"]);
    expect((await api.call("PATCH", "/v1/accounts/apn_missing", { body: { name: "x" } })).status).toBe(404);
  });

  it("an app prop picks an end user's account by external_user_id", async () => {
    await putClient();
    const flow = await connect("erin", { external_user_id: "user-erin" });
    const account = (await callback(flow.callback)).body.data.account;
    expect(account.external_user_id).toBe("user-erin");
    const code = apiCaller(`${provider.api}/me`);
    const none = await api.call("POST", "/v1/sources", {
      body: { component_code: code, configured_props: { acme: { externalUserId: "nobody" } } },
    });
    expect([none.status, none.body.error.code]).toEqual([422, "invalid_account"]);
    const source = await api.call("POST", "/v1/sources", {
      body: { component_code: code, configured_props: { acme: { externalUserId: "user-erin" } } },
    });
    expect(source.body.data.configured_props.acme).toEqual({ externalUserId: "user-erin" });
    const run = await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
    expect(run.body.data.emitted[0].event.me).toEqual({ sub: "erin" });
    await api.call("DELETE", `/v1/sources/${source.body.data.id}`);

    // A workflow step picks it the same way, and refreshes it when due (its log says so).
    const step = `export default defineComponent({ props: { acme: { type: "app", app: "acme" } },
      async run() {
        const res = await fetch(${JSON.stringify(`${provider.api}/me`)}, { headers: { authorization: "Bearer " + this.acme.$auth.oauth_access_token } });
        return await res.json();
      } })`;
    const wf = await api.call("POST", "/v1/workflows", {
      body: {
        name: "end user",
        trigger: { type: "manual" },
        steps: [
          { name: "who", component_code: step, configured_props: { acme: { externalUserId: "user-erin" } } },
        ],
      },
    });
    expect(wf.status, JSON.stringify(wf.body)).toBe(200);
    provider.expireAccessTokens();
    clock.advance(3_600_000);
    const exe = await api.call("POST", `/v1/workflows/${wf.body.data.id}/run`, { body: { event: {} } });
    expect(exe.body.data.steps[0].return_value).toEqual({ sub: "erin" });
    expect(JSON.stringify(exe.body.data.steps[0].logs)).toContain(
      `account ${account.id} (acme, end user user-erin): OAuth token refreshed`,
    );
  });
});
