/**
 * `Idempotency-Key` on creating requests (every authenticated `POST`): the first answer is kept a
 * day per workspace and key, and a retry with the same request gets it again instead of creating a
 * second resource. The records live in the store (`store.idempotency`), so a retry that reaches
 * another node is answered the same.
 */
import { createHash } from "node:crypto";
import { HooklineError } from "@hookline/core";
import type { Store } from "@hookline/store";
import stringify from "safe-stable-stringify";
import { apiErrorResponse } from "./_errors.js";
import { lightResponse, rawResponse } from "./_lazy-request-response.js";

/** How long an answer is kept: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claimed key waits for its request's answer: a request still running is answered
 * `idempotency_in_progress` until then; after it (its node died), a retry runs again.
 */
export const IDEMPOTENCY_LOCK_MS = 5 * 60 * 1000;

const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/** The request's `Idempotency-Key`, or undefined; `invalid_idempotency_key` when malformed. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const key = request.headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!VALID_KEY.test(key)) {
    throw new HooklineError(
      "invalid_idempotency_key",
      "Idempotency-Key must be 1 to 255 printable ASCII characters",
      { problems: [{ path: "Idempotency-Key", message: "1 to 255 printable ASCII characters" }] },
    );
  }
  return key;
}

/**
 * What makes two requests the same: method, path and parameters (query and body merged), with
 * object keys in a stable order so that `{"a":1,"b":2}` and `{"b":2,"a":1}` agree.
 */
export function fingerprintOf(method: string, path: string, params: unknown): string {
  return createHash("sha256")
    .update(stringify([method, path, params]) ?? "")
    .digest("hex");
}

/** What {@link idempotent} needs of a request. */
export interface IdempotentCall {
  store: Pick<Store, "idempotency">;
  workspaceId: string;
  key: string;
  fingerprint: string;
  /** Where a failure to store the answer is reported (the request itself succeeded). */
  onError(error: unknown): void;
}

/**
 * Runs `run` once per key: the first request runs and its successful JSON answer is stored; a
 * retry with the same fingerprint gets that answer (with `Idempotent-Replayed: true`), one with
 * another is `idempotency_conflict`, one while the first still runs is `idempotency_in_progress`.
 * A failed request (an error, or an answer that is not a 2xx JSON body) frees the key, so that a
 * retry runs again.
 *
 * @example
 * ```ts
 * const response = await idempotent({ store, workspaceId, key, fingerprint, onError }, () => create());
 * ```
 */
export async function idempotent(call: IdempotentCall, run: () => Promise<Response>): Promise<Response> {
  const { store, workspaceId, key, fingerprint } = call;
  const claim = await store.idempotency.claim({
    workspaceId,
    key,
    fingerprint,
    lockMs: IDEMPOTENCY_LOCK_MS,
    ttlMs: IDEMPOTENCY_TTL_MS,
  });
  if (!claim.claimed) {
    const { record } = claim;
    if (record.fingerprint !== fingerprint) {
      throw new HooklineError(
        "idempotency_conflict",
        "This Idempotency-Key was used for another request (method, path or parameters) in the last 24 hours; use a new key",
      );
    }
    if (!record.response) {
      const error = new HooklineError(
        "idempotency_in_progress",
        "A request with this Idempotency-Key is still running; retry shortly",
      );
      return apiErrorResponse(error, { "retry-after": "1" });
    }
    return lightResponse(record.response.body, record.response.status, {
      "content-type": "application/json; charset=utf-8",
      "idempotent-replayed": "true",
    });
  }
  const release = () => store.idempotency.release(workspaceId, key).catch(call.onError);
  let response: Response;
  try {
    response = await run();
  } catch (error) {
    await release();
    throw error;
  }
  const raw = rawResponse(response);
  const body = raw && (typeof raw.body === "string" ? raw.body : undefined);
  if (body === undefined || response.status < 200 || response.status > 299) {
    await release();
    return response;
  }
  await store.idempotency.complete(workspaceId, key, { status: response.status, body }).catch(call.onError);
  return response;
}
