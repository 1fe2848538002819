/**
 * `createHandler()`: the whole `/v1` REST API, the HTTP-interface ingress and the OpenAPI document
 * as one Web-standard `(request: Request) => Promise<Response>`. This file holds the options and
 * the wiring; each concern is a module over one explicit {@link HandlerContext}: the ingress
 * (`_ingress.ts`), route matching (`_router.ts`), a matched route's caller (`_api-auth.ts`) and
 * run (`_route-dispatch.ts`), the operators' routes and the observer (`_ops.ts`), CORS (`_cors.ts`,
 * `_connect-auth.ts`) and thrown errors (`_errors.ts`).
 */
import type { Hookline } from "@hookline/engine";
import { connectCors } from "./_connect-auth.js";
import { type CorsOption, corsHeaders } from "./_cors.js";
import type { Route } from "./_define.js";
import { jsonResponse, thrownResponse } from "./_errors.js";
import type { HandlerContext, Seen } from "./_handler-context.js";
import { ingress, ingressPath } from "./_ingress.js";
import { lightResponse, withHeaders } from "./_lazy-request-response.js";
import { type TokenBucketOptions, tokenBuckets, windowLimiter } from "./_limits.js";
import { type MetricsRoute, opsResponse, type RequestObserver, report, requestIdOf } from "./_ops.js";
import { dispatchRoute } from "./_route-dispatch.js";
import { createRouter } from "./_router.js";
import { buildOpenApi } from "./openapi.js";
import { accountRoutes } from "./routes/accounts.js";
import { componentRoutes } from "./routes/components.js";
import { dataStoreRoutes } from "./routes/data-stores.js";
import { flowRoutes } from "./routes/flow.js";
import { oauthClientRoutes } from "./routes/oauth-clients.js";
import { oauthPageRoutes } from "./routes/oauth-pages.js";
import { replayRoutes } from "./routes/replays.js";
import { sourceRoutes } from "./routes/sources.js";
import { subscriptionRoutes } from "./routes/subscriptions.js";
import { tenantRoutes } from "./routes/tenants.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { workflowReplayRoutes } from "./routes/workflow-replay.js";
import { workflowTestRoutes } from "./routes/workflow-test.js";
import { workflowRoutes } from "./routes/workflows.js";
import { createStreamRoutes, streamRoutes } from "./sse.js";

/** Options of {@link createHandler}. */
export interface HandlerOptions {
  /** Largest request body, bytes (default 1 MB), for the API and HTTP endpoints; larger is 413 `payload_too_large`. */
  bodyLimit?: number;
  /** Requests per API key per window (default 600 per 60 s); `false` turns the limit off. */
  rateLimit?: { requests: number; windowMs: number } | false;
  /**
   * Requests per HTTP endpoint (`/http/{endpoint_id}`) on this node, as a token bucket (default 400
   * per second sustained, bursts of 2,000: docs/operations.md says how it was sized); over it, 429
   * `rate_limited` with `Retry-After`. `false` turns the limit off.
   */
  ingressRateLimit?: TokenBucketOptions | false;
  /**
   * Requests to all the HTTP endpoints of one workspace on this node, as a token bucket (default
   * 800 per second, bursts of 4,000); over it, 429 `rate_limited`. `false` turns the limit off.
   */
  workspaceIngressRateLimit?: TokenBucketOptions | false;
  /**
   * Told of each request once its response is ready (route template, status, time, request id,
   * workspace, emitter): what logs and metrics read. `createMetrics().observer` is one.
   */
  observer?: RequestObserver;
  /**
   * Serves `GET /metrics` here, to a scrape that sends `Authorization: Bearer <token>`. Without it
   * `/metrics` is not a route (serve the metrics on another address instead: docs/operations.md).
   */
  metrics?: MetricsRoute;
  /**
   * Largest serialized page of a list, bytes (default 4 MB): a page stops before the item that
   * would pass it (it always holds one item) and `end_cursor` continues from there.
   */
  maxPageBytes?: number;
  /** CORS: allowed origins (`"*"` for any). Default: no CORS headers. */
  cors?: CorsOption;
  /** Where errors that are not Hookline errors are reported (default `console.error`). */
  onError?: (error: unknown, requestId: string) => void;
  /** SSE heartbeat interval, ms (default 15,000). */
  heartbeatMs?: number;
}

/** The defaults of the caps in {@link HandlerOptions}. */
export const HANDLER_DEFAULTS = {
  bodyLimit: 1024 * 1024,
  rateLimit: { requests: 600, windowMs: 60_000 },
  ingressRateLimit: { perSecond: 400, burst: 2000 },
  workspaceIngressRateLimit: { perSecond: 800, burst: 4000 },
  maxPageBytes: 4 * 1024 * 1024,
} as const;

/** Every route of the REST API, in matching order. */
export const ROUTES: Route[] = [
  ...webhookRoutes,
  ...subscriptionRoutes,
  ...replayRoutes,
  ...componentRoutes,
  ...sourceRoutes,
  ...accountRoutes,
  ...oauthClientRoutes,
  ...oauthPageRoutes,
  ...dataStoreRoutes,
  ...workflowRoutes,
  ...flowRoutes,
  ...workflowReplayRoutes,
  ...workflowTestRoutes,
  ...streamRoutes,
  ...tenantRoutes,
];

/** The handler's shared context, from its options. */
function handlerContext(hookline: Hookline, options: HandlerOptions): HandlerContext {
  const { rateLimit, ingressRateLimit, workspaceIngressRateLimit } = options;
  return {
    hookline,
    bodyLimit: options.bodyLimit ?? HANDLER_DEFAULTS.bodyLimit,
    maxPageBytes: options.maxPageBytes ?? HANDLER_DEFAULTS.maxPageBytes,
    apiLimit: rateLimit === false ? undefined : windowLimiter(rateLimit ?? HANDLER_DEFAULTS.rateLimit),
    ingressLimit:
      ingressRateLimit === false
        ? undefined
        : tokenBuckets(ingressRateLimit ?? HANDLER_DEFAULTS.ingressRateLimit),
    workspaceLimit:
      workspaceIngressRateLimit === false
        ? undefined
        : tokenBuckets(workspaceIngressRateLimit ?? HANDLER_DEFAULTS.workspaceIngressRateLimit),
    metrics: options.metrics,
    onError: options.onError ?? ((error, id) => console.error(`[hookline ${id}]`, error)),
  };
}

/**
 * Creates the `/v1` handler.
 *
 * @example
 * ```ts
 * import { createHookline } from "@hookline/engine";
 * import { createHandler } from "@hookline/http";
 *
 * const handler = createHandler(createHookline());
 * const res = await handler(new Request("http://localhost/v1/openapi.json"));
 * ```
 */
export function createHandler(
  hookline: Hookline,
  options: HandlerOptions = {},
): (request: Request) => Promise<Response> {
  const routes = options.heartbeatMs
    ? [...ROUTES.filter((r) => r.tag !== "Streams"), ...createStreamRoutes(options.heartbeatMs)]
    : ROUTES;
  const router = createRouter(routes);
  const ctx = handlerContext(hookline, options);
  const { observer } = options;
  let openapi: unknown;

  /** Which part answers: the ingress, the operators' routes, the OpenAPI document or a route. */
  async function dispatch(request: Request, requestId: string, seen: Seen): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    seen.path = path;
    const http = ingressPath(path);
    if (http) return ingress(ctx, request, url, http, seen);
    const ops = await opsResponse(request, path, hookline, ctx.metrics, seen);
    if (ops) return ops;
    if (path === "/v1/openapi.json" && request.method === "GET") {
      openapi ??= buildOpenApi(ROUTES);
      return jsonResponse(200, openapi);
    }
    const match = router.match(request.method, path);
    if (match instanceof Response) return match;
    return dispatchRoute(ctx, match, request, url, requestId, seen);
  }

  return async (request: Request): Promise<Response> => {
    const startedAt = observer ? performance.now() : 0;
    const requestId = requestIdOf(request);
    const cors = corsHeaders(options.cors, request);
    const connectRoute = request.headers.has("origin") && router.isConnectPath(new URL(request.url).pathname);
    if (request.method === "OPTIONS" && (options.cors || connectRoute)) {
      return lightResponse(null, 204, { ...cors, ...connectCors(request, connectRoute, undefined) });
    }
    const seen: Seen = {};
    let response: Response;
    try {
      response = await dispatch(request, requestId, seen);
    } catch (error) {
      response = thrownResponse(error, requestId, ctx.onError);
    }
    if (observer) report(observer, request, requestId, response.status, startedAt, seen);
    return withHeaders(response, {
      ...seen.limit,
      "x-request-id": requestId,
      ...cors,
      ...connectCors(request, connectRoute, seen.grant),
    });
  };
}
