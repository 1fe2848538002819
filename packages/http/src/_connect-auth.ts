/**
 * Connect tokens at the door: a route declared `auth: "connect"` also takes an end user's connect
 * token (`ctok_...`), and answers browsers of any origin for it (CORS), as an embedding app's front
 * end calls it; every other route refuses such a token. API keys never get these CORS headers (a
 * page of another origin cannot read what an API key reaches).
 */
import { HooklineError } from "@hookline/core";
import { CONNECT_TOKEN_PREFIX, type ConnectTokenGrant, type Hookline } from "@hookline/engine";
import type { Route } from "./_define.js";

/** The bearer credential of a request, if any. @internal */
export const bearerOf = (request: Request): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];

/** Whether a bearer credential is a connect token. @internal */
export const isConnectToken = (key: string): boolean => key.startsWith(CONNECT_TOKEN_PREFIX);

/** What a connect token reaches on this route; 401 `unauthorized` otherwise. @internal */
export async function connectGrant(
  hookline: Hookline,
  route: Route,
  token: string,
): Promise<ConnectTokenGrant> {
  if (route.auth !== "connect") {
    throw new HooklineError(
      "unauthorized",
      "A connect token reaches only its end user's connect flow and accounts (/v1/accounts...): use an API key",
    );
  }
  const grant = await hookline.connectTokens.resolve(token);
  if (!grant) throw new HooklineError("unauthorized", "The connect token is unknown or expired");
  return grant;
}

/**
 * The CORS headers of a request to a connect route: a preflight, or a request with a connect token
 * (whose `allowed_origins`, when it has some, must hold the origin). None for anything else.
 * @internal
 */
export function connectCors(
  request: Request,
  isConnectRoute: boolean,
  grant: ConnectTokenGrant | undefined,
): Record<string, string> {
  const origin = request.headers.get("origin");
  if (!origin || !isConnectRoute) return {};
  const key = bearerOf(request);
  const preflight = request.method === "OPTIONS";
  if (!preflight && (!key || !isConnectToken(key))) return {};
  if (grant && grant.allowedOrigins.length > 0 && !grant.allowedOrigins.includes(origin)) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": "GET, POST, PATCH, DELETE, OPTIONS",
    "access-control-allow-headers": "authorization, content-type, x-request-id",
    "access-control-expose-headers": "x-request-id, retry-after",
    "access-control-max-age": "600",
    vary: "origin",
  };
}
