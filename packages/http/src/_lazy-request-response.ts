/**
 * Lightweight Web `Request` and `Response` objects for the Node adapter's fast path (the technique
 * of `@hono/node-server`): a real `Request`/`Response` is built only when something asks for more
 * than the handler's hot path reads. A light request carries its body already buffered (read once
 * from the socket, no `Readable.toWeb`); a light response carries its string or bytes body and a
 * plain header record, which the Node adapter writes directly (no stream reader). Both are
 * `instanceof Request`/`Response`, and any other property or method builds the real object and
 * delegates to it, so code that receives them cannot tell the difference.
 *
 * The keys are `Symbol.for` symbols: the package's entry points are bundled separately, and a
 * light object made by one (the handler) is read by another (the adapter).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Where a light request keeps its buffered body. @internal */
export const RAW_BODY: unique symbol = Symbol.for("hookline.http.raw-body") as never;
/** Where a light response keeps `{ status, headers, body }` until it is materialized. @internal */
export const RAW_RESPONSE: unique symbol = Symbol.for("hookline.http.raw-response") as never;

/** What a light response holds. @internal */
export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

const REAL = Symbol("real");

// ---------------------------------------------------------------------------------------------
// Response

interface LightResponseFields {
  [RAW_RESPONSE]?: RawResponse;
  [REAL]?: Response;
}

/** The real Response of a light one (built once; the light state is dropped from then on). */
function realResponse(self: LightResponseFields): Response {
  let real = self[REAL];
  if (!real) {
    const raw = self[RAW_RESPONSE] as RawResponse;
    real = new Response(raw.body as ConstructorParameters<typeof Response>[0], {
      status: raw.status,
      headers: raw.headers,
    });
    self[REAL] = real;
    delete self[RAW_RESPONSE];
  }
  return real;
}

const responsePrototype: object = {
  get status(): number {
    const self = this as LightResponseFields;
    return self[RAW_RESPONSE]?.status ?? realResponse(self).status;
  },
  get ok(): boolean {
    const status = (this as { status: number }).status;
    return status >= 200 && status < 300;
  },
};
for (const key of ["body", "bodyUsed", "headers", "redirected", "statusText", "type", "url"]) {
  Object.defineProperty(responsePrototype, key, {
    get() {
      return realResponse(this)[key as keyof Response];
    },
  });
}
for (const key of ["arrayBuffer", "blob", "bytes", "clone", "formData", "json", "text"]) {
  Object.defineProperty(responsePrototype, key, {
    value(this: LightResponseFields) {
      const real = realResponse(this) as unknown as Record<string, () => unknown>;
      return real[key]?.call(real);
    },
  });
}
Object.setPrototypeOf(responsePrototype, Response.prototype);

/** Header names in lower case, equal names joined with ", " (as `Headers` does). */
function lowerHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const lower = name.toLowerCase();
    const value = String(headers[name]);
    const prev = out[lower];
    out[lower] = prev === undefined ? value : `${prev}, ${value}`;
  }
  return out;
}

/**
 * A `Response` with a string or bytes body (or none) that the Node adapter writes without a
 * stream. Header values are checked when it is written (by Node) or materialized (by `Headers`).
 * @internal
 */
export function lightResponse(
  body: string | Uint8Array | null,
  status: number,
  headers: Record<string, string>,
): Response {
  const self = Object.create(responsePrototype) as LightResponseFields;
  self[RAW_RESPONSE] = { status, headers: lowerHeaders(headers), body };
  return self as unknown as Response;
}

/** The raw parts of a light response not yet materialized, or undefined. @internal */
export function rawResponse(response: Response): RawResponse | undefined {
  return (response as LightResponseFields)[RAW_RESPONSE];
}

/**
 * Sets headers on a response: on a light one, in its record; on a real one, in place when its
 * headers are mutable, otherwise on a copy (which is returned). @internal
 */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  const raw = rawResponse(response);
  if (raw) {
    for (const name in headers) raw.headers[name.toLowerCase()] = headers[name] as string;
    return response;
  }
  try {
    for (const name in headers) response.headers.set(name, headers[name] as string);
    return response;
  } catch {
    const copy = new Headers(response.headers);
    for (const name in headers) copy.set(name, headers[name] as string);
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: copy,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Request

interface LightRequestFields {
  [RAW_BODY]?: Uint8Array;
  [REAL]?: Request;
  incoming: IncomingMessage;
  lightMethod: string;
  lightUrl: string;
  lightHeaders?: Headers;
  controller?: AbortController;
  /** Set when the request closed with the client gone (the signal, once asked for, is aborted). */
  gone?: boolean;
}

/** The request's headers as a `Headers` (built from Node's parsed headers). @internal */
export function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.headers;
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined) continue;
    if (typeof value === "string") headers.append(name, value);
    else for (const v of value) headers.append(name, v);
  }
  return headers;
}

/**
 * An AbortController aborted when the client goes away before the exchange ends (the request
 * closes incomplete, or destroyed with its connection). @internal
 */
export function abortOnClose(req: IncomingMessage): AbortController {
  const controller = new AbortController();
  req.on("close", () => {
    if (!req.complete || req.destroyed) controller.abort();
  });
  return controller;
}

function signalOf(self: LightRequestFields): AbortSignal {
  if (!self.controller) {
    self.controller = new AbortController();
    if (self.gone) self.controller.abort();
  }
  return self.controller.signal;
}

function realRequest(self: LightRequestFields): Request {
  let real = self[REAL];
  if (!real) {
    const method = self.lightMethod;
    const hasBody = method !== "GET" && method !== "HEAD";
    real = new Request(self.lightUrl, {
      method,
      headers: requestHeaders(self),
      signal: signalOf(self),
      ...(hasBody ? { body: self[RAW_BODY] ?? new Uint8Array() } : {}),
    });
    self[REAL] = real;
  }
  return real;
}

function requestHeaders(self: LightRequestFields): Headers {
  self.lightHeaders ??= headersOf(self.incoming);
  return self.lightHeaders;
}

const requestPrototype: object = {
  get method(): string {
    return (this as LightRequestFields).lightMethod;
  },
  get url(): string {
    return (this as LightRequestFields).lightUrl;
  },
  get headers(): Headers {
    return requestHeaders(this as LightRequestFields);
  },
  get signal(): AbortSignal {
    return signalOf(this as LightRequestFields);
  },
};
for (const key of [
  "body",
  "bodyUsed",
  "cache",
  "credentials",
  "destination",
  "duplex",
  "integrity",
  "keepalive",
  "mode",
  "redirect",
  "referrer",
  "referrerPolicy",
]) {
  Object.defineProperty(requestPrototype, key, {
    get() {
      return realRequest(this)[key as keyof Request];
    },
  });
}
for (const key of ["arrayBuffer", "blob", "bytes", "clone", "formData", "json", "text"]) {
  Object.defineProperty(requestPrototype, key, {
    value(this: LightRequestFields) {
      const real = realRequest(this) as unknown as Record<string, () => unknown>;
      return real[key]?.call(real);
    },
  });
}
Object.setPrototypeOf(requestPrototype, Request.prototype);

/**
 * A `Request` for a Node request whose body (if any) was already read into `body`; `url` is the
 * validated absolute URL. Its `signal` aborts when `res` closes before it finished (the client
 * went away). @internal
 */
export function lightRequest(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  url: string,
  body: Uint8Array | undefined,
): Request {
  const self = Object.create(requestPrototype) as LightRequestFields;
  self.incoming = req;
  self.lightMethod = method;
  self.lightUrl = url;
  if (body) self[RAW_BODY] = body;
  // The controller is made only if someone asks for the signal; the response's close is watched
  // from now on: closed before it finished means the connection went away.
  res.once("close", () => {
    if (res.writableFinished) return;
    self.gone = true;
    self.controller?.abort();
  });
  return self as unknown as Request;
}

/** The buffered body of a light request, or undefined for any other request. @internal */
export function rawBody(request: Request): Uint8Array | undefined {
  return (request as unknown as LightRequestFields)[RAW_BODY];
}
