/**
 * `createHandler()`: the whole `/v1` REST API, the HTTP-interface ingress and the OpenAPI document
 * as one Web-standard `(request: Request) => Promise<Response>`.
 */
import { finalStatusProblem, HooklineError } from "@hookline/core";
import type {
  ConnectScope,
  ConnectTokenGrant,
  Hookline,
  IngressResponse,
  IngressTarget,
} from "@hookline/engine";
import { hashApiKey } from "@hookline/engine";
import type { ApiKey } from "@hookline/store";
import { bearerOf, connectCors, connectGrant, isConnectToken } from "./_connect-auth.js";
import type { Route, RouteResult } from "./_define.js";
import { errorResponse, internalError, jsonResponse, toApiError } from "./_errors.js";
import { fingerprintOf, idempotencyKeyOf, idempotent } from "./_idempotency.js";
import { lightResponse, withHeaders } from "./_lazy-request-response.js";
import {
  listBody,
  rateLimited,
  rateLimitedReply,
  readBody,
  type TokenBucketOptions,
  tokenBuckets,
  windowLimiter,
} from "./_limits.js";
import {
  type MetricsRoute,
  opsResponse,
  type RequestObserver,
  type RequestTrace,
  requestIdOf,
} from "./_ops.js";
import { decodePath, mergeParams, parseJsonBody, queryObject, validateParams } from "./_params.js";
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
  cors?: { origin: string | string[] };
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

interface Compiled {
  route: Route;
  regex: RegExp;
  names: string[];
}

function compile(route: Route): Compiled {
  const names: string[] = [];
  const pattern = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { route, regex: new RegExp(`^${pattern}/?$`), names };
}

function hooklineErrorResponse(error: HooklineError, headers: Record<string, string> = {}): Response {
  return jsonResponse(error.status, { error: error.toJSON() }, headers);
}

/** What one request's dispatch found out (the connect grant, and what an observer is told). */
type Seen = RequestTrace & {
  grant?: ConnectTokenGrant;
  /** The RateLimit headers of the limit the request counted against. */
  limit?: Record<string, string>;
};

/** Tells the observer of one request (its errors never reach the caller). */
function report(
  observer: RequestObserver,
  request: Request,
  requestId: string,
  status: number,
  startedAt: number,
  seen: Seen,
): void {
  try {
    observer({
      requestId,
      method: request.method,
      path: seen.path ?? "",
      route: seen.route ?? "unmatched",
      status,
      durationMs: performance.now() - startedAt,
      ...(seen.workspaceId ? { workspaceId: seen.workspaceId } : {}),
      ...(seen.emitterId ? { emitterId: seen.emitterId } : {}),
      ...(seen.ingress ? { ingress: seen.ingress } : {}),
      ...(seen.limited ? { limited: seen.limited } : {}),
    });
  } catch {
    // An observer's failure never fails the request.
  }
}

// Statuses whose response has no body, and the informational ones a fetch Response cannot end with.
const NULL_BODY = new Set([204, 205, 304]);

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
  const compiled = routes.map(compile);
  const bodyLimit = options.bodyLimit ?? HANDLER_DEFAULTS.bodyLimit;
  const maxPageBytes = options.maxPageBytes ?? HANDLER_DEFAULTS.maxPageBytes;
  const apiLimit =
    options.rateLimit === false ? undefined : windowLimiter(options.rateLimit ?? HANDLER_DEFAULTS.rateLimit);
  const ingressLimit =
    options.ingressRateLimit === false
      ? undefined
      : tokenBuckets(options.ingressRateLimit ?? HANDLER_DEFAULTS.ingressRateLimit);
  const workspaceLimit =
    options.workspaceIngressRateLimit === false
      ? undefined
      : tokenBuckets(options.workspaceIngressRateLimit ?? HANDLER_DEFAULTS.workspaceIngressRateLimit);
  const { observer } = options;
  const onError = options.onError ?? ((error, id) => console.error(`[hookline ${id}]`, error));
  let openapi: unknown;

  function corsHeaders(request: Request): Record<string, string> {
    if (!options.cors) return {};
    const origin = request.headers.get("origin");
    const allowed = options.cors.origin;
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

  async function ingress(
    request: Request,
    url: URL,
    rawEndpoint: string,
    rest: string,
    seen: Seen,
  ): Promise<Response> {
    seen.route = "/http/{endpoint_id}";
    seen.ingress = "unknown";
    const endpointId = decodePath(["endpoint_id"], [rawEndpoint]).endpoint_id as string;
    const retryAfter = ingressLimit?.take(endpointId);
    if (ingressLimit) seen.limit = ingressLimit.headers(endpointId);
    if (retryAfter !== undefined) {
      seen.limited = "endpoint";
      return rateLimited(retryAfter, "to this HTTP endpoint");
    }
    const body = await readBody(request, bodyLimit);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const reply = await hookline.ingress(endpointId, {
      method: request.method,
      path: rest || "/",
      query: queryObject(url),
      headers,
      ...(body.byteLength > 0 ? { body } : {}),
      ...(workspaceLimit ? { admit: (target: IngressTarget) => admitWorkspace(target, seen) } : {}),
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
  function admitWorkspace(target: IngressTarget, seen: Seen): IngressResponse | undefined {
    const wait = workspaceLimit?.take(target.workspaceId);
    if (wait === undefined) return undefined;
    seen.limited = "workspace";
    return rateLimitedReply(wait, "to this workspace's HTTP endpoints");
  }

  /** Whether a path is one of a connect route's (which a connect token reaches, with CORS). */
  const connectPaths = compiled.filter((c) => c.route.auth === "connect").map((c) => c.regex);
  const isConnectPath = (path: string) => connectPaths.some((regex) => regex.test(path));

  /** A route's result as a response. */
  function toResponse(result: RouteResult): Response {
    if (result instanceof Response) return result;
    if ("list" in result) {
      return jsonResponse(200, listBody(result.list, result.pageInfo, result.cursor, maxPageBytes));
    }
    return jsonResponse(200, {
      data: result.data,
      ...(result.warnings?.length ? { warnings: result.warnings } : {}),
    });
  }

  async function dispatch(request: Request, requestId: string, seen: Seen): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    seen.path = path;
    const http = /^\/http\/([^/]+)(\/.*)?$/.exec(path);
    if (http) return ingress(request, url, http[1] as string, http[2] ?? "/", seen);
    const ops = await opsResponse(request, path, hookline, options.metrics, seen);
    if (ops) return ops;
    if (path === "/v1/openapi.json" && request.method === "GET") {
      openapi ??= buildOpenApi(ROUTES);
      return jsonResponse(200, openapi);
    }
    const matches = compiled
      .map((c) => ({ c, m: c.regex.exec(path) }))
      .filter((x): x is { c: Compiled; m: RegExpExecArray } => x.m !== null);
    if (matches.length === 0)
      throw new HooklineError("route_not_found", `No route ${request.method} ${path.slice(0, 200)}`);
    const hit = matches.find((x) => x.c.route.method === request.method);
    if (!hit) {
      const allow = [...new Set(matches.map((x) => x.c.route.method))].join(", ");
      return hooklineErrorResponse(
        new HooklineError(
          "method_not_allowed",
          `${request.method} is not allowed on ${path.slice(0, 200)}; use ${allow}`,
        ),
        { allow },
      );
    }
    const { route } = hit.c;
    seen.route = route.path;
    const pathParams = decodePath(hit.c.names, hit.m.slice(1));
    if (typeof pathParams.id === "string" && /^(dc|p)_/.test(pathParams.id)) seen.emitterId = pathParams.id;

    let workspaceId = "";
    let endUser: ConnectScope | undefined;
    let apiKey: ApiKey | undefined;
    if (route.auth !== false) {
      const key = bearerOf(request);
      if (!key) throw new HooklineError("unauthorized", "Send Authorization: Bearer <api key>");
      if (isConnectToken(key)) {
        const grant = await connectGrant(hookline, route, key);
        seen.grant = grant;
        workspaceId = grant.workspaceId;
        endUser = { externalUserId: grant.externalUserId, allowedOrigins: grant.allowedOrigins };
      } else {
        const found = await hookline.apiKeys.authenticate(key);
        if (!found) throw new HooklineError("unauthorized", "The API key is unknown or revoked");
        workspaceId = found.workspace.id;
        apiKey = found.apiKey;
      }
      seen.workspaceId = workspaceId;
      const limitKey = hashApiKey(key);
      const retryAfter = apiLimit?.take(limitKey);
      if (apiLimit) seen.limit = apiLimit.headers(limitKey);
      if (retryAfter !== undefined) return rateLimited(retryAfter, "with this API key");
      if (route.auth === "operator" && apiKey?.role !== "operator") {
        throw new HooklineError(
          "operator_key_required",
          `${route.method} ${route.path} manages workspaces and API keys: it takes an operator key, not a workspace key`,
        );
      }
    }

    const body =
      request.method !== "GET" && request.method !== "DELETE"
        ? parseJsonBody(await readBody(request, bodyLimit))
        : {};
    const params = validateParams(route.params, mergeParams(queryObject(url), body));
    const run = async () =>
      toResponse(
        await route.handler({
          request,
          url,
          hookline,
          workspaceId,
          ...(endUser ? { endUser } : {}),
          ...(apiKey ? { apiKey } : {}),
          path: pathParams,
          params,
          requestId,
        }),
      );
    // A creating request with an Idempotency-Key runs once per key (docs/rest-api.md).
    const idempotencyKey =
      request.method === "POST" && route.auth !== false ? idempotencyKeyOf(request) : undefined;
    if (idempotencyKey === undefined) return run();
    // An end user's (connect token's) key never answers another end user of the workspace.
    const fingerprint = fingerprintOf(request.method, path, [params, endUser?.externalUserId ?? null]);
    const reportError = (error: unknown) => onError(error, requestId);
    return idempotent(
      { store: hookline.store, workspaceId, key: idempotencyKey, fingerprint, onError: reportError },
      run,
    );
  }

  return async (request: Request): Promise<Response> => {
    const startedAt = observer ? performance.now() : 0;
    const requestId = requestIdOf(request);
    const cors = corsHeaders(request);
    const connectRoute = request.headers.has("origin") && isConnectPath(new URL(request.url).pathname);
    if (request.method === "OPTIONS" && (options.cors || connectRoute)) {
      return lightResponse(null, 204, { ...cors, ...connectCors(request, connectRoute, undefined) });
    }
    const seen: Seen = {};
    let response: Response;
    try {
      response = await dispatch(request, requestId, seen);
    } catch (error) {
      const apiError = toApiError(error);
      if (!apiError) onError(error, requestId);
      response = hooklineErrorResponse(apiError ?? internalError(requestId));
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
