import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** Default clock skew tolerated by {@link verifyWebhook}, in seconds (Standard Webhooks recommends 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why {@link verifyWebhook} rejected a request. */
export type WebhookVerificationErrorCode =
  | "missing_headers"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "invalid_signature";

/** Thrown by {@link verifyWebhook} when a webhook request cannot be authenticated. */
export class WebhookVerificationError extends Error {
  /** Machine-readable reason for the failure. */
  readonly code: WebhookVerificationErrorCode;

  /**
   * @param code - Machine-readable reason.
   * @param message - Human-readable description.
   */
  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.code = code;
  }
}

/** Options for {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** Maximum allowed distance between `webhook-timestamp` and now, in seconds. Defaults to 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch. Defaults to `Date.now()`. */
  now?: number;
}

/** Headers accepted by {@link verifyWebhook}: a WHATWG `Headers` or a Node-style header record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Generates a new Standard Webhooks signing secret: `whsec_` followed by 24 random bytes in base64.
 *
 * @returns A fresh secret.
 * @example
 * ```ts
 * const secret = generateWebhookSecret(); // "whsec_..."
 * ```
 */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString("base64");
}

function secretKey(secret: string): Buffer {
  const raw = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(raw, "base64");
}

function sign(secret: string, msgId: string, timestamp: number, body: string | Uint8Array): Buffer {
  const hmac = createHmac("sha256", secretKey(secret));
  hmac.update(`${msgId}.${timestamp}.`);
  hmac.update(body);
  return hmac.digest();
}

/**
 * Computes the `webhook-signature` header value for a message: one `v1,<base64 HMAC-SHA256>` entry per
 * secret, space separated (several secrets allow zero-downtime rotation).
 *
 * @param secrets - Signing secrets (`whsec_`-prefixed base64, the prefix is optional).
 * @param msgId - The `webhook-id` header value.
 * @param timestamp - The `webhook-timestamp` header value, in seconds since the epoch.
 * @param body - The exact request body.
 * @returns The `webhook-signature` header value.
 * @example
 * ```ts
 * const ts = Math.floor(Date.now() / 1000);
 * const signature = signPayload([secret], "msg_1", ts, JSON.stringify(payload));
 * ```
 */
export function signPayload(secrets: string[], msgId: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${sign(secret, msgId, timestamp, body).toString("base64")}`).join(" ");
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    return headers.get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    const value = record[key];
    if (value === undefined) continue;
    return Array.isArray(value) ? value.join(" ") : value;
  }
  return undefined;
}

/**
 * Verifies a Standard Webhooks request: checks the timestamp is within tolerance and that at least one
 * `v1,` signature in `webhook-signature` matches one of the secrets (compared in constant time).
 *
 * @param secret - One secret or several (e.g. during rotation).
 * @param headers - Request headers; `webhook-id`, `webhook-timestamp` and `webhook-signature` are read case-insensitively.
 * @param body - The raw request body, exactly as received.
 * @param options - Tolerance and clock override.
 * @throws {@link WebhookVerificationError} when the request is not authentic.
 * @example
 * ```ts
 * try {
 *   verifyWebhook(process.env.WEBHOOK_SECRET!, request.headers, await request.text());
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) return new Response(null, { status: 401 });
 *   throw error;
 * }
 * ```
 */
export function verifyWebhook(
  secret: string | string[],
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): void {
  const msgId = readHeader(headers, "webhook-id");
  const timestampHeader = readHeader(headers, "webhook-timestamp");
  const signatureHeader = readHeader(headers, "webhook-signature");
  if (!msgId || !timestampHeader || !signatureHeader) {
    throw new WebhookVerificationError("missing_headers", "Missing required webhook headers");
  }
  const timestamp = Number(timestampHeader);
  if (!/^\d+$/.test(timestampHeader.trim()) || !Number.isSafeInteger(timestamp)) {
    throw new WebhookVerificationError("invalid_signature", "Invalid webhook-timestamp header");
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (timestamp < nowSeconds - tolerance) {
    throw new WebhookVerificationError("timestamp_too_old", "Message timestamp too old");
  }
  if (timestamp > nowSeconds + tolerance) {
    throw new WebhookVerificationError("timestamp_too_new", "Message timestamp too new");
  }

  const candidates: Buffer[] = [];
  for (const part of signatureHeader.split(" ")) {
    const comma = part.indexOf(",");
    if (comma < 0 || part.slice(0, comma) !== "v1") continue;
    candidates.push(Buffer.from(part.slice(comma + 1), "base64"));
  }
  const secrets = Array.isArray(secret) ? secret : [secret];
  for (const s of secrets) {
    const expected = sign(s, msgId, timestamp, body);
    for (const candidate of candidates) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return;
    }
  }
  throw new WebhookVerificationError("invalid_signature", "No matching signature found");
}
