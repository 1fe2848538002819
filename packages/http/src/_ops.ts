/**
 * What operators call, next to the API: `GET /healthz` (the process answers), `GET /readyz` (the
 * engine's health: store, migrations, worker) and `GET /metrics` (Prometheus text, behind a token
 * of its own). None takes an API key; none is rate limited. Also the per-request report the
 * handler gives an observer (logs, metrics). docs/operations.md describes them.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { Hookline, IngressTarget } from "@hookline/engine";
import { bearerOf } from "./_connect-auth.js";
import { lightResponse } from "./_lazy-request-response.js";

/** What the handler reports of each request it answered (see `HandlerOptions.observer`). */
export interface RequestInfo {
  /** The `x-request-id` the response carries. */
  requestId: string;
  method: string;
  /** The request's path (without the query). */
  path: string;
  /**
   * The route's template (`/v1/sources/{id}`, `/http/{endpoint_id}`, `/readyz`), never the raw
   * path, so that metrics keep few label values; `unmatched` when no route matched.
   */
  route: string;
  status: number;
  /** From the request's arrival to the response's headers, milliseconds. */
  durationMs: number;
  /** The workspace of the API key, or of the HTTP endpoint's owner, once known. */
  workspaceId?: string;
  /** The source (`dc_...`) or workflow (`p_...`) the request is about, once known. */
  emitterId?: string;
  /** For `/http/...`: who owns the endpoint (`unknown` when it was refused before the lookup or not found). */
  ingress?: IngressTarget["kind"] | "unknown";
  /** Set when the ingress guard refused the request (429): per endpoint or per workspace. */
  limited?: "endpoint" | "workspace";
}

/** Told of each request once its response is ready; it must be cheap and must not throw. */
export type RequestObserver = (info: RequestInfo) => void;

/** What serves `GET /metrics`: the text of every metric and its content type (prom-client's registry fits). */
export interface MetricsSource {
  /** The `Content-Type` of the text (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** The text of every metric. */
  metrics(): Promise<string>;
}

/** `/metrics` on the API's listener: the metrics and the bearer token that reads them. */
export interface MetricsRoute {
  source: MetricsSource;
  /** The token a scrape sends as `Authorization: Bearer <token>`. */
  token: string;
}

/** The per-request fields the handler fills in as it goes (route, workspace, emitter...). @internal */
export type RequestTrace = Partial<Omit<RequestInfo, "requestId" | "method" | "status" | "durationMs">>;

const JSON_TYPE = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
const HEALTHY = '{"status":"ok"}';

/** A caller's request id is kept when it is short and plain (it goes into logs); else one is made. */
const PLAIN_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: its `x-request-id` when plain, else a new `req_<uuid>`. @internal */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && PLAIN_ID.test(given) ? given : `req_${randomUUID()}`;
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();

/** Whether `request` carries `token` as its bearer (compared in constant time). @internal */
export function hasToken(request: Request, token: string): boolean {
  const given = bearerOf(request);
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/** Serves `/metrics` from `source` (no authentication: the caller checked it). @internal */
export async function metricsResponse(source: MetricsSource): Promise<Response> {
  return lightResponse(await source.metrics(), 200, {
    "content-type": source.contentType,
    "cache-control": "no-store",
  });
}

/**
 * Answers `/healthz`, `/readyz` and (when configured) `/metrics`; undefined for any other request.
 * @internal
 */
export async function opsResponse(
  request: Request,
  path: string,
  hookline: Hookline,
  metrics: MetricsRoute | undefined,
  trace: RequestTrace,
): Promise<Response | undefined> {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  if (path === "/healthz") {
    trace.route = path;
    return lightResponse(HEALTHY, 200, JSON_TYPE);
  }
  if (path === "/readyz") {
    trace.route = path;
    const health = await hookline.health();
    const body = { status: health.ready ? "ready" : "not_ready", checks: health.checks };
    return lightResponse(JSON.stringify(body), health.ready ? 200 : 503, JSON_TYPE);
  }
  if (path === "/metrics" && metrics) {
    trace.route = path;
    if (!hasToken(request, metrics.token)) {
      return lightResponse(
        JSON.stringify({
          error: { code: "unauthorized", message: "Send Authorization: Bearer <metrics token>" },
        }),
        401,
        { ...JSON_TYPE, "www-authenticate": 'Bearer realm="metrics"' },
      );
    }
    return metricsResponse(metrics.source);
  }
  return undefined;
}

/** Tells the observer of one request (its errors never reach the caller). @internal */
export function report(
  observer: RequestObserver,
  request: Request,
  requestId: string,
  status: number,
  startedAt: number,
  trace: RequestTrace,
): void {
  try {
    observer({
      requestId,
      method: request.method,
      path: trace.path ?? "",
      route: trace.route ?? "unmatched",
      status,
      durationMs: performance.now() - startedAt,
      ...(trace.workspaceId ? { workspaceId: trace.workspaceId } : {}),
      ...(trace.emitterId ? { emitterId: trace.emitterId } : {}),
      ...(trace.ingress ? { ingress: trace.ingress } : {}),
      ...(trace.limited ? { limited: trace.limited } : {}),
    });
  } catch {
    // An observer's failure never fails the request.
  }
}
