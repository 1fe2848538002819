import ky, { type Options as KyOptions, TimeoutError } from "ky";
import { RAW_OPTION, RAW_TEXT, type RawRequest, type RawResponse } from "./_raw-body.js";
import { createGuardedFetch, type GuardedFetchOptions, RequestTimeoutError } from "./guarded-fetch.js";

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
  /** Destroys the keep-alive agents. */
  close(): void;
}

/**
 * Creates the HTTP transport used to deliver webhooks: `ky` on top of {@link createGuardedFetch}, with
 * retries disabled (the delivery schedule handles retries), no HTTP-error throwing, manual redirects
 * and a per-request timeout.
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
  // The per-request time limit is enforced by ky, so the underlying fetch gets none of its own.
  const guardedFetch = createGuardedFetch({ ...options, timeoutMs: undefined });
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function post(url: string | URL, request: PostRequest = {}): Promise<PostResult> {
    const timeoutMs = request.timeoutMs ?? defaultTimeout;
    const started = performance.now();
    // ky builds the request (method, headers, timeout, no retry, no redirect, no throwing); the body
    // travels in raw mode (see _raw-body.ts) rather than through WHATWG streams.
    const raw: RawRequest = {};
    if (request.body !== undefined) raw.body = request.body;
    const kyOptions: KyOptions & { [RAW_OPTION]: RawRequest } = {
      fetch: guardedFetch,
      retry: 0,
      throwHttpErrors: false,
      redirect: "manual",
      timeout: timeoutMs,
      [RAW_OPTION]: raw,
    };
    if (request.headers) kyOptions.headers = request.headers;
    try {
      const response: RawResponse = await ky(url, { ...kyOptions, method: request.method ?? "POST" });
      const body = response[RAW_TEXT] ?? (await response.text());
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key] = value;
      });
      return { status: response.status, headers, body, durationMs: performance.now() - started };
    } catch (error) {
      if (error instanceof TimeoutError) throw new RequestTimeoutError(timeoutMs, String(url));
      throw error;
    }
  }

  return { fetch: guardedFetch, post, close: () => guardedFetch.close() };
}
