/** One HTTP attempt of a claimed delivery: sign, POST, classify the answer. */
import type { ClaimedDelivery } from "@hookline/store";
import { buildPayload, truncateUtf8 } from "./payload.js";
import { outgoingRequest } from "./request-delivery.js";
import { classifyResponse, parseRetryAfter, type ResponseClass } from "./retry-schedule.js";
import { signPayload } from "./signature.js";
import type { PostRequest } from "./transport.js";
import {
  DELIVERY_USER_AGENT,
  type DeliveryClock,
  type DeliveryTransport,
  SECRET_UNDECRYPTABLE,
} from "./worker-types.js";

/**
 * What an attempt came to: a {@link ResponseClass}, or `config` when it could not be made because
 * the webhook is misconfigured on this node (its signing secret cannot be decrypted).
 */
export type AttemptKind = ResponseClass | "config";

/** The result of one HTTP attempt, before it is turned into a completion. */
export interface AttemptResult {
  kind: AttemptKind;
  status?: number;
  durationMs: number;
  excerpt?: string;
  error?: string;
  retryAfterMs?: number;
}

/** What an attempt needs from its worker. */
export interface AttemptContext {
  transport: DeliveryTransport;
  clock: DeliveryClock;
  attemptTimeoutMs: number;
  /** Decrypts a stored secret (cached); throws when it cannot. */
  decrypt(value: string): string;
}

/** Whether the error (or one of its causes) carries `code`. */
function hasCode(error: unknown, code: string): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth++) {
    if ((current as { code?: unknown }).code === code) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** A readable message of a network error, including its causes (`fetch failed: connect ECONNREFUSED ...`). */
function errorMessage(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ") || "unknown_error";
}

/** The secrets to sign with at `at` (not expired), decrypted; a `config` result when one cannot be. */
function signingSecrets(row: ClaimedDelivery, at: number, ctx: AttemptContext): string[] | AttemptResult {
  try {
    return row.webhook.secrets
      .filter((secret) => secret.expiresAt === undefined || secret.expiresAt > at)
      .map((secret) => ctx.decrypt(secret.value));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { kind: "config", durationMs: 0, error: `${SECRET_UNDECRYPTABLE}: ${why}` };
  }
}

/** POSTs a claimed delivery once, signed, and classifies the outcome. Never throws. */
export async function attemptDelivery(
  row: ClaimedDelivery,
  startedAt: number,
  ctx: AttemptContext,
): Promise<AttemptResult> {
  const started = performance.now();
  try {
    const { webhook, event } = row;
    const secrets = signingSecrets(row, startedAt, ctx);
    if (!Array.isArray(secrets)) return secrets;
    const timestamp = Math.floor(startedAt / 1000);
    let request: PostRequest;
    if (row.request) {
      // A workflow's $.send.http: its own method, headers and body (request-delivery.ts).
      request = outgoingRequest(row, row.request, secrets, timestamp);
    } else {
      if (secrets.length === 0) throw new Error("no_signing_secret");
      const body = buildPayload(event, row.payload);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": DELIVERY_USER_AGENT,
        "webhook-id": row.eventId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signPayload(secrets, row.eventId, timestamp, body),
        "x-hookline-emitter-id": row.emitterId,
        "x-hookline-event-name": row.channel,
      };
      request = { headers, body };
    }
    const response = await ctx.transport.post(webhook.url, { ...request, timeoutMs: ctx.attemptTimeoutMs });
    const kind = classifyResponse(response.status);
    const result: AttemptResult = {
      kind,
      status: response.status,
      durationMs: Math.round(response.durationMs),
      excerpt: truncateUtf8(response.body),
    };
    if (kind !== "success") result.error = `http_${response.status}`;
    if (response.status === 429 || response.status === 503) {
      const retryAfter = parseRetryAfter(response.headers["retry-after"] ?? null, ctx.clock.now());
      if (retryAfter !== undefined) result.retryAfterMs = retryAfter;
    }
    return result;
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    if (hasCode(error, "ssrf_blocked")) return { kind: "fail", durationMs, error: "ssrf_blocked" };
    if (hasCode(error, "timeout")) return { kind: "retry", durationMs, error: "timeout" };
    return { kind: "retry", durationMs, error: errorMessage(error) };
  }
}
