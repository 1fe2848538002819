/**
 * Who calls a route of the REST API: the bearer credential (an API key, or a connect token on a
 * connect route), the per-key rate limit, and the operator-only routes. A route declared
 * `auth: false` takes no credential.
 */
import { HooklineError } from "@hookline/core";
import type { ConnectScope } from "@hookline/engine";
import { hashApiKey } from "@hookline/engine";
import type { ApiKey } from "@hookline/store";
import { bearerOf, connectGrant, isConnectToken } from "./_connect-auth.js";
import type { Route } from "./_define.js";
import type { HandlerContext, Seen } from "./_handler-context.js";
import { rateLimited } from "./_limits.js";

/** The caller of a route: its workspace (`""` on a route without auth), and its end user or API key. @internal */
export interface Caller {
  workspaceId: string;
  /** Set for a connect token: the end user it acts for. */
  endUser?: ConnectScope;
  /** Set for an API key. */
  apiKey?: ApiKey;
}

/**
 * The caller of `route`, or the 429 of its API key's rate limit; throws 401 `unauthorized` without
 * a valid credential and 403 `operator_key_required` for a workspace key on an operator route.
 * @internal
 */
export async function authenticate(
  ctx: HandlerContext,
  route: Route,
  request: Request,
  seen: Seen,
): Promise<Caller | Response> {
  if (route.auth === false) return { workspaceId: "" };
  const key = bearerOf(request);
  if (!key) throw new HooklineError("unauthorized", "Send Authorization: Bearer <api key>");
  let caller: Caller;
  if (isConnectToken(key)) {
    const grant = await connectGrant(ctx.hookline, route, key);
    seen.grant = grant;
    const endUser = { externalUserId: grant.externalUserId, allowedOrigins: grant.allowedOrigins };
    caller = { workspaceId: grant.workspaceId, endUser };
  } else {
    const found = await ctx.hookline.apiKeys.authenticate(key);
    if (!found) throw new HooklineError("unauthorized", "The API key is unknown or revoked");
    caller = { workspaceId: found.workspace.id, apiKey: found.apiKey };
  }
  seen.workspaceId = caller.workspaceId;
  const { apiLimit } = ctx;
  const limitKey = hashApiKey(key);
  const retryAfter = apiLimit?.take(limitKey);
  if (apiLimit) seen.limit = apiLimit.headers(limitKey);
  if (retryAfter !== undefined) return rateLimited(retryAfter, "with this API key");
  if (route.auth === "operator" && caller.apiKey?.role !== "operator") {
    throw new HooklineError(
      "operator_key_required",
      `${route.method} ${route.path} manages workspaces and API keys: it takes an operator key, not a workspace key`,
    );
  }
  return caller;
}
