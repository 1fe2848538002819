/**
 * The HTTP caps: request body size, the API rate limit per key, the rate limit per HTTP endpoint,
 * and the byte budget of a list page. Each is an option of `createHandler` (docs/rest-api.md).
 */
import { errorBody, HooklineError } from "@hookline/core";
import type { PageInfo } from "./_define.js";
import { lightResponse, rawBody } from "./_lazy-request-response.js";

/** Reads at most `limit` bytes of a body; over it, `413 payload_too_large`. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const tooLarge = () =>
    new HooklineError("payload_too_large", `The body is over the limit of ${limit} bytes`, { limit });
  const buffered = rawBody(request);
  if (buffered) {
    if (buffered.byteLength > limit) throw tooLarge();
    return buffered;
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers (IETF httpapi
 * draft): the quota, what is left of it, and the seconds until it is whole again.
 */
export function rateLimitHeaders(
  limit: number,
  remaining: number,
  resetSeconds: number,
): Record<string, string> {
  return {
    "ratelimit-limit": String(limit),
    "ratelimit-remaining": String(Math.max(0, Math.floor(remaining))),
    "ratelimit-reset": String(Math.max(0, Math.ceil(resetSeconds))),
  };
}

/** A fixed-window counter per key: `take` answers the seconds to wait, or undefined when allowed. */
export function windowLimiter(options: { requests: number; windowMs: number }, now = Date.now) {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    /** The RateLimit headers of `key` as they stand (after its `take`). */
    headers(key: string): Record<string, string> {
      const window = windows.get(key);
      if (!window) return rateLimitHeaders(options.requests, options.requests, 0);
      return rateLimitHeaders(
        options.requests,
        options.requests - window.count,
        (window.resetAt - now()) / 1000,
      );
    },
    take(key: string): number | undefined {
      const at = now();
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        if (windows.size >= 10_000) for (const [k, w] of windows) if (w.resetAt <= at) windows.delete(k);
        window = { count: 0, resetAt: at + options.windowMs };
        windows.set(key, window);
      }
      window.count++;
      return window.count > options.requests
        ? Math.max(1, Math.ceil((window.resetAt - at) / 1000))
        : undefined;
    },
  };
}

/** Options of a token bucket: a sustained rate and the burst it allows. */
export interface TokenBucketOptions {
  /** Tokens added per second (the sustained request rate). */
  perSecond: number;
  /** Bucket size: how many requests may arrive at once after a quiet period. */
  burst: number;
}

/**
 * A token bucket per key (per HTTP endpoint, on this node): `take` answers the seconds until a
 * token is back, or undefined when the request may go on. Buckets that have refilled are forgotten
 * once there are many, so random keys cannot grow the map without bound.
 *
 * @example
 * ```ts
 * const limiter = tokenBuckets({ perSecond: 400, burst: 2000 });
 * limiter.take("en_123"); // undefined: allowed
 * ```
 */
export function tokenBuckets(options: TokenBucketOptions, now = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refill = (bucket: { tokens: number; at: number }, at: number) => {
    bucket.tokens = Math.min(options.burst, bucket.tokens + ((at - bucket.at) / 1000) * options.perSecond);
    bucket.at = at;
  };
  return {
    take(key: string): number | undefined {
      const at = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= 10_000) {
          for (const [k, b] of buckets) {
            refill(b, at);
            if (b.tokens >= options.burst) buckets.delete(k);
          }
        }
        bucket = { tokens: options.burst, at };
        buckets.set(key, bucket);
      } else refill(bucket, at);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return undefined;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond));
    },
    /** How many buckets are kept. */
    size: () => buckets.size,
    /** The RateLimit headers of `key` as they stand (after its `take`): reset is when it is full again. */
    headers(key: string): Record<string, string> {
      const bucket = buckets.get(key);
      const tokens = bucket ? Math.min(options.burst, bucket.tokens) : options.burst;
      return rateLimitHeaders(options.burst, tokens, (options.burst - tokens) / options.perSecond);
    },
  };
}

/** The 429 of a rate limit, with `Retry-After`, as the engine's ingress answers it. */
export function rateLimitedReply(
  retryAfter: number,
  what: string,
): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: 429,
    headers: { "content-type": "application/json; charset=utf-8", "retry-after": String(retryAfter) },
    body: JSON.stringify(errorBody("rate_limited", `Too many requests ${what}; retry in ${retryAfter} s`)),
  };
}

/** The 429 of a rate limit, with `Retry-After`. */
export function rateLimited(retryAfter: number, what: string): Response {
  const reply = rateLimitedReply(retryAfter, what);
  return lightResponse(reply.body, reply.status, reply.headers);
}

/**
 * The JSON text of a list page, stopping once the serialized items pass `maxBytes` (always at
 * least one item): the page then ends at the last item included, and `end_cursor` is its cursor.
 */
export function listBody(
  list: unknown[],
  pageInfo: PageInfo,
  cursor: ((index: number) => string) | undefined,
  maxBytes: number,
): string {
  const parts: string[] = [];
  let bytes = 0;
  for (const item of list) {
    const json = JSON.stringify(item);
    const size = Buffer.byteLength(json);
    if (parts.length > 0 && bytes + size > maxBytes && cursor) break;
    parts.push(json);
    bytes += size + 1;
  }
  const info: PageInfo =
    parts.length < list.length && cursor
      ? {
          ...pageInfo,
          count: parts.length,
          end_cursor: cursor(parts.length - 1),
          ...(pageInfo.has_more === undefined ? {} : { has_more: true }),
        }
      : pageInfo;
  return `{"data":[${parts.join(",")}],"page_info":${JSON.stringify(info)}}`;
}
