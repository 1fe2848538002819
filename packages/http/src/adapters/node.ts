/**
 * `@hookline/http/node`: the handler as a `node:http` request listener.
 *
 * @packageDocumentation
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** A Web-standard handler, as `createHandler` returns. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Converts a Node request into a Web `Request` (the body streamed, not buffered). */
export function toRequest(req: IncomingMessage, base = "http://localhost"): Request {
  const host = req.headers.host ?? new URL(base).host;
  const url = new URL(req.url ?? "/", `http://${host}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const controller = new AbortController();
  req.on("close", () => {
    if (!req.complete || req.destroyed) controller.abort();
  });
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method ?? "GET",
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
  } as RequestInit);
}

/** Writes a Web `Response` to a Node response, streaming its body (SSE included). */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
  }
  res.end();
}

/**
 * A `node:http` request listener that serves `handler`.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { toNodeListener } from "@hookline/http/node";
 *
 * createServer(toNodeListener(createHandler(hookline))).listen(4100);
 * ```
 */
export function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handler(toRequest(req))
      .then((response) => writeResponse(response, res))
      .catch((error: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: "internal_error", message: String(error) } }));
        } else res.destroy();
      });
  };
}
