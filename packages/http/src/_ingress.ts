/**
 * The HTTP-interface ingress, `/http/{endpoint_id}/...`: the per-endpoint and per-workspace rate
 * limits, the request handed to `hookline.ingress` (a source's or a workflow's endpoint), and its
 * reply as a `Response`. No API key: the endpoint id is the address.
 */
import { finalStatusProblem } from "@hookline/core";
import type { IngressResponse, IngressTarget } from "@hookline/engine";
import { errorResponse } from "./_errors.js";
import type { HandlerContext, Seen } from "./_handler-context.js";
import { lightResponse } from "./_lazy-request-response.js";
import { rateLimited, rateLimitedReply, readBody } from "./_limits.js";
import { decodePath, queryObject } from "./_params.js";

/** `/http/{endpoint_id}` and the rest of the path after it, when `path` is an ingress path. @internal */
export function ingressPath(path: string): { endpoint: string; rest: string } | undefined {
  const http = /^\/http\/([^/]+)(\/.*)?$/.exec(path);
  return http ? { endpoint: http[1] as string, rest: http[2] ?? "/" } : undefined;
}

// Statuses whose response has no body, and the informational ones a fetch Response cannot end with.
const NULL_BODY = new Set([204, 205, 304]);

/** Answers a request to an HTTP endpoint (`rawEndpoint` as it stands in the path). @internal */
export async function ingress(
  ctx: HandlerContext,
  request: Request,
  url: URL,
  { endpoint: rawEndpoint, rest }: { endpoint: string; rest: string },
  seen: Seen,
): Promise<Response> {
  const { ingressLimit, workspaceLimit } = ctx;
  seen.route = "/http/{endpoint_id}";
  seen.ingress = "unknown";
  const endpointId = decodePath(["endpoint_id"], [rawEndpoint]).endpoint_id as string;
  const retryAfter = ingressLimit?.take(endpointId);
  if (ingressLimit) seen.limit = ingressLimit.headers(endpointId);
  if (retryAfter !== undefined) {
    seen.limited = "endpoint";
    return rateLimited(retryAfter, "to this HTTP endpoint");
  }
  const body = await readBody(request, ctx.bodyLimit);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const reply = await ctx.hookline.ingress(endpointId, {
    method: request.method,
    path: rest || "/",
    query: queryObject(url),
    headers,
    ...(body.byteLength > 0 ? { body } : {}),
    ...(workspaceLimit ? { admit: (target: IngressTarget) => admitWorkspace(ctx, target, seen) } : {}),
  });
  if (reply.target) {
    seen.ingress = reply.target.kind;
    seen.workspaceId = reply.target.workspaceId;
    seen.emitterId = reply.target.emitterId;
  }
  // A fetch Response cannot end with an informational status: the component answered wrongly.
  const informational = finalStatusProblem(reply.status);
  if (informational) return errorResponse(502, "invalid_respond", informational);
  const bodyless = NULL_BODY.has(reply.status) || request.method === "HEAD";
  return lightResponse(bodyless ? null : reply.body, reply.status, reply.headers);
}

/** The per-workspace guard of the HTTP endpoints: a 429 once the workspace's bucket is empty. */
function admitWorkspace(ctx: HandlerContext, target: IngressTarget, seen: Seen): IngressResponse | undefined {
  const wait = ctx.workspaceLimit?.take(target.workspaceId);
  if (wait === undefined) return undefined;
  seen.limited = "workspace";
  return rateLimitedReply(wait, "to this workspace's HTTP endpoints");
}
