/**
 * A real OAuth 2.0 / OpenID authorization server on loopback for the managed-auth tests:
 * `oidc-provider` with its own login and consent pages (dev interactions), PKCE required, refresh
 * tokens rotated (a replayed one is refused and revokes the grant), and a loopback API that answers
 * only to a live access token. The test can expire the access tokens it issued, revoke a grant, and
 * count token requests by grant type.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

type Rows = Map<string, { payload: Record<string, unknown>; consumed?: number }>;

/** oidc-provider's storage: in memory (`rows`, by `name:id`), visible to the test. */
function adapterOver(rows: Rows) {
  return class MemoryAdapter {
    constructor(private readonly name: string) {}
    private key(id: string) {
      return `${this.name}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>) {
      rows.set(this.key(id), { payload });
    }
    async find(id: string) {
      const row = rows.get(this.key(id));
      return row ? { ...row.payload, ...(row.consumed ? { consumed: row.consumed } : {}) } : undefined;
    }
    async findByUid(uid: string) {
      for (const [key, row] of rows)
        if (key.startsWith(`${this.name}:`) && row.payload.uid === uid) return row.payload;
      return undefined;
    }
    async findByUserCode() {
      return undefined;
    }
    async consume(id: string) {
      const row = rows.get(this.key(id));
      if (row) row.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      rows.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, row] of rows) if (row.payload.grantId === grantId) rows.delete(key);
    }
  };
}

/** A running provider. */
export interface TestProvider {
  /** The issuer (`http://127.0.0.1:port`). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The loopback API: `GET <api>/me` answers `{ sub }` to a live access token, 401 otherwise. */
  api: string;
  /** The settings of a Hookline OAuth client for this provider (`PUT /v1/oauth_clients/{app}`'s body). */
  client: {
    client_id: string;
    client_secret: string;
    name: string;
    authorize_url: string;
    token_url: string;
    issuer: string;
    scopes: string[];
    user_info: { url: string; fields: Record<string, string> };
  };
  /** Requests to the token endpoint by grant type, and the refreshes that succeeded. */
  counts: { authorization_code: number; refresh_token: number; refreshed: number };
  /** Every access token issued so far stops working (as when they expire). */
  expireAccessTokens(): void;
  /** Every grant is revoked: its tokens and refresh tokens stop working. */
  revokeGrants(): void;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return (server.address() as AddressInfo).port;
}

/**
 * Starts a provider whose one client (`hookline`, `client_secret_post`) may redirect to each of
 * `redirectUris`.
 */
export async function startProvider(redirectUris: string[]): Promise<TestProvider> {
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "hookline";
  const clientSecret = "provider-secret-for-tests";
  const rows: Rows = new Map();
  const provider = new Provider(issuer, {
    adapter: adapterOver(rows) as never,
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    cookies: { keys: ["hookline-test-cookie-key"] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    issueRefreshToken: async () => true,
    rotateRefreshToken: () => true,
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, name: `User ${id}` }),
    }),
    claims: { openid: ["sub"], profile: ["name"] },
    scopes: ["openid", "offline_access", "profile", "api"],
    ttl: {
      AccessToken: 3600,
      RefreshToken: 2_592_000,
      Grant: 2_592_000,
      IdToken: 3600,
      Interaction: 600,
      Session: 86_400,
    },
  } as never);
  const counts = { authorization_code: 0, refresh_token: 0, refreshed: 0 };
  type GrantCtx = { oidc?: { params?: { grant_type?: unknown } } };
  const grantOf = (ctx: GrantCtx) => ctx.oidc?.params?.grant_type;
  const count = (ctx: GrantCtx) => {
    const grant = grantOf(ctx);
    if (grant === "authorization_code" || grant === "refresh_token") counts[grant]++;
  };
  provider.on("grant.success", (ctx: GrantCtx) => {
    count(ctx);
    if (grantOf(ctx) === "refresh_token") counts.refreshed++;
  });
  provider.on("grant.error", (ctx: GrantCtx) => count(ctx));
  server.on("request", provider.callback());

  const api = createServer(async (req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const found = token ? await provider.AccessToken.find(token) : undefined;
    if (!found) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_token"}');
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ sub: found.accountId }));
  });
  const apiPort = await listen(api);
  return {
    issuer,
    clientId,
    clientSecret,
    api: `http://127.0.0.1:${apiPort}`,
    client: {
      client_id: clientId,
      client_secret: clientSecret,
      name: "Acme ID",
      authorize_url: `${issuer}/auth`,
      token_url: `${issuer}/token`,
      issuer,
      scopes: ["openid", "offline_access"],
      user_info: { url: `${issuer}/me`, fields: { oauth_uid: "sub" } },
    },
    counts,
    expireAccessTokens() {
      for (const key of [...rows.keys()]) if (key.startsWith("AccessToken:")) rows.delete(key);
    },
    revokeGrants() {
      for (const key of [...rows.keys()])
        if (/^(AccessToken|RefreshToken|Grant|AuthorizationCode):/.test(key)) rows.delete(key);
    },
    async close() {
      for (const s of [server, api]) {
        s.closeAllConnections();
        await new Promise<void>((ok) => s.close(() => ok()));
      }
    },
  };
}

/** A cookie jar over fetch that never follows redirects by itself. */
function browserlessAgent() {
  const cookies = new Map<string, string>();
  return async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.size > 0) headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, ...value] = (pair as string).split("=");
      cookies.set((name as string).trim(), value.join("="));
    }
    return res;
  };
}

/**
 * Signs in as `login` at the provider's own pages and consents, without a browser: follows the
 * authorize URL until the provider redirects to `redirectPrefix`, and returns that callback URL
 * (not requested). What a user's browser does in the popup.
 */
export async function authorizeAs(
  authorizeUrl: string,
  login: string,
  redirectPrefix: string,
): Promise<string> {
  const go = browserlessAgent();
  let url = authorizeUrl;
  let init: RequestInit = {};
  for (let hop = 0; hop < 20; hop++) {
    const res = await go(url, init);
    init = {};
    const location = res.headers.get("location");
    if (location) {
      const next = new URL(location, url).href;
      if (next.startsWith(redirectPrefix)) return next;
      url = next;
      continue;
    }
    const html = await res.text();
    if (res.status >= 400) throw new Error(`The provider answered ${res.status}: ${html.slice(0, 500)}`);
    // A login or consent form of the dev interactions: post it (with the login when it asks for one).
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`No form at ${url}: ${html.slice(0, 500)}`);
    const form = new URLSearchParams();
    for (const m of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
      form.set(m[1] as string, m[2] as string);
    if (/name="login"/.test(html)) {
      form.set("login", login);
      form.set("password", "any");
    }
    url = new URL(action.replace(/&amp;/g, "&"), url).href;
    init = { method: "POST", body: form, headers: { "content-type": "application/x-www-form-urlencoded" } };
  }
  throw new Error("Too many redirects at the provider");
}

/**
 * A source whose run calls the provider's API at `url` with its `acme` account's access token, and
 * emits what the API answers (the user's `sub`) with the account's `oauth_uid`.
 */
export const apiCaller = (url: string, key = "acme-who-am-i"): string => `export default {
  key: ${JSON.stringify(key)},
  name: "Who am I",
  version: "0.1.0",
  props: { acme: { type: "app", app: "acme" } },
  async run() {
    const res = await fetch(${JSON.stringify(url)}, { headers: { authorization: "Bearer " + this.acme.$auth.oauth_access_token } });
    if (res.status !== 200) throw new Error("the API answered " + res.status);
    this.$emit({ me: await res.json(), uid: this.acme.$auth.oauth_uid, client: this.acme.$auth.oauth_client_id });
  },
};`;
