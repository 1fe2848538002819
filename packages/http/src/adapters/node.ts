/**
 * `@hookline/http/node`: the handler as a `node:http` request listener.
 *
 * It keeps the invariants of `@hono/node-server`'s listener: the Web `Request` is built inside the
 * error path (a malformed `Host` or request target is a 400, never an uncaught exception), the
 * scheme comes from the socket, errors go through an `errorHandler`, and no exception escapes a
 * request. `onClientError` answers what Node refuses before a request exists (oversized headers,
 * malformed HTTP) as JSON.
 *
 * @packageDocumentation
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { Readable } from "node:stream";
import type { TLSSocket } from "node:tls";
import { type ErrorCode, errorBody } from "@hookline/core";
import { errorResponse } from "../_errors.js";
import { abortOnClose, headersOf, lightRequest, rawResponse } from "../_lazy-request-response.js";

/** A Web-standard handler, as `createHandler` returns. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Answers an error thrown while a request is read or served: a Response to send, or undefined when
 * the error was handed on (for example to Express's `next`) and nothing must be written.
 */
export type NodeErrorHandler = (
  error: unknown,
  req: IncomingMessage,
) => Response | undefined | Promise<Response | undefined>;

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Answers an error thrown while the request is turned into a Web `Request` (a {@link RequestError},
   * such as a malformed `Host`) or while `handler` runs. Default: `400 bad_request` for a
   * `RequestError`; `500 internal_error` otherwise, logged with `console.error` (the message never
   * carries the error's text).
   */
  errorHandler?: NodeErrorHandler;
  /** Host of requests that carry none (HTTP/1.0). Default `localhost`. */
  hostname?: string;
  /**
   * Largest body, bytes, read into memory before the handler runs (default 1 MB, the handler's
   * default `bodyLimit`): a body with a `content-length` up to this is read at once and handed over
   * without a Web stream; a larger or chunked one is streamed (the handler applies its own limit).
   */
  maxBufferedBody?: number;
}

const DEFAULT_MAX_BUFFERED = 1024 * 1024;

/** A request Node parsed but that cannot become a Web `Request` (bad `Host`, bad target). */
export class RequestError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RequestError";
  }
}

// A plain host (name or IPv4, optional port) needs no further check; anything else must parse back
// to the same host name, so a Host such as "a/b", "a?b" or "a@b" cannot move into the path.
const PLAIN_HOST = /^[a-z0-9._-]+(?::\d{1,5})?$/i;

/** The request's URL: scheme from the socket, host from `Host`, target as sent. */
function requestUrl(req: IncomingMessage, hostname: string): URL {
  const target = req.url ?? "/";
  if (/^https?:\/\//i.test(target)) {
    // Absolute form, as sent to a proxy.
    try {
      return new URL(target);
    } catch (error) {
      throw new RequestError("The request target is not a valid URL", { cause: error });
    }
  }
  if (!target.startsWith("/")) throw new RequestError("The request target must start with /");
  const backslash = target.indexOf("\\");
  const query = target.indexOf("?");
  if (backslash !== -1 && (query === -1 || backslash < query)) {
    throw new RequestError("The request path holds a backslash");
  }
  const host = req.headers.host || hostname;
  const scheme = (req.socket as TLSSocket | undefined)?.encrypted ? "https" : "http";
  let url: URL;
  try {
    url = new URL(`${scheme}://${host}${target}`);
  } catch (error) {
    throw new RequestError("The Host header or the request target is not valid", { cause: error });
  }
  if (!PLAIN_HOST.test(host) && url.hostname !== host.replace(/:\d+$/, "").toLowerCase()) {
    throw new RequestError("The Host header is not valid");
  }
  return url;
}

/**
 * Converts a Node request into a Web `Request` (the body streamed, not buffered). Throws a
 * {@link RequestError} for a malformed `Host` or request target.
 *
 * @example
 * ```ts
 * createServer(async (req, res) => writeResponse(await handler(toRequest(req)), res));
 * ```
 */
export function toRequest(req: IncomingMessage, hostname = "localhost"): Request {
  const url = requestUrl(req, hostname);
  const controller = abortOnClose(req);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method ?? "GET",
    headers: headersOf(req),
    signal: controller.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
  } as RequestInit);
}

const EMPTY = new Uint8Array(0);

/** Reads a whole body from a Node request; undefined when the client went away first. */
function readAll(req: IncomingMessage): Promise<Uint8Array | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (value: Uint8Array | undefined) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    };
    const onEnd = () => done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    const onGone = () => done(undefined);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

/**
 * The Web `Request` of a Node request, on the fast path when it can: a body with a declared length
 * up to `maxBufferedBody` is read at once into a lightweight `Request` (no Web stream); a chunked or
 * larger body is streamed ({@link toRequest}). Undefined when the client went away mid-body.
 */
async function readRequest(
  req: IncomingMessage,
  res: ServerResponse,
  options: NodeListenerOptions,
): Promise<Request | undefined> {
  const url = requestUrl(req, options.hostname ?? "localhost").href;
  const method = req.method ?? "GET";
  if (method === "GET" || method === "HEAD") return lightRequest(req, res, method, url, undefined);
  const declared = req.headers["content-length"];
  if (req.headers["transfer-encoding"] !== undefined) return toRequest(req, options.hostname);
  if (declared === undefined) return lightRequest(req, res, method, url, EMPTY);
  const length = Number(declared);
  if (!(length <= (options.maxBufferedBody ?? DEFAULT_MAX_BUFFERED))) return toRequest(req, options.hostname);
  const body = length === 0 ? EMPTY : await readAll(req);
  return body && lightRequest(req, res, method, url, body);
}

/** A JSON error response in the REST API's shape. */
export function jsonError(status: number, code: ErrorCode, message: string): Response {
  return errorResponse(status, code, message);
}

/**
 * The default {@link NodeErrorHandler}: 400 `bad_request` for a {@link RequestError}, otherwise
 * a logged 500 `internal_error` whose message leaks nothing.
 */
export const defaultErrorHandler = (error: unknown): Response => {
  if (error instanceof RequestError) return jsonError(400, "bad_request", error.message);
  console.error("[hookline] request failed:", error);
  return jsonError(500, "internal_error", "Internal error");
};

/**
 * Writes a Web `Response` to a Node response, streaming its body (SSE included). A response the
 * handler built with a string or bytes body is written at once, with its `content-length`.
 */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const raw = rawResponse(response);
  if (raw) {
    const { body } = raw;
    const headers: Record<string, string | number> = { ...raw.headers };
    delete headers["transfer-encoding"];
    if (body === null) delete headers["content-length"];
    else headers["content-length"] = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
    res.writeHead(raw.status, headers);
    if (body === null) res.end();
    else res.end(body);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const setCookies = response.headers.getSetCookie?.() ?? [];
  if (setCookies.length > 1) headers["set-cookie"] = setCookies;
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
 * Serves one Node request with `handler`: the Request is built (by `build`; by default a
 * lightweight Request over the body read at once, or {@link toRequest} for a chunked or large body)
 * inside the error path, errors go to `errorHandler`, and nothing escapes (a failure after the
 * headers were sent ends the connection). A client that goes away while sending its body gets no
 * answer (the handler does not run).
 *
 * @example
 * ```ts
 * createServer((req, res) => void serveNode(handler, req, res));
 * ```
 */
export async function serveNode<R extends IncomingMessage>(
  handler: FetchHandler,
  req: R,
  res: ServerResponse,
  options: NodeListenerOptions = {},
  build?: (req: R) => Request,
): Promise<void> {
  let response: Response | undefined;
  try {
    const request = build ? build(req) : await readRequest(req, res, options);
    if (!request) {
      res.destroy();
      return;
    }
    response = await handler(request);
  } catch (error) {
    try {
      response = await (options.errorHandler ?? defaultErrorHandler)(error, req);
    } catch (handlerError) {
      response = defaultErrorHandler(handlerError);
    }
    if (!response) return;
  }
  try {
    await writeResponse(response, res);
  } catch (error) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const failed = defaultErrorHandler(error);
    res.writeHead(failed.status, { "content-type": "application/json; charset=utf-8" });
    res.end(await failed.text());
  }
}

/**
 * A `node:http` request listener that serves `handler`. Also listen for `clientError` with
 * {@link onClientError} so that requests Node refuses itself are answered as JSON.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { onClientError, toNodeListener } from "@hookline/http/node";
 *
 * const server = createServer(toNodeListener(createHandler(hookline)));
 * server.on("clientError", onClientError);
 * server.listen(4100);
 * ```
 */
export function toNodeListener(
  handler: FetchHandler,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    serveNode(handler, req, res, options).catch(() => res.destroy());
  };
}

/** The status, code and message of an error Node's HTTP parser raised. */
function clientErrorAnswer(code: string | undefined): [number, ErrorCode, string] {
  if (code === "HPE_HEADER_OVERFLOW") {
    return [
      431,
      "headers_too_large",
      "The request line and headers are larger than the server accepts (16 KB unless it sets its own limit); send long values in a JSON body",
    ];
  }
  if (code === "HPE_CHUNK_EXTENSIONS_OVERFLOW") {
    return [413, "payload_too_large", "The chunk extensions of the request body are too large"];
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return [408, "request_timeout", "The request was not received in time"];
  }
  return [400, "bad_request", "The request is not valid HTTP/1.1"];
}

/**
 * A `clientError` listener for a `node:http` server: what Node's parser refuses before a request
 * exists (headers over `maxHeaderSize`, malformed HTTP, a request timeout) is answered as a JSON
 * error, as the REST API answers, instead of Node's bare status line; then the connection closes.
 *
 * @example
 * ```ts
 * server.on("clientError", onClientError);
 * ```
 */
export function onClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, code, message] = clientErrorAnswer(error.code);
  const body = JSON.stringify(errorBody(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
