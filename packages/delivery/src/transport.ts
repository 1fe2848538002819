import { createGuardedConnector, type GuardedConnector } from "./guarded-connect.js";
import { createGuardedFetch, type GuardedFetchOptions } from "./guarded-fetch.js";
import { createGuardedSender, type GuardedSender } from "./guarded-send.js";

/** Default per-request timeout of {@link createTransport}: 15 seconds (Svix uses 15 s). */
export const DEFAULT_TIMEOUT_MS = 15_000;

/** Options for {@link createTransport}. */
export interface TransportOptions extends GuardedFetchOptions {}

/** A request for {@link Transport.post}. */
export interface PostRequest {
  /** The method: `POST` by default (workflow requests use others). */
  method?: string;
  /** Request headers (e.g. `content-type` and the Standard Webhooks headers). */
  headers?: Record<string, string>;
  /** The request body, sent as is. */
  body?: string;
  /** Time limit for this request in milliseconds; defaults to the transport's `timeoutMs`, then 15 s. */
  timeoutMs?: number;
}

/** The outcome of {@link Transport.post}: whatever the status, as long as a response arrived. */
export interface PostResult {
  /** HTTP status code; 3xx are returned as is, never followed. */
  status: number;
  /** Response headers, lower-cased; repeated headers are joined with `", "`. */
  headers: Record<string, string>;
  /** Response body as text (capped at the transport's `maxResponseBytes`). */
  body: string;
  /** Wall-clock time from sending to having read the body, in milliseconds. */
  durationMs: number;
}

/** An HTTP client for webhook delivery, created by {@link createTransport}. */
export interface Transport {
  /** The SSRF-guarded, non-redirecting fetch used under the hood (no time limit of its own: pass a signal). */
  fetch: typeof fetch;
  /**
   * POSTs `body` to `url` (or sends it with `request.method`). Resolves for every HTTP status; rejects with `SsrfError` (code `ssrf_blocked`),
   * {@link RequestTimeoutError} (code `timeout`) or a network error.
   */
  post(url: string | URL, request?: PostRequest): Promise<PostResult>;
  /**
   * One guarded request with Node's view of the answer (raw headers, bytes), TLS settings and its
   * own body cap: what components' `http.request` goes through. Absent from a transport an
   * embedder wrote: components' `http` module then falls back to `fetch`.
   */
  request?: GuardedSender["send"];
  /**
   * Components' sockets (`net`, `tls`) and `dns.lookup`, under the same SSRF guard. Absent from a
   * transport an embedder wrote: sockets are not available to components.
   */
  sockets?: GuardedConnector;
  /** Destroys the keep-alive agents. */
  close(): void;
}

/**
 * Creates the HTTP transport used to deliver webhooks: one request per call straight over
 * `node:http` / `node:https` through the SSRF-guarded sender (no retries: the delivery schedule
 * handles them; no redirects followed; every status resolved; a per-request timeout). No WHATWG
 * `Request`/`Response` is built on this path (they cost more CPU than the exchange itself).
 *
 * @param options - SSRF allow-list, default timeout and response body cap.
 * @returns The transport; call `close()` when done.
 * @example
 * ```ts
 * const transport = createTransport({ timeoutMs: 15_000 });
 * const result = await transport.post("https://example.com/hook", {
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ hello: "world" }),
 * });
 * console.log(result.status, result.durationMs);
 * transport.close();
 * ```
 */
export function createTransport(options: TransportOptions = {}): Transport {
  const sender = createGuardedSender(options);
  // The fetch for other callers (reading a component's URL...) has no time limit of its own.
  const guardedFetch = createGuardedFetch({ ...options, timeoutMs: undefined });
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function post(url: string | URL, request: PostRequest = {}): Promise<PostResult> {
    const started = performance.now();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
    let body: Buffer | undefined;
    const method = (request.method ?? "POST").toUpperCase();
    if (request.body !== undefined && method !== "GET" && method !== "HEAD") {
      body = Buffer.from(request.body, "utf8");
      // What fetch does for a string body sent without a content type.
      headers["content-type"] ??= "text/plain;charset=UTF-8";
    }
    const sent = await sender.send(url, {
      method,
      headers,
      ...(body !== undefined && { body }),
      timeoutMs: request.timeoutMs ?? defaultTimeout,
    });
    return {
      status: sent.status,
      headers: headersOf(sent.rawHeaders),
      body: sent.body.toString("utf8"),
      durationMs: performance.now() - started,
    };
  }

  return {
    fetch: guardedFetch,
    post,
    request: (url, request) => sender.send(url, request),
    sockets: createGuardedConnector(options),
    close: () => {
      sender.close();
      guardedFetch.close();
    },
  };
}

/** Response headers lower-cased, repeated ones joined with `", "` (as WHATWG `Headers` reads them). */
function headersOf(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}
