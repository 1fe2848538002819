/**
 * One HTTP request to an untrusted URL over `node:http` / `node:https`, with the SSRF guard and
 * without WHATWG objects: what {@link createGuardedFetch} wraps as a `fetch`, and what the delivery
 * transport sends with directly (a `Request`, its `Headers` and a `Response` per delivery cost more
 * CPU than the HTTP exchange itself; see docs/benchmarks.md).
 */
import http from "node:http";
import https from "node:https";
import { type TlsOptions, tlsOptions } from "./_tls-options.js";
import { createGuardedLookup, createUrlChecker, type SsrfGuardOptions } from "./ssrf.js";

/** Default cap on the response body kept by {@link createGuardedSender}: 1 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Options for {@link createGuardedSender}. */
export interface GuardedSendOptions extends SsrfGuardOptions {
  /**
   * Maximum number of response body bytes kept; the rest is discarded and the connection closed.
   * Defaults to {@link DEFAULT_MAX_RESPONSE_BYTES}. Use `Infinity` for no limit.
   */
  maxResponseBytes?: number;
}

/** A request for {@link GuardedSender.send}. */
export interface SendRequest {
  /** Upper-case method. */
  method: string;
  /** Header names and values, sent as given (Node refuses invalid ones); a list sends the header once per value. */
  headers: Record<string, string | string[]>;
  /** The body, if any. */
  body?: Buffer;
  /** Abort the whole exchange (connect, headers, body) after this many milliseconds. */
  timeoutMs?: number;
  /** Abort when this signal does (rejects with its reason). */
  signal?: AbortSignal;
  /** TLS settings of an `https:` request (trusted `ca`, `rejectUnauthorized`, client certificate...). */
  tls?: TlsOptions;
  /** This request's cap on the body kept (default: the sender's `maxResponseBytes`). */
  maxResponseBytes?: number;
}

/** What came back: the status and headers as Node parsed them, the body (capped). */
export interface SendResponse {
  status: number;
  statusText: string;
  /** Alternating names and values, as received. */
  rawHeaders: string[];
  body: Buffer;
  /** The destination, checked. */
  url: URL;
  /** True when the body was longer than the cap (`body` holds its first bytes). */
  truncated?: boolean;
  /** The HTTP version the server answered with (`1.1`). */
  httpVersion: string;
}

/** Rejection reason of a request that exceeded its time limit; `code` is always `"timeout"`. */
export class RequestTimeoutError extends Error {
  /** Always `"timeout"`. */
  readonly code = "timeout" as const;
  /** The time limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;

  /**
   * @param timeoutMs - The time limit that was exceeded.
   * @param url - The requested URL, for the message.
   */
  constructor(timeoutMs: number, url?: string) {
    super(`Request${url ? ` to ${url}` : ""} timed out after ${timeoutMs} ms`);
    this.name = "RequestTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** Sends guarded requests; see {@link createGuardedSender}. */
export interface GuardedSender {
  /**
   * Sends one request. A literal private address is refused before connecting and a host name
   * resolving to one at connect time (`SsrfError`, code `ssrf_blocked`); redirects are never
   * followed (a 3xx is returned as is); the body read is capped.
   */
  send(url: string | URL, request: SendRequest): Promise<SendResponse>;
  /** Destroys the keep-alive agents (open sockets are closed). */
  close(): void;
}

/**
 * Creates the sender under the guarded fetch and the delivery transport: one keep-alive agent per
 * protocol, every connection through {@link createGuardedLookup}.
 *
 * @param options - SSRF allow-list and body cap.
 * @example
 * ```ts
 * const sender = createGuardedSender();
 * const res = await sender.send("https://example.com/hook", {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: Buffer.from("{}"),
 *   timeoutMs: 15_000,
 * });
 * console.log(res.status, res.body.toString());
 * sender.close();
 * ```
 */
export function createGuardedSender(options: GuardedSendOptions = {}): GuardedSender {
  const lookup = createGuardedLookup(options);
  const checkDestination = createUrlChecker(options);
  const httpAgent = new http.Agent({ keepAlive: true });
  const httpsAgent = new https.Agent({ keepAlive: true });
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  function send(target: string | URL, request: SendRequest): Promise<SendResponse> {
    const { signal } = request;
    signal?.throwIfAborted();
    const url = checkDestination(String(target));
    const headers = { ...request.headers };
    if (request.body !== undefined) headers["content-length"] = String(request.body.length);
    const isHttps = url.protocol === "https:";
    const transport = isHttps ? https : http;
    const cap = request.maxResponseBytes ?? maxBytes;

    return new Promise<SendResponse>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        req.destroy();
        reject(error);
      };
      const onAbort = () => fail(signal?.reason);

      let req: http.ClientRequest;
      try {
        req = transport.request(url, {
          method: request.method,
          headers,
          agent: isHttps ? httpsAgent : httpAgent,
          lookup,
          // Node's https agent keeps connections with different TLS settings apart.
          ...(isHttps && request.tls ? tlsOptions(request.tls) : {}),
        });
      } catch (error) {
        // An invalid header name or value, refused by Node before anything is sent.
        reject(error);
        return;
      }
      req.on("error", fail);
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          cleanup();
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? "",
            rawHeaders: res.rawHeaders,
            body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
            url,
            httpVersion: res.httpVersion,
            ...(truncated ? { truncated } : {}),
          });
          if (truncated) res.destroy();
        };
        res.on("data", (chunk: Buffer) => {
          if (truncated) return;
          if (size + chunk.length > cap) {
            chunks.push(chunk.subarray(0, Math.max(0, cap - size)));
            size = cap;
            truncated = true;
            finish();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on("end", finish);
        res.on("error", fail);
        res.on("close", () => {
          if (!res.complete) fail(new Error("Response closed before it was complete"));
        });
      });

      signal?.addEventListener("abort", onAbort, { once: true });
      if (request.timeoutMs !== undefined && Number.isFinite(request.timeoutMs)) {
        const timeoutMs = request.timeoutMs;
        timer = setTimeout(() => fail(new RequestTimeoutError(timeoutMs, url.href)), timeoutMs);
      }
      req.end(request.body);
    });
  }

  return {
    send,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
