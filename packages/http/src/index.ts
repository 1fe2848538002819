/**
 * The Hookline `/v1` REST API, the HTTP-interface ingress (`/http/{endpoint_id}`) and the OpenAPI
 * document, as one Web-standard `(request: Request) => Promise<Response>`. Adapters for Node and
 * frameworks are subpath exports (`@hookline/http/node`).
 * @packageDocumentation
 */
export type { CorsOption } from "./_cors.js";
export type { PageInfo, Route, RouteContext, RouteResult } from "./_define.js";
export type { TokenBucketOptions } from "./_limits.js";
export type { MetricsRoute, MetricsSource, RequestInfo, RequestObserver } from "./_ops.js";
export { createHandler, HANDLER_DEFAULTS, type HandlerOptions, ROUTES } from "./handler.js";
export { buildOpenApi } from "./openapi.js";
