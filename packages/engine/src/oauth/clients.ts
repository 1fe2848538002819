/**
 * OAuth clients: the operator's OAuth app of each app slug in a workspace (`hookline.oauthClients`,
 * `/v1/oauth_clients`). The stored record keeps what the operator gave (the secret sealed); the
 * settings in use are the catalogue entry of the app (or of `provider`) under those fields.
 */
import { HooklineError } from "@hookline/core";
import type { OAuthClientRecord } from "@hookline/store";
import type { EngineContext } from "../context.js";
import {
  type CatalogueEntry,
  OAUTH_CATALOGUE,
  type OAuthSettings,
  type TokenAuthMethod,
} from "./catalogue.js";

/** What `put` takes: a client id and secret, and any setting that differs from the catalogue's. */
export type OAuthClientInput = Partial<OAuthSettings> & {
  /** The OAuth app's client id. */
  client_id: string;
  /** Its secret (sealed at rest, never returned); left out, the stored one is kept. */
  client_secret?: string;
  /** The catalogue entry to start from (default: the app's own, when the catalogue has it). */
  provider?: string;
};

/** An OAuth client as the engine returns it: never its secret. */
export interface OAuthClientView {
  app: string;
  /** The catalogue entry it starts from, if any. */
  provider?: string;
  clientId: string;
  /** Whether a client secret is stored. */
  hasClientSecret: boolean;
  /** The redirect URL to register with the provider: `<baseUrl>/oauth/callback`. */
  redirectUri: string;
  /** The settings in use (catalogue and operator's merged). */
  settings: OAuthSettings;
  createdAt: number;
  updatedAt: number;
}

/** A client ready to use: its settings, id and opened secret. @internal */
export interface ResolvedClient {
  app: string;
  clientId: string;
  clientSecret?: string;
  settings: OAuthSettings;
}

/** OAuth clients: `hookline.oauthClients`. */
export interface OAuthClientsApi {
  /**
   * Creates or replaces the OAuth client of an app. For an app of the catalogue only `client_id`
   * and `client_secret` are needed.
   *
   * @example
   * ```ts
   * await hookline.oauthClients.put(ws.id, "github", { client_id: "Iv1.abc", client_secret: "s3cret" });
   * ```
   */
  put(workspaceId: string, app: string, input: OAuthClientInput): Promise<OAuthClientView>;
  /** The app's client (404 `not_found` when none). */
  get(workspaceId: string, app: string): Promise<OAuthClientView>;
  /** The workspace's clients. */
  list(workspaceId: string): Promise<OAuthClientView[]>;
  /** Deletes the app's client (404 when none); connected accounts keep their tokens until a refresh needs it. */
  delete(workspaceId: string, app: string): Promise<void>;
  /** The catalogue: every known provider's settings, by app slug. */
  catalogue(): Record<string, OAuthSettings>;
  /** The redirect URL every provider must have registered: `<baseUrl>/oauth/callback`. */
  redirectUri(): string;
}

const TOKEN_AUTH: readonly TokenAuthMethod[] = ["client_secret_basic", "client_secret_post", "none"];
const SETTING_KEYS = [
  "name",
  "authorize_url",
  "token_url",
  "scopes",
  "scope_separator",
  "pkce",
  "token_auth",
  "authorize_params",
  "auth_fields",
  "user_info",
  "issuer",
  "params",
  "docs_url",
] as const;

const bad = (field: string, message: string) =>
  new HooklineError("invalid_oauth_client", `${field}: ${message}`, { field });

/** A catalogue entry with its defaults filled. */
function withDefaults(app: string, entry: Partial<CatalogueEntry>): OAuthSettings {
  return {
    name: entry.name ?? app,
    authorize_url: entry.authorize_url ?? "",
    token_url: entry.token_url ?? "",
    scopes: entry.scopes ?? [],
    scope_separator: entry.scope_separator ?? " ",
    pkce: entry.pkce ?? true,
    token_auth: entry.token_auth ?? "client_secret_post",
    authorize_params: entry.authorize_params ?? {},
    auth_fields: entry.auth_fields ?? {},
    ...(entry.user_info ? { user_info: entry.user_info } : {}),
    ...(entry.issuer ? { issuer: entry.issuer } : {}),
    ...(entry.params ? { params: entry.params } : {}),
    ...(entry.docs_url ? { docs_url: entry.docs_url } : {}),
  };
}

const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every((x) => typeof x === "string");

function checkUrl(field: string, value: unknown): void {
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value.replace(/\{\w+\}/g, "x")) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw bad(field, `must be an http(s) URL, got ${JSON.stringify(value)?.slice(0, 200)}`);
  }
}

/** Checks the settings in use; throws `invalid_oauth_client` naming the field. */
function checkSettings(s: OAuthSettings): void {
  checkUrl("authorize_url", s.authorize_url);
  checkUrl("token_url", s.token_url);
  if (!Array.isArray(s.scopes) || !s.scopes.every((x) => typeof x === "string"))
    throw bad("scopes", "must be an array of strings");
  if (typeof s.scope_separator !== "string") throw bad("scope_separator", "must be a string");
  if (typeof s.pkce !== "boolean") throw bad("pkce", "must be true or false");
  if (!TOKEN_AUTH.includes(s.token_auth)) throw bad("token_auth", `must be one of ${TOKEN_AUTH.join(", ")}`);
  if (!isStringRecord(s.authorize_params)) throw bad("authorize_params", "must map names to strings");
  if (!isStringRecord(s.auth_fields)) throw bad("auth_fields", "must map $auth fields to response paths");
  if (s.user_info !== undefined) {
    if (typeof s.user_info !== "object" || s.user_info === null)
      throw bad("user_info", "must be { url, fields }");
    checkUrl("user_info.url", s.user_info.url);
    if (!isStringRecord(s.user_info.fields)) throw bad("user_info.fields", "must map $auth fields to paths");
  }
  if (s.issuer !== undefined) checkUrl("issuer", s.issuer);
}

/** The settings of a stored client: its catalogue entry under the operator's fields. @internal */
export function settingsOf(record: OAuthClientRecord): OAuthSettings {
  const provider = typeof record.config.provider === "string" ? record.config.provider : record.app;
  const base = OAUTH_CATALOGUE[provider] ?? {};
  const own: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) if (record.config[key] !== undefined) own[key] = record.config[key];
  return withDefaults(record.app, { ...base, ...own } as Partial<CatalogueEntry>);
}

/** The redirect URL every provider must have registered. @internal */
export const redirectUriOf = (baseUrl: string) => `${baseUrl}/oauth/callback`;

/** The `oauthClients` API of an engine, and the resolver the connect flow uses. @internal */
export function createOAuthClients(ctx: Pick<EngineContext, "store" | "box" | "baseUrl">): {
  api: OAuthClientsApi;
  resolve(workspaceId: string, app: string): Promise<ResolvedClient | undefined>;
} {
  const { store, box } = ctx;
  const view = (record: OAuthClientRecord): OAuthClientView => {
    const provider = typeof record.config.provider === "string" ? record.config.provider : undefined;
    return {
      app: record.app,
      ...(provider ? { provider } : OAUTH_CATALOGUE[record.app] ? { provider: record.app } : {}),
      clientId: String(record.config.client_id),
      hasClientSecret: record.clientSecret !== undefined,
      redirectUri: redirectUriOf(ctx.baseUrl),
      settings: settingsOf(record),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  };
  const found = async (workspaceId: string, app: string) => {
    const record = await store.oauthClients.get(workspaceId, app);
    if (!record) throw new HooklineError("not_found", `No OAuth client for ${app} in this workspace`);
    return record;
  };
  const api: OAuthClientsApi = {
    async put(workspaceId, app, input) {
      if (typeof app !== "string" || !/^[a-z0-9_]+$/.test(app)) throw bad("app", "must be an app name slug");
      if (typeof input !== "object" || input === null) throw bad("body", "must be an object");
      if (
        typeof input.client_id !== "string" ||
        input.client_id.trim() === "" ||
        input.client_id.length > 500
      )
        throw bad("client_id", "is required: the OAuth app's client id");
      if (input.provider !== undefined && !OAUTH_CATALOGUE[input.provider])
        throw bad("provider", `is not in the catalogue (${Object.keys(OAUTH_CATALOGUE).join(", ")})`);
      if (
        input.client_secret !== undefined &&
        (typeof input.client_secret !== "string" || input.client_secret === "")
      )
        throw bad("client_secret", "must be a non-empty string");
      const config: Record<string, unknown> = { client_id: input.client_id.trim() };
      if (input.provider !== undefined) config.provider = input.provider;
      for (const key of SETTING_KEYS) if (input[key] !== undefined) config[key] = input[key];
      const provider = (config.provider as string | undefined) ?? app;
      if (
        !OAUTH_CATALOGUE[provider] &&
        (config.authorize_url === undefined || config.token_url === undefined)
      )
        throw bad("authorize_url", `${app} is not in the catalogue: give authorize_url and token_url`);
      const draft = { workspaceId, app, config, createdAt: 0, updatedAt: 0 };
      const settings = settingsOf(draft);
      checkSettings(settings);
      const previous = await store.oauthClients.get(workspaceId, app);
      const clientSecret =
        input.client_secret !== undefined ? box.seal(input.client_secret) : previous?.clientSecret;
      if (clientSecret === undefined && settings.token_auth !== "none")
        throw bad("client_secret", `is required unless token_auth is "none"`);
      const record = await store.oauthClients.put({
        workspaceId,
        app,
        config,
        ...(clientSecret !== undefined ? { clientSecret } : {}),
      });
      return view(record);
    },
    async get(workspaceId, app) {
      return view(await found(workspaceId, app));
    },
    async list(workspaceId) {
      return (await store.oauthClients.list(workspaceId)).map(view);
    },
    async delete(workspaceId, app) {
      if (!(await store.oauthClients.delete(workspaceId, app)))
        throw new HooklineError("not_found", `No OAuth client for ${app} in this workspace`);
    },
    redirectUri: () => redirectUriOf(ctx.baseUrl),
    catalogue() {
      return Object.fromEntries(
        Object.entries(OAUTH_CATALOGUE).map(([app, e]) => [app, withDefaults(app, e)]),
      );
    },
  };
  return {
    api,
    async resolve(workspaceId, app) {
      const record = await store.oauthClients.get(workspaceId, app);
      if (!record) return undefined;
      return {
        app,
        clientId: String(record.config.client_id),
        ...(record.clientSecret !== undefined ? { clientSecret: box.open(record.clientSecret) } : {}),
        settings: settingsOf(record),
      };
    },
  };
}
