import { createGuardedSender, type GuardedSendOptions, RequestTimeoutError } from "./guarded-send.js";

/** Options for {@link createGuardedFetch}. */
export interface GuardedFetchOptions extends GuardedSendOptions {
  /** Abort each request (connect + headers + body) after this many milliseconds. No timeout when omitted. */
  timeoutMs?: number;
}

/** A `fetch` returned by {@link createGuardedFetch}, with a `close()` that destroys its keep-alive agents. */
export type GuardedFetch = typeof fetch & {
  /** Destroys the keep-alive agents (open sockets are closed). */
  close(): void;
};

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * Creates a `fetch` for delivering webhooks to untrusted URLs. It is built on `node:http` /
 * `node:https` (through {@link createGuardedSender}) rather than the global fetch so that:
 *
 * - every connection goes through the guarded lookup, so host names resolving to private
 *   addresses are refused at connect time (`SsrfError`, code `ssrf_blocked`), and literal private IPs are
 *   refused before connecting;
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
  const sender = createGuardedSender(options);
  const guardedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    const method = request.method.toUpperCase();
    const body =
      method !== "GET" && method !== "HEAD" && request.body !== null
        ? Buffer.from(await request.arrayBuffer())
        : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const sent = await sender.send(request.url, {
      method,
      headers,
      ...(body !== undefined && { body }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      signal: request.signal,
    });
    const responseHeaders = new Headers();
    for (let i = 0; i + 1 < sent.rawHeaders.length; i += 2) {
      try {
        responseHeaders.append(sent.rawHeaders[i] as string, sent.rawHeaders[i + 1] as string);
      } catch {
        // Skip header names or values that WHATWG Headers refuses.
      }
    }
    const response = new Response(NULL_BODY_STATUSES.has(sent.status) ? null : sent.body, {
      status: sent.status,
      statusText: sent.statusText,
      headers: responseHeaders,
    });
    Object.defineProperty(response, "url", { value: sent.url.href });
    return response;
  };
  return Object.assign(guardedFetch, { close: () => sender.close() }) as GuardedFetch;
}
