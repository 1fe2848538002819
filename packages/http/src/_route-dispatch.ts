/**
 * Running a matched route of the REST API: its caller (`_api-auth.ts`), its parameters (path,
 * query and JSON body, checked against the route's schema), its handler, and its result as a
 * response; a creating request with an `Idempotency-Key` runs once per key.
 */
import { authenticate, type Caller } from "./_api-auth.js";
import type { RouteResult } from "./_define.js";
import { jsonResponse } from "./_errors.js";
import type { HandlerContext, Seen } from "./_handler-context.js";
import { fingerprintOf, idempotencyKeyOf, idempotent } from "./_idempotency.js";
import { listBody, readBody } from "./_limits.js";
import { mergeParams, parseJsonBody, queryObject, validateParams } from "./_params.js";
import type { RouteMatch } from "./_router.js";

/** Answers a request whose route matched. @internal */
export async function dispatchRoute(
  ctx: HandlerContext,
  { route, pathParams }: RouteMatch,
  request: Request,
  url: URL,
  requestId: string,
  seen: Seen,
): Promise<Response> {
  seen.route = route.path;
  const path = pathParams();
  if (typeof path.id === "string" && /^(dc|p)_/.test(path.id)) seen.emitterId = path.id;
  const caller = await authenticate(ctx, route, request, seen);
  if (caller instanceof Response) return caller;

  const body =
    request.method !== "GET" && request.method !== "DELETE"
      ? parseJsonBody(await readBody(request, ctx.bodyLimit))
      : {};
  const params = validateParams(route.params, mergeParams(queryObject(url), body));
  const { workspaceId, endUser, apiKey }: Caller = caller;
  const run = async () =>
    toResponse(
      ctx,
      await route.handler({
        request,
        url,
        hookline: ctx.hookline,
        workspaceId,
        ...(endUser ? { endUser } : {}),
        ...(apiKey ? { apiKey } : {}),
        path,
        params,
        requestId,
      }),
    );
  // A creating request with an Idempotency-Key runs once per key (docs/rest-api.md).
  const idempotencyKey =
    request.method === "POST" && route.auth !== false ? idempotencyKeyOf(request) : undefined;
  if (idempotencyKey === undefined) return run();
  // An end user's (connect token's) key never answers another end user of the workspace.
  const fingerprint = fingerprintOf(request.method, url.pathname, [params, endUser?.externalUserId ?? null]);
  const onError = (error: unknown) => ctx.onError(error, requestId);
  return idempotent(
    { store: ctx.hookline.store, workspaceId, key: idempotencyKey, fingerprint, onError },
    run,
  );
}

/** A route's result as a response. */
function toResponse(ctx: HandlerContext, result: RouteResult): Response {
  if (result instanceof Response) return result;
  if ("list" in result) {
    return jsonResponse(200, listBody(result.list, result.pageInfo, result.cursor, ctx.maxPageBytes));
  }
  return jsonResponse(200, {
    data: result.data,
    ...(result.warnings?.length ? { warnings: result.warnings } : {}),
  });
}
