/**
 * `@hookline/http/express`: the handler as Express (4 or 5) middleware.
 *
 * @packageDocumentation
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type FetchHandler, jsonError, RequestError, serveNode, toRequest } from "./node.js";

export type { FetchHandler } from "./node.js";

/**
 * The parts of an Express request the middleware reads: a Node request, plus the `body` a body
 * parser may have set (Express's own `Request` type satisfies this).
 */
export type ExpressLikeRequest = IncomingMessage & {
  /** Set by a body parser (`express.json()`, `express.text()`, ...) that already read the stream. */
  body?: unknown;
};

/** An Express-compatible middleware `(req, res, next)`. */
export type HooklineMiddleware = (
  req: ExpressLikeRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

const served = /^\/(?:v1|http)\//;

/** Whether a body parser already consumed the request stream (so `req.body` holds it). */
function bodyConsumed(req: ExpressLikeRequest): boolean {
  if (req.body === undefined) return false;
  return (req as { _body?: boolean })._body === true || req.readableEnded;
}

/** Serializes a parsed `req.body` back into bytes, matching the request's content type. */
function reserialize(body: unknown, contentType: string): string | Uint8Array {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  if (contentType.includes("application/x-www-form-urlencoded") && body && typeof body === "object") {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      for (const v of Array.isArray(value) ? value : [value]) params.append(name, String(v));
    }
    return params.toString();
  }
  return JSON.stringify(body);
}

/** Converts an Express request into a Web `Request`, re-serializing `req.body` if a parser ran. */
function fromExpress(req: ExpressLikeRequest): Request {
  if (!bodyConsumed(req) || req.method === "GET" || req.method === "HEAD") return toRequest(req);
  const streamed = toRequest(Object.assign(Object.create(req) as ExpressLikeRequest, { method: "GET" }));
  const headers = new Headers(streamed.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  if (typeof req.body === "object" && !(req.body instanceof Uint8Array) && !headers.has("content-type")) {
    headers.set("content-type", "application/json");
  }
  return new Request(streamed.url, {
    method: req.method ?? "POST",
    headers,
    signal: streamed.signal,
    body: reserialize(req.body, headers.get("content-type") ?? ""),
  });
}

/**
 * Express middleware serving Hookline: requests whose path starts with `/v1/` or `/http/` go to
 * `handler` (responses, SSE included, are streamed); anything else falls through to `next()`.
 *
 * Mount it **before** any body parser (`express.json()`, `express.urlencoded()`...) so the request
 * body is streamed to the handler untouched (HTTP-interface sources see the exact bytes). If a parser
 * already ran, `req.body` is re-serialized (JSON, form-encoded, text or raw bytes), which may differ
 * from what the client sent byte for byte.
 *
 * @example
 * ```ts
 * import express from "express";
 * import { createHookline } from "@hookline/engine";
 * import { createHandler } from "@hookline/http";
 * import { hooklineRouter } from "@hookline/http/express";
 *
 * const hookline = createHookline({ secretsKey: process.env.HOOKLINE_SECRETS_KEY });
 * const app = express();
 * app.use(hooklineRouter(createHandler(hookline))); // before express.json()
 * app.use(express.json());
 * app.listen(4100);
 * await hookline.start();
 * ```
 */
export function hooklineRouter(handler: FetchHandler): HooklineMiddleware {
  return (req, res, next) => {
    if (!served.test(req.url ?? "/")) {
      next();
      return;
    }
    // A malformed request (bad Host) is ours to answer; any other error goes to Express.
    const errorHandler = (error: unknown) => {
      if (error instanceof RequestError) return jsonError(400, "bad_request", error.message);
      next(error);
      return undefined;
    };
    // Untouched by a body parser: the node adapter's own path (the body read at once when small).
    const build = bodyConsumed(req) ? fromExpress : undefined;
    serveNode(handler, req, res, { errorHandler }, build).catch(() => res.destroy());
  };
}
