/**
 * `createHandler()`: the whole `/v1` REST API, the HTTP-interface ingress and the OpenAPI document
 * as one Web-standard `(request: Request) => Promise<Response>`.
 */
import { randomUUID } from "node:crypto";
import { HooklineError, isHooklineError } from "@hookline/core";
import type { Hookline } from "@hookline/engine";
import { hashApiKey } from "@hookline/engine";
import Value from "typebox/value";
import type { Route, RouteResult } from "./_define.js";
import { buildOpenApi } from "./openapi.js";
import { accountRoutes } from "./routes/accounts.js";
import { componentRoutes } from "./routes/components.js";
import { sourceRoutes } from "./routes/sources.js";
import { subscriptionRoutes } from "./routes/subscriptions.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { createStreamRoutes, streamRoutes } from "./sse.js";

/** Options of {@link createHandler}. */
export interface HandlerOptions {
  /** Largest request body, bytes (default 1 MB); larger is 413 `payload_too_large`. */
  bodyLimit?: number;
  /** Requests per API key per window (default 600 per 60 s); `false` turns the limit off. */
  rateLimit?: { requests: number; windowMs: number } | false;
  /** CORS: allowed origins (`"*"` for any). Default: no CORS headers. */
  cors?: { origin: string | string[] };
  /** Where errors that are not Hookline errors are reported (default `console.error`). */
  onError?: (error: unknown, requestId: string) => void;
  /** SSE heartbeat interval, ms (default 15,000). */
  heartbeatMs?: number;
}

/** Every route of the REST API, in matching order. */
export const ROUTES: Route[] = [
  ...webhookRoutes,
  ...subscriptionRoutes,
  ...componentRoutes,
  ...sourceRoutes,
  ...accountRoutes,
  ...streamRoutes,
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

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

function errorResponse(error: HooklineError, headers: Record<string, string> = {}): Response {
  return jsonResponse(error.status, { error: error.toJSON() }, headers);
}

/** Reads at most `limit` bytes of a body; undefined when it is larger. */
async function readBody(request: Request, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) return undefined;
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    out[key] = all.length === 1 ? (all[0] as string) : all;
  }
  return out;
}

/** Merges query and JSON body fields; the same field given differently in both is a 400. */
function mergeParams(query: Record<string, unknown>, body: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...body };
  for (const [key, value] of Object.entries(query)) {
    if (key in body && String(body[key]) !== String(value)) {
      throw new HooklineError(
        "conflicting_parameter",
        `"${key}" is given differently in the query and the body`,
      );
    }
    if (!(key in body)) merged[key] = value;
  }
  return merged;
}

function validateParams(route: Route, raw: Record<string, unknown>): Record<string, unknown> {
  if (!route.params) return raw;
  // Query strings carry text: convert "5" to 5 and "true" to true where the schema says so.
  const converted = Value.Convert(route.params, raw) as Record<string, unknown>;
  if (Value.Check(route.params, converted)) return converted;
  const problems = [...Value.Errors(route.params, converted)].map((e) => ({
    path:
      e.instancePath.replace(/^\//, "").replace(/\//g, ".") ||
      (e.params as { requiredProperties?: string[] }).requiredProperties?.join(",") ||
      "",
    message: e.message,
  }));
  const summary = problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ");
  throw new HooklineError("validation_failed", `Invalid parameters: ${summary}`, { problems });
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
  const compiled = routes.map(compile);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const rate =
    options.rateLimit === false ? undefined : (options.rateLimit ?? { requests: 600, windowMs: 60_000 });
  const buckets = new Map<string, { count: number; resetAt: number }>();
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
      "access-control-allow-headers": "authorization, content-type, last-event-id, x-request-id",
      "access-control-expose-headers": "x-request-id, retry-after",
      vary: "origin",
    };
  }

  function rateLimited(keyHash: string): number | undefined {
    if (!rate) return undefined;
    const now = Date.now();
    let bucket = buckets.get(keyHash);
    if (!bucket || bucket.resetAt <= now) {
      bucket = { count: 0, resetAt: now + rate.windowMs };
      buckets.set(keyHash, bucket);
    }
    bucket.count++;
    return bucket.count > rate.requests ? Math.ceil((bucket.resetAt - now) / 1000) : undefined;
  }

  async function ingress(request: Request, url: URL, endpointId: string, rest: string): Promise<Response> {
    const body = await readBody(request, bodyLimit);
    if (!body) throw new HooklineError("payload_too_large", `The body is over ${bodyLimit} bytes`);
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
    });
    return new Response(reply.body as ConstructorParameters<typeof Response>[0], {
      status: reply.status,
      headers: reply.headers,
    });
  }

  async function dispatch(request: Request, requestId: string): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    const http = /^\/http\/([^/]+)(\/.*)?$/.exec(path);
    if (http) return ingress(request, url, http[1] as string, http[2] ?? "/");
    if (path === "/v1/openapi.json" && request.method === "GET") {
      openapi ??= buildOpenApi(ROUTES);
      return jsonResponse(200, openapi);
    }
    const matches = compiled
      .map((c) => ({ c, m: c.regex.exec(path) }))
      .filter((x): x is { c: Compiled; m: RegExpExecArray } => x.m !== null);
    if (matches.length === 0)
      throw new HooklineError("route_not_found", `No route ${request.method} ${path}`);
    const hit = matches.find((x) => x.c.route.method === request.method);
    if (!hit) {
      const allow = [...new Set(matches.map((x) => x.c.route.method))].join(", ");
      return jsonResponse(
        405,
        {
          error: {
            code: "method_not_allowed",
            message: `${request.method} is not allowed on ${path}; use ${allow}`,
          },
        },
        { allow },
      );
    }
    const { route } = hit.c;
    const pathParams: Record<string, string> = {};
    hit.c.names.forEach((name, i) => {
      pathParams[name] = decodeURIComponent(hit.m[i + 1] as string);
    });

    let workspaceId = "";
    if (route.auth !== false) {
      const auth = request.headers.get("authorization") ?? "";
      const key = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
      if (!key) throw new HooklineError("unauthorized", "Send Authorization: Bearer <api key>");
      const workspace = await hookline.apiKeys.resolve(key);
      if (!workspace) throw new HooklineError("unauthorized", "The API key is unknown or revoked");
      const retryAfter = rateLimited(hashApiKey(key));
      if (retryAfter !== undefined) {
        return jsonResponse(
          429,
          { error: { code: "rate_limited", message: `Too many requests; retry in ${retryAfter} s` } },
          { "retry-after": String(retryAfter) },
        );
      }
      workspaceId = workspace.id;
    }

    let body: Record<string, unknown> = {};
    if (request.method !== "GET" && request.method !== "DELETE") {
      const bytes = await readBody(request, bodyLimit);
      if (!bytes) throw new HooklineError("payload_too_large", `The body is over ${bodyLimit} bytes`);
      const text = Buffer.from(bytes).toString("utf8").trim();
      if (text !== "") {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new HooklineError("invalid_json", "The body is not valid JSON");
        }
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
          throw new HooklineError("invalid_json", "The body must be a JSON object");
        }
        body = parsed as Record<string, unknown>;
      }
    }
    const params = validateParams(route, mergeParams(queryObject(url), body));
    const result: RouteResult = await route.handler({
      request,
      url,
      hookline,
      workspaceId,
      path: pathParams,
      params,
      requestId,
    });
    if (result instanceof Response) return result;
    if ("list" in result) return jsonResponse(200, { data: result.list, page_info: result.pageInfo });
    return jsonResponse(200, { data: result.data });
  }

  return async (request: Request): Promise<Response> => {
    const requestId = request.headers.get("x-request-id") ?? `req_${randomUUID()}`;
    const cors = corsHeaders(request);
    if (request.method === "OPTIONS" && options.cors)
      return new Response(null, { status: 204, headers: cors });
    let response: Response;
    try {
      response = await dispatch(request, requestId);
    } catch (error) {
      if (isHooklineError(error)) response = errorResponse(error);
      else if (
        (error as { name?: string; code?: string }).name === "StoreError" &&
        (error as { code?: string }).code === "conflict"
      ) {
        response = errorResponse(new HooklineError("conflict", (error as Error).message));
      } else {
        onError(error, requestId);
        response = errorResponse(
          new HooklineError("internal_error", `Internal error (request ${requestId})`),
        );
      }
    }
    const headers = new Headers(response.headers);
    headers.set("x-request-id", requestId);
    for (const [k, v] of Object.entries(cors)) headers.set(k, v);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
