/**
 * The built-in catalogue of well-known OAuth providers: their public endpoints, default scopes and
 * how their token responses become `$auth`, so that an operator only pastes a client id and secret
 * (`PUT /v1/oauth_clients/{app}`). Every field can be overridden per client. docs/accounts.md lists
 * them with where each provider registers OAuth apps.
 */

/** How the token endpoint authenticates the client (RFC 8414 names). */
export type TokenAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

/** An OAuth client's settings, the catalogue's and the operator's merged (REST's snake_case). */
export interface OAuthSettings {
  /** The provider's display name. */
  name: string;
  /** Authorization endpoint; `{param}` is replaced by a connect parameter (Shopify's `{shop}`). */
  authorize_url: string;
  /** Token endpoint (same placeholders). */
  token_url: string;
  /** Scopes requested. */
  scopes: string[];
  /** How scopes are joined (default a space; some providers want a comma). */
  scope_separator: string;
  /** Send a PKCE S256 challenge (default true). */
  pkce: boolean;
  /** How the token endpoint authenticates the client. */
  token_auth: TokenAuthMethod;
  /** Extra authorize query parameters (`access_type: offline`...). */
  authorize_params: Record<string, string>;
  /**
   * `$auth` fields filled from the token response: field name to a dotted path in the response
   * (`team.id`), or a `{param}` connect parameter.
   */
  auth_fields: Record<string, string>;
  /** An optional user-info call after the exchange: its URL and the `$auth` fields it fills (dotted paths). */
  user_info?: { url: string; fields: Record<string, string> };
  /** The issuer, when the provider sends OpenID `iss` and ID tokens: then both are checked. */
  issuer?: string;
  /** Connect parameters the user gives (`shop`), each checked against a pattern. */
  params?: Record<string, { pattern: string; description: string }>;
  /** Where operators register an OAuth app with this provider. */
  docs_url?: string;
}

/** A catalogue entry: everything but the client's own id and secret. */
export type CatalogueEntry = Omit<
  OAuthSettings,
  "scope_separator" | "pkce" | "authorize_params" | "auth_fields"
> &
  Partial<Pick<OAuthSettings, "scope_separator" | "pkce" | "authorize_params" | "auth_fields">>;

/** The providers Hookline knows, by app name slug (Pipedream's). */
export const OAUTH_CATALOGUE: Readonly<Record<string, CatalogueEntry>> = {
  github: {
    name: "GitHub",
    authorize_url: "https://github.com/login/oauth/authorize",
    token_url: "https://github.com/login/oauth/access_token",
    scopes: ["repo", "read:user", "user:email"],
    token_auth: "client_secret_post",
    user_info: { url: "https://api.github.com/user", fields: { oauth_uid: "id", login: "login" } },
    docs_url: "https://github.com/settings/developers",
  },
  gitlab: {
    name: "GitLab",
    authorize_url: "https://gitlab.com/oauth/authorize",
    token_url: "https://gitlab.com/oauth/token",
    scopes: ["api", "read_user"],
    token_auth: "client_secret_post",
    user_info: { url: "https://gitlab.com/api/v4/user", fields: { oauth_uid: "id", username: "username" } },
    docs_url: "https://gitlab.com/-/user_settings/applications",
  },
  google: {
    name: "Google",
    authorize_url: "https://accounts.google.com/o/oauth2/v2/auth",
    token_url: "https://oauth2.googleapis.com/token",
    scopes: ["openid", "email", "profile"],
    token_auth: "client_secret_post",
    authorize_params: { access_type: "offline", prompt: "consent" },
    user_info: {
      url: "https://openidconnect.googleapis.com/v1/userinfo",
      fields: { oauth_uid: "sub", email: "email" },
    },
    docs_url: "https://console.cloud.google.com/apis/credentials",
  },
  microsoft: {
    name: "Microsoft",
    authorize_url: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
    token_url: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
    scopes: ["offline_access", "User.Read"],
    token_auth: "client_secret_post",
    user_info: {
      url: "https://graph.microsoft.com/v1.0/me",
      fields: { oauth_uid: "id", email: "userPrincipalName" },
    },
    docs_url: "https://entra.microsoft.com/#view/Microsoft_AAD_RegisteredApps",
  },
  slack: {
    name: "Slack",
    authorize_url: "https://slack.com/oauth/v2/authorize",
    token_url: "https://slack.com/api/oauth.v2.access",
    scopes: ["channels:read", "chat:write"],
    scope_separator: ",",
    token_auth: "client_secret_post",
    auth_fields: {
      oauth_uid: "authed_user.id",
      team_id: "team.id",
      team_name: "team.name",
      bot_user_id: "bot_user_id",
    },
    docs_url: "https://api.slack.com/apps",
  },
  notion: {
    name: "Notion",
    authorize_url: "https://api.notion.com/v1/oauth/authorize",
    token_url: "https://api.notion.com/v1/oauth/token",
    scopes: [],
    token_auth: "client_secret_basic",
    authorize_params: { owner: "user" },
    auth_fields: { oauth_uid: "bot_id", workspace_id: "workspace_id", workspace_name: "workspace_name" },
    docs_url: "https://www.notion.so/profile/integrations",
  },
  linear_app: {
    name: "Linear",
    authorize_url: "https://linear.app/oauth/authorize",
    token_url: "https://api.linear.app/oauth/token",
    scopes: ["read", "write"],
    scope_separator: ",",
    token_auth: "client_secret_post",
    docs_url: "https://linear.app/settings/api/applications/new",
  },
  hubspot: {
    name: "HubSpot",
    authorize_url: "https://app.hubspot.com/oauth/authorize",
    token_url: "https://api.hubapi.com/oauth/v1/token",
    scopes: ["oauth", "crm.objects.contacts.read"],
    token_auth: "client_secret_post",
    docs_url: "https://developers.hubspot.com/docs/api/creating-an-app",
  },
  salesforce_rest_api: {
    name: "Salesforce",
    authorize_url: "https://login.salesforce.com/services/oauth2/authorize",
    token_url: "https://login.salesforce.com/services/oauth2/token",
    scopes: ["api", "refresh_token"],
    token_auth: "client_secret_post",
    auth_fields: { instance_url: "instance_url", oauth_uid: "id" },
    docs_url: "https://help.salesforce.com/s/articleView?id=sf.connected_app_create.htm",
  },
  discord: {
    name: "Discord",
    authorize_url: "https://discord.com/oauth2/authorize",
    token_url: "https://discord.com/api/oauth2/token",
    scopes: ["identify", "email"],
    token_auth: "client_secret_post",
    user_info: {
      url: "https://discord.com/api/users/@me",
      fields: { oauth_uid: "id", username: "username" },
    },
    docs_url: "https://discord.com/developers/applications",
  },
  dropbox: {
    name: "Dropbox",
    authorize_url: "https://www.dropbox.com/oauth2/authorize",
    token_url: "https://api.dropboxapi.com/oauth2/token",
    scopes: [],
    token_auth: "client_secret_post",
    authorize_params: { token_access_type: "offline" },
    auth_fields: { oauth_uid: "account_id" },
    docs_url: "https://www.dropbox.com/developers/apps",
  },
  zoom: {
    name: "Zoom",
    authorize_url: "https://zoom.us/oauth/authorize",
    token_url: "https://zoom.us/oauth/token",
    scopes: [],
    token_auth: "client_secret_basic",
    user_info: { url: "https://api.zoom.us/v2/users/me", fields: { oauth_uid: "id", email: "email" } },
    docs_url: "https://marketplace.zoom.us/develop/create",
  },
  jira: {
    name: "Atlassian (Jira, Confluence)",
    authorize_url: "https://auth.atlassian.com/authorize",
    token_url: "https://auth.atlassian.com/oauth/token",
    scopes: ["read:me", "read:jira-work", "offline_access"],
    token_auth: "client_secret_post",
    authorize_params: { audience: "api.atlassian.com", prompt: "consent" },
    user_info: { url: "https://api.atlassian.com/me", fields: { oauth_uid: "account_id", email: "email" } },
    docs_url: "https://developer.atlassian.com/console/myapps/",
  },
  airtable_oauth: {
    name: "Airtable",
    authorize_url: "https://airtable.com/oauth2/v1/authorize",
    token_url: "https://airtable.com/oauth2/v1/token",
    scopes: ["data.records:read", "schema.bases:read"],
    token_auth: "client_secret_basic",
    user_info: { url: "https://api.airtable.com/v0/meta/whoami", fields: { oauth_uid: "id" } },
    docs_url: "https://airtable.com/create/oauth",
  },
  asana: {
    name: "Asana",
    authorize_url: "https://app.asana.com/-/oauth_authorize",
    token_url: "https://app.asana.com/-/oauth_token",
    scopes: [],
    token_auth: "client_secret_post",
    auth_fields: { oauth_uid: "data.gid", email: "data.email" },
    docs_url: "https://app.asana.com/0/my-apps",
  },
  shopify: {
    name: "Shopify",
    authorize_url: "https://{shop}/admin/oauth/authorize",
    token_url: "https://{shop}/admin/oauth/access_token",
    scopes: ["read_products", "read_orders"],
    scope_separator: ",",
    token_auth: "client_secret_post",
    auth_fields: { shop_id: "{shop}" },
    params: {
      shop: {
        pattern: "^[a-z0-9][a-z0-9-]*\\.myshopify\\.com$",
        description: "The shop's domain, such as acme.myshopify.com",
      },
    },
    docs_url: "https://partners.shopify.com",
  },
};
