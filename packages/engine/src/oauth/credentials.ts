/**
 * The `$auth` of an OAuth account, shaped as Pipedream's: `oauth_access_token`,
 * `oauth_refresh_token`, `oauth_uid`, `oauth_client_id`, `expires_at` (epoch seconds), and the
 * app's own fields taken from the token response (`auth_fields`), the user-info call
 * (`user_info.fields`) and the connect parameters (`{shop}`).
 */
import type { ResolvedClient } from "./clients.js";
import type { TokenSet } from "./protocol.js";

/** The value at a dotted path of a JSON object (`team.id`), or a `{param}` connect parameter. */
function pick(source: Record<string, unknown>, path: string, params: Record<string, string>): unknown {
  const param = /^\{(\w+)\}$/.exec(path)?.[1];
  if (param !== undefined) return params[param];
  let value: unknown = source;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Identifiers are strings in `$auth` (GitHub's numeric user id becomes "583231"). */
const asField = (name: string, value: unknown) =>
  name === "oauth_uid" && typeof value === "number" ? String(value) : value;

/**
 * The credentials of a new token set: what `previous` had (custom fields, and the refresh token
 * when the provider sends no new one), replaced by the new tokens and fields. `expiresAt` is epoch
 * ms by `now` (none when the provider gives no `expires_in`).
 */
export function credentialsOf(
  client: ResolvedClient,
  tokens: TokenSet,
  input: {
    previous?: Record<string, unknown>;
    userInfo?: Record<string, unknown>;
    params: Record<string, string>;
    now: number;
  },
): { credentials: Record<string, unknown>; expiresAt?: number } {
  const credentials: Record<string, unknown> = { ...(input.previous ?? {}) };
  credentials.oauth_access_token = tokens.access_token;
  const refresh = tokens.refresh_token ?? input.previous?.oauth_refresh_token;
  if (typeof refresh === "string") credentials.oauth_refresh_token = refresh;
  credentials.oauth_client_id = client.clientId;
  credentials.token_type = tokens.token_type;
  if (typeof tokens.scope === "string") credentials.scope = tokens.scope;
  const fields = client.settings.auth_fields;
  for (const [name, path] of Object.entries(fields)) {
    const value = pick(tokens as Record<string, unknown>, path, input.params);
    if (value !== undefined) credentials[name] = asField(name, value);
  }
  if (input.userInfo && client.settings.user_info) {
    for (const [name, path] of Object.entries(client.settings.user_info.fields)) {
      const value = pick(input.userInfo, path, input.params);
      if (value !== undefined) credentials[name] = asField(name, value);
    }
  }
  let expiresAt: number | undefined;
  if (typeof tokens.expires_in === "number" && tokens.expires_in > 0) {
    expiresAt = input.now + tokens.expires_in * 1000;
    credentials.expires_at = Math.floor(expiresAt / 1000);
  } else delete credentials.expires_at;
  return { credentials, ...(expiresAt !== undefined ? { expiresAt } : {}) };
}

/** A display name for a new account: the user-info's login, name or email, else the app's name. */
export function defaultName(client: ResolvedClient, credentials: Record<string, unknown>): string {
  for (const key of ["login", "username", "email", "name", "team_name", "workspace_name", "shop_id"]) {
    const value = credentials[key];
    if (typeof value === "string" && value !== "") return `${client.settings.name} (${value})`.slice(0, 200);
  }
  return client.settings.name;
}
