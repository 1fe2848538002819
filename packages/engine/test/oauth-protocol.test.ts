// The OAuth protocol against providers that bend RFC 6749, as loopback stand-ins answer: an error
// sent with 200 (GitHub, Slack), no token_type (Shopify), Slack's `bot` token type; a connect
// parameter in the token URL (Shopify's shop). What each becomes: tokens, or a refusal with the
// provider's error code.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTransport } from "@hookline/delivery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolvedClient } from "../src/oauth/clients.js";
import { credentialsOf } from "../src/oauth/credentials.js";
import { exchangeCode } from "../src/oauth/protocol.js";

let server: Server;
let base = "";
const requests: { path: string; body: string }[] = [];
/** What the stand-in token endpoint answers, by path. */
const answers: Record<string, unknown> = {
  "/github": {
    error: "bad_verification_code",
    error_description: "The code passed is incorrect or expired.",
  },
  "/shop.test/admin/oauth/access_token": { access_token: "shpat_1", scope: "read_products" },
  "/slack": {
    ok: true,
    access_token: "xoxb-1",
    token_type: "bot",
    team: { id: "T1", name: "Acme" },
    authed_user: { id: "U1" },
  },
  "/slack-error": { ok: false, error: "invalid_code" },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", body });
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(answers[req.url ?? ""] ?? {}));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const transport = createTransport({ allowPrivate: true });
afterAll(() => transport.close());
const client = (token_url: string, extra: Partial<ResolvedClient["settings"]> = {}): ResolvedClient => ({
  app: "x",
  clientId: "id",
  clientSecret: "secret",
  settings: {
    name: "X",
    authorize_url: `${base}/authorize`,
    token_url,
    scopes: [],
    scope_separator: " ",
    pkce: true,
    token_auth: "client_secret_post",
    authorize_params: {},
    auth_fields: {},
    ...extra,
  },
});
const exchange = (c: ResolvedClient, params: Record<string, string> = {}) =>
  exchangeCode(transport, c, {
    code: "c",
    state: "s",
    redirectUri: "http://hookline.test/oauth/callback",
    verifier: "v".repeat(43),
    params,
  });

describe("token responses of providers that bend RFC 6749", () => {
  it("an error sent with 200 is a refusal with the provider's code", async () => {
    await expect(exchange(client(`${base}/github`))).rejects.toMatchObject({
      code: "oauth_exchange_failed",
      details: { provider_error: "bad_verification_code" },
    });
    await expect(exchange(client(`${base}/slack-error`))).rejects.toMatchObject({
      details: { provider_error: "invalid_code" },
    });
  });

  it("no token_type, a `bot` one, a shop in the token URL: tokens, shaped into $auth", async () => {
    const shopify = client(`${base}/{shop}/admin/oauth/access_token`, { auth_fields: { shop_id: "{shop}" } });
    const tokens = await exchange(shopify, { shop: "shop.test" });
    expect(tokens).toMatchObject({ access_token: "shpat_1", token_type: "bearer" });
    expect(requests.at(-1)?.path).toBe("/shop.test/admin/oauth/access_token");
    expect(new URLSearchParams(requests.at(-1)?.body).get("code_verifier")).toBe("v".repeat(43));
    const shaped = credentialsOf(shopify, tokens, { params: { shop: "shop.test" }, now: 0 });
    expect(shaped.credentials).toMatchObject({
      oauth_access_token: "shpat_1",
      oauth_client_id: "id",
      shop_id: "shop.test",
    });
    expect(shaped.expiresAt).toBeUndefined();

    const slack = client(`${base}/slack`, {
      auth_fields: { oauth_uid: "authed_user.id", team_id: "team.id" },
    });
    const bot = await exchange(slack);
    expect(credentialsOf(slack, bot, { params: {}, now: 0 }).credentials).toMatchObject({
      oauth_access_token: "xoxb-1",
      oauth_uid: "U1",
      team_id: "T1",
    });
  });

  it("the provider's address passes the SSRF guard", async () => {
    const guarded = createTransport();
    await expect(
      exchangeCode(guarded, client(`${base}/github`), {
        code: "c",
        state: "s",
        redirectUri: "http://x/cb",
        params: {},
      }),
    ).rejects.toMatchObject({ code: "oauth_provider_error" });
    guarded.close();
  });
});
