/**
 * The OAuth 2.0 protocol, through `oauth4webapi` (decision 0180): the authorization URL with its
 * state and PKCE S256 challenge, the code exchange, the refresh, each over the engine's SSRF-guarded
 * transport. Token responses are normalized first for providers that bend RFC 6749 (an error sent
 * with 200, no `token_type`, Slack's `bot` tokens). Errors become HooklineErrors: the provider's
 * refusal `oauth_exchange_failed` (with `details.provider_error`), anything else `oauth_provider_error`.
 */

import { HooklineError } from "@hookline/core";
import type { Transport } from "@hookline/delivery";
import * as oauth from "oauth4webapi";
import type { ResolvedClient } from "./clients.js";

/** A token endpoint's answer, normalized. */
export type TokenSet = oauth.TokenEndpointResponse;

/** A provider's refusal: its error code (`invalid_grant`...). */
export interface ProviderRefusal {
  providerError: string;
  description?: string;
}

/** How long one request to a provider may take. */
const REQUEST_TIMEOUT_MS = 15_000;

/** Replaces `{param}` placeholders of a URL with connect parameters. */
export function withParams(url: string, params: Record<string, string>): string {
  return url.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ""));
}

function serverOf(client: ResolvedClient, params: Record<string, string>): oauth.AuthorizationServer {
  const authorize = withParams(client.settings.authorize_url, params);
  return {
    issuer: client.settings.issuer ?? new URL(authorize).origin,
    authorization_endpoint: authorize,
    token_endpoint: withParams(client.settings.token_url, params),
  };
}

function clientAuthOf(client: ResolvedClient): oauth.ClientAuth {
  const secret = client.clientSecret ?? "";
  if (client.settings.token_auth === "none") return oauth.None();
  return client.settings.token_auth === "client_secret_basic"
    ? oauth.ClientSecretBasic(secret)
    : oauth.ClientSecretPost(secret);
}

/**
 * The transport's fetch, with token responses made RFC 6749 shaped: a 2xx JSON body carrying
 * `error` (or Slack's `ok: false`) becomes a 400; a missing or unknown `token_type` becomes `bearer`;
 * an ID token is dropped unless the client names its issuer (Hookline does not use it, and without
 * the issuer it cannot be checked).
 */
function tokenFetch(transport: Transport, keepIdToken: boolean): typeof fetch {
  return async (input, init) => {
    const response = await transport.fetch(input, init);
    const type = response.headers.get("content-type") ?? "";
    if (!response.ok || !type.includes("json")) return response;
    const body = (await response.json()) as Record<string, unknown>;
    let status = 200;
    if (typeof body.error === "string" || body.ok === false) {
      status = 400;
      body.error = typeof body.error === "string" ? body.error : "invalid_request";
    } else {
      const tokenType = typeof body.token_type === "string" ? body.token_type.toLowerCase() : "";
      if (tokenType !== "bearer" && tokenType !== "dpop") body.token_type = "bearer";
      if (!keepIdToken) delete body.id_token;
    }
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  };
}

function optionsOf(transport: Transport, client: ResolvedClient) {
  return {
    [oauth.customFetch]: tokenFetch(transport, client.settings.issuer !== undefined),
    [oauth.allowInsecureRequests]: true,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  };
}

/** The refusal in a provider's error, when it is one (an OAuth error response). */
export function refusalOf(error: unknown): ProviderRefusal | undefined {
  if (error instanceof oauth.ResponseBodyError) {
    return {
      providerError: error.error,
      ...(error.error_description ? { description: error.error_description } : {}),
    };
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0]?.parameters as Record<string, string | undefined> | undefined;
    return { providerError: challenge?.error ?? "invalid_client" };
  }
  return undefined;
}

/** A provider error as a HooklineError: a refusal (400) or a failure to talk to it (502). */
export function providerError(error: unknown, what: string): HooklineError {
  if (error instanceof HooklineError) return error;
  const refusal = refusalOf(error);
  if (refusal) {
    const why = refusal.description ? `: ${refusal.description}` : "";
    return new HooklineError(
      "oauth_exchange_failed",
      `The provider refused ${what} (${refusal.providerError}${why}); nothing was stored`,
      { provider_error: refusal.providerError },
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new HooklineError("oauth_provider_error", `The provider could not complete ${what}: ${reason}`, {
    reason,
  });
}

/** A new PKCE verifier and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

/** A new `state` value (32 random bytes, base64url). */
export const newState = (): string => oauth.generateRandomState();

/** The URL the user authorizes at. */
export function authorizationUrl(
  client: ResolvedClient,
  input: { redirectUri: string; state: string; challenge?: string; params: Record<string, string> },
): string {
  const url = new URL(withParams(client.settings.authorize_url, input.params));
  const q = url.searchParams;
  for (const [k, v] of Object.entries(client.settings.authorize_params)) q.set(k, v);
  q.set("response_type", "code");
  q.set("client_id", client.clientId);
  q.set("redirect_uri", input.redirectUri);
  if (client.settings.scopes.length > 0)
    q.set("scope", client.settings.scopes.join(client.settings.scope_separator));
  q.set("state", input.state);
  if (input.challenge) {
    q.set("code_challenge", input.challenge);
    q.set("code_challenge_method", "S256");
  }
  return url.href;
}

/** Exchanges an authorization code for tokens. Throws `oauth_exchange_failed` or `oauth_provider_error`. */
export async function exchangeCode(
  transport: Transport,
  client: ResolvedClient,
  input: {
    code: string;
    state: string;
    iss?: string;
    redirectUri: string;
    verifier?: string;
    params: Record<string, string>;
  },
): Promise<TokenSet> {
  try {
    const as = serverOf(client, input.params);
    const cl: oauth.Client = { client_id: client.clientId };
    const callback = new URLSearchParams({ code: input.code, state: input.state });
    if (input.iss !== undefined && client.settings.issuer !== undefined) callback.set("iss", input.iss);
    const validated = oauth.validateAuthResponse(as, cl, callback, input.state);
    const options = optionsOf(transport, client);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      cl,
      clientAuthOf(client),
      validated,
      input.redirectUri,
      input.verifier ?? oauth.nopkce,
      options,
    );
    return await oauth.processAuthorizationCodeResponse(as, cl, response);
  } catch (error) {
    throw providerError(error, "the authorization code");
  }
}

/** Refreshes tokens; throws the library's errors (see {@link refusalOf}). */
export async function refreshTokens(
  transport: Transport,
  client: ResolvedClient,
  refreshToken: string,
  params: Record<string, string>,
): Promise<TokenSet> {
  const as = serverOf(client, params);
  const cl: oauth.Client = { client_id: client.clientId };
  const response = await oauth.refreshTokenGrantRequest(
    as,
    cl,
    clientAuthOf(client),
    refreshToken,
    optionsOf(transport, client),
  );
  return oauth.processRefreshTokenResponse(as, cl, response);
}

/** Calls the client's user-info URL with the new access token; its JSON body. */
export async function fetchUserInfo(
  transport: Transport,
  url: string,
  accessToken: string,
): Promise<Record<string, unknown>> {
  try {
    const response = await transport.fetch(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`the user-info URL answered ${response.status}`);
    const body = (await response.json()) as unknown;
    if (typeof body !== "object" || body === null)
      throw new Error("the user-info URL answered no JSON object");
    return body as Record<string, unknown>;
  } catch (error) {
    throw providerError(error, "the user-info call");
  }
}
