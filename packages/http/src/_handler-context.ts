/**
 * What the parts of one `createHandler()` share: the engine, the caps and rate limiters its options
 * resolved to, and where unexpected errors go; and what one request's dispatch finds out on the way.
 * `handler.ts` builds it once; the request's parts (`_api-auth.ts`, `_ingress.ts`,
 * `_route-dispatch.ts`) take it as their first argument.
 */
import type { ConnectTokenGrant, Hookline } from "@hookline/engine";
import type { tokenBuckets, windowLimiter } from "./_limits.js";
import type { MetricsRoute, RequestTrace } from "./_ops.js";

/** One handler's resolved options. @internal */
export interface HandlerContext {
  readonly hookline: Hookline;
  /** Largest request body, bytes. */
  readonly bodyLimit: number;
  /** Largest serialized list page, bytes. */
  readonly maxPageBytes: number;
  /** Requests per API key (hashed); absent when off. */
  readonly apiLimit: ReturnType<typeof windowLimiter> | undefined;
  /** Requests per HTTP endpoint; absent when off. */
  readonly ingressLimit: ReturnType<typeof tokenBuckets> | undefined;
  /** Requests to the HTTP endpoints of one workspace; absent when off. */
  readonly workspaceLimit: ReturnType<typeof tokenBuckets> | undefined;
  /** `GET /metrics`, when served here. */
  readonly metrics: MetricsRoute | undefined;
  /** Where errors that are not Hookline errors are reported. */
  readonly onError: (error: unknown, requestId: string) => void;
}

/** What one request's dispatch found out (the connect grant, and what an observer is told). @internal */
export type Seen = RequestTrace & {
  grant?: ConnectTokenGrant;
  /** The RateLimit headers of the limit the request counted against. */
  limit?: Record<string, string>;
};
