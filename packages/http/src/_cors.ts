/**
 * The CORS headers of the handler's `cors` option (the whole API, for the origins it names). The
 * connect routes' own CORS, which answers any origin for a connect token, is `_connect-auth.ts`'s.
 */

/** The `cors` option of `createHandler()`: the origins allowed to call the API from a browser. */
export interface CorsOption {
  /** Allowed origins (`"*"` for any). */
  origin: string | string[];
}

/** The CORS headers for `request`: none without the option or for an origin it does not allow. @internal */
export function corsHeaders(cors: CorsOption | undefined, request: Request): Record<string, string> {
  if (!cors) return {};
  const origin = request.headers.get("origin");
  const allowed = cors.origin;
  const ok =
    allowed === "*" || (origin !== null && (Array.isArray(allowed) ? allowed : [allowed]).includes(origin));
  if (!ok) return {};
  return {
    "access-control-allow-origin": allowed === "*" ? "*" : (origin as string),
    "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
    "access-control-allow-headers":
      "authorization, content-type, idempotency-key, last-event-id, x-request-id",
    "access-control-expose-headers":
      "x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, idempotent-replayed",
    vary: "origin",
  };
}
