import http from "node:http";
import https from "node:https";
import { RAW_OPTION, RAW_TEXT, type RawRequest, type RawResponse } from "./_raw-body.js";
import { createGuardedLookup, createUrlChecker, type SsrfGuardOptions } from "./ssrf.js";

/** Default cap on the response body kept by {@link createGuardedFetch}: 1 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Options for {@link createGuardedFetch}. */
export interface GuardedFetchOptions extends SsrfGuardOptions {
  /** Abort each request (connect + headers + body) after this many milliseconds. No timeout when omitted. */
  timeoutMs?: number;
  /**
   * Maximum number of response body bytes kept; the rest is discarded and the connection closed.
   * Defaults to {@link DEFAULT_MAX_RESPONSE_BYTES}. Use `Infinity` for no limit.
   */
  maxResponseBytes?: number;
}

/** A `fetch` returned by {@link createGuardedFetch}, with a `close()` that destroys its keep-alive agents. */
export type GuardedFetch = typeof fetch & {
  /** Destroys the keep-alive agents (open sockets are closed). */
  close(): void;
};

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

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function onlyRawOption(init: RequestInit): boolean {
  for (const key in init) if (key !== RAW_OPTION) return false;
  return true;
}

/**
 * Creates a `fetch` for delivering webhooks to untrusted URLs. It is built on `node:http` /
 * `node:https` rather than the global fetch so that:
 *
 * - every connection goes through {@link createGuardedLookup}, so host names resolving to private
 *   addresses are refused at connect time (`SsrfError`, code `ssrf_blocked`), and literal private IPs are
 *   refused by {@link checkUrl} before connecting;
 * - redirects are NEVER followed: a 3xx is returned as is, whatever `init.redirect` says;
 * - the response body is buffered (at most `maxResponseBytes`) and returned as a WHATWG `Response`;
 * - `AbortSignal` is honoured (rejects with the signal's reason) and `timeoutMs` rejects with a
 *   {@link RequestTimeoutError} (`code: "timeout"`).
 *
 * One keep-alive agent is used per protocol; call `close()` to destroy them.
 *
 * @param options - SSRF allow-list, timeout and body cap.
 * @returns A fetch-compatible function with a `close()` method.
 * @example
 * ```ts
 * const guardedFetch = createGuardedFetch({ timeoutMs: 15_000 });
 * const response = await guardedFetch("https://example.com/hook", { method: "POST", body: "{}" });
 * guardedFetch.close();
 * ```
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const lookup = createGuardedLookup(options);
  const checkDestination = createUrlChecker(options);
  const httpAgent = new http.Agent({ keepAlive: true });
  const httpsAgent = new https.Agent({ keepAlive: true });
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  const guardedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // Raw mode (the transport, see _raw-body.ts): the body comes as a string beside a body-less
    // Request, and the response text is attached instead of streamed.
    const raw = init ? ((init as Record<string, unknown>)[RAW_OPTION] as RawRequest | undefined) : undefined;
    const rawBody = raw?.body;
    const request =
      input instanceof Request && (init === undefined || onlyRawOption(init))
        ? input
        : new Request(input, init);
    const signal = request.signal;
    signal.throwIfAborted();
    const url = checkDestination(request.url);
    const method = request.method.toUpperCase();
    let body: Buffer | undefined;
    let fromRaw = false;
    if (method !== "GET" && method !== "HEAD") {
      if (request.body !== null) body = Buffer.from(await request.arrayBuffer());
      else if (typeof rawBody === "string") {
        body = Buffer.from(rawBody, "utf8");
        fromRaw = true;
      }
    }
    signal.throwIfAborted();

    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    // What fetch does for a string body sent without a content type.
    if (fromRaw && headers["content-type"] === undefined)
      headers["content-type"] = "text/plain;charset=UTF-8";
    if (body !== undefined) headers["content-length"] = String(body.length);

    const isHttps = url.protocol === "https:";
    const transport = isHttps ? https : http;

    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      };
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        req.destroy();
        reject(error);
      };
      const onAbort = () => fail(signal.reason);

      const req = transport.request(url, {
        method,
        headers,
        agent: isHttps ? httpsAgent : httpAgent,
        lookup,
      });
      req.on("error", fail);
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          cleanup();
          const responseHeaders = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
            try {
              responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
            } catch {
              // Skip header names or values that WHATWG Headers refuses.
            }
          }
          const status = res.statusCode ?? 0;
          const nullBody = NULL_BODY_STATUSES.has(status);
          let response: RawResponse;
          try {
            response = new Response(nullBody || raw ? null : Buffer.concat(chunks), {
              status,
              statusText: res.statusMessage ?? "",
              headers: responseHeaders,
            });
            if (raw) response[RAW_TEXT] = nullBody ? "" : Buffer.concat(chunks).toString("utf8");
          } catch (error) {
            reject(error);
            return;
          }
          Object.defineProperty(response, "url", { value: url.href });
          resolve(response);
          if (truncated) res.destroy();
        };
        res.on("data", (chunk: Buffer) => {
          if (truncated) return;
          if (size + chunk.length > maxBytes) {
            chunks.push(chunk.subarray(0, Math.max(0, maxBytes - size)));
            size = maxBytes;
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

      signal.addEventListener("abort", onAbort, { once: true });
      if (options.timeoutMs !== undefined && Number.isFinite(options.timeoutMs)) {
        const timeoutMs = options.timeoutMs;
        timer = setTimeout(() => fail(new RequestTimeoutError(timeoutMs, url.href)), timeoutMs);
      }
      req.end(body);
    });
  };

  return Object.assign(guardedFetch, {
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  }) as GuardedFetch;
}
