/**
 * `/v1/oauth_clients`: the operator's OAuth apps, one per app slug (the secret sealed, never
 * returned); `/v1/oauth_providers`: the built-in catalogue; `/v1/connect/tokens`: connect tokens for
 * an embedding app's end users.
 */
import type { OAuthClientView, OAuthSettings } from "@hookline/engine";
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { Deleted } from "./_schemas.js";

const seconds = (ms: number) => Math.floor(ms / 1000);

const StringMap = (description: string) => Type.Record(Type.String(), Type.String(), { description });

/** The settings of a client (catalogue and operator's merged), as fields. */
const Settings = {
  name: Type.String({ description: "The provider's display name" }),
  authorize_url: Type.String({ description: "Authorization endpoint ({param} placeholders allowed)" }),
  token_url: Type.String({ description: "Token endpoint" }),
  scopes: Type.Array(Type.String()),
  scope_separator: Type.String({ description: "How scopes are joined (default a space)" }),
  pkce: Type.Boolean({ description: "Send a PKCE S256 challenge (default true)" }),
  token_auth: Type.Union(
    [Type.Literal("client_secret_basic"), Type.Literal("client_secret_post"), Type.Literal("none")],
    { description: "How the token endpoint authenticates the client" },
  ),
  authorize_params: StringMap("Extra authorize query parameters"),
  auth_fields: StringMap("$auth fields filled from the token response: field to a dotted path, or {param}"),
  user_info: Type.Object(
    { url: Type.String(), fields: StringMap("$auth fields filled from its JSON: field to a dotted path") },
    { description: "A call after the exchange that fills $auth fields (oauth_uid, names)" },
  ),
  issuer: Type.String({ description: "The issuer, when the provider sends OpenID iss and ID tokens" }),
  params: Type.Record(Type.String(), Type.Object({ pattern: Type.String(), description: Type.String() }), {
    description: "Connect parameters a user gives (Shopify's shop)",
  }),
  docs_url: Type.String({ description: "Where to register an OAuth app with this provider" }),
};

const OAuthClientData = Type.Object({
  app: Type.String(),
  provider: Type.Union([Type.String(), Type.Null()], { description: "The catalogue entry it starts from" }),
  client_id: Type.String(),
  has_client_secret: Type.Boolean(),
  redirect_uri: Type.String({ description: "The redirect URL to register with the provider" }),
  ...Settings,
  user_info: Type.Union([Settings.user_info, Type.Null()]),
  issuer: Type.Union([Type.String(), Type.Null()]),
  params: Type.Union([Settings.params, Type.Null()]),
  docs_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

function settingsJson(s: OAuthSettings) {
  return {
    ...s,
    user_info: s.user_info ?? null,
    issuer: s.issuer ?? null,
    params: s.params ?? null,
    docs_url: s.docs_url ?? null,
  };
}

function clientJson(c: OAuthClientView) {
  return {
    app: c.app,
    provider: c.provider ?? null,
    client_id: c.clientId,
    has_client_secret: c.hasClientSecret,
    redirect_uri: c.redirectUri,
    ...settingsJson(c.settings),
    created_at: seconds(c.createdAt),
    updated_at: seconds(c.updatedAt),
  };
}

/** The OAuth client and connect token routes. */
export const oauthClientRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/oauth_providers",
    tag: "OAuth clients",
    summary: "The built-in catalogue of OAuth providers: their endpoints, scopes and $auth fields",
    data: Type.Array(Type.Object({ app: Type.String(), ...Settings, redirect_uri: Type.String() })),
    async handler({ hookline }) {
      const redirect = hookline.oauthClients.redirectUri();
      const list = Object.entries(hookline.oauthClients.catalogue()).map(([slug, s]) => ({
        app: slug,
        ...settingsJson(s),
        redirect_uri: redirect,
      }));
      return { data: list };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/oauth_clients",
    tag: "OAuth clients",
    summary: "List the workspace's OAuth clients (never their secrets)",
    data: Type.Array(OAuthClientData),
    async handler({ hookline, workspaceId }) {
      return { data: (await hookline.oauthClients.list(workspaceId)).map(clientJson) };
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/oauth_clients/{app}",
    tag: "OAuth clients",
    summary:
      "Create or replace an app's OAuth client: for a catalogue app, client_id and client_secret suffice (a secret left out is kept)",
    params: Type.Object({
      client_id: Type.String({ minLength: 1, maxLength: 500 }),
      client_secret: Type.Optional(
        Type.String({ minLength: 1, description: "Sealed at rest, never returned" }),
      ),
      provider: Type.Optional(
        Type.String({ description: "A catalogue entry to start from (default: the app's)" }),
      ),
      ...Object.fromEntries(Object.entries(Settings).map(([k, v]) => [k, Type.Optional(v)])),
    }),
    data: OAuthClientData,
    async handler({ hookline, workspaceId, path, params }) {
      const view = await hookline.oauthClients.put(workspaceId, path.app as string, params);
      return { data: clientJson(view) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/oauth_clients/{app}",
    tag: "OAuth clients",
    summary: "Get an app's OAuth client (with the redirect URL to register)",
    data: OAuthClientData,
    async handler({ hookline, workspaceId, path }) {
      return { data: clientJson(await hookline.oauthClients.get(workspaceId, path.app as string)) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/oauth_clients/{app}",
    tag: "OAuth clients",
    summary:
      "Delete an app's OAuth client (its accounts cannot be refreshed or connected until another is set)",
    data: Deleted,
    async handler({ hookline, workspaceId, path }) {
      await hookline.oauthClients.delete(workspaceId, path.app as string);
      return { data: { deleted: true } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/connect/tokens",
    tag: "Connect",
    summary:
      "Mint a short-lived connect token (ctok_...) for an end user: it reaches only that user's connect flow and accounts",
    params: Type.Object({
      external_user_id: Type.String({ minLength: 1, maxLength: 250 }),
      allowed_origins: Type.Optional(
        Type.Array(Type.String(), { description: "Front-end origins the connect flow may report to" }),
      ),
      ttl: Type.Optional(
        Type.Integer({ minimum: 60, maximum: 86_400, description: "Seconds (default 14,400)" }),
      ),
    }),
    data: Type.Object({
      token: Type.String({ pattern: "^ctok_" }),
      expires_at: Type.Integer(),
      connect_link_url: Type.String({
        description: "The hosted connect page (pass the token in its #fragment)",
      }),
    }),
    async handler({ hookline, workspaceId, params }) {
      const made = await hookline.connectTokens.create(workspaceId, {
        externalUserId: params.external_user_id,
        ...(params.allowed_origins ? { allowedOrigins: params.allowed_origins } : {}),
        ...(params.ttl !== undefined ? { ttlSeconds: params.ttl } : {}),
      });
      return {
        data: { token: made.token, expires_at: seconds(made.expiresAt), connect_link_url: made.connectUrl },
      };
    },
  }),
];
