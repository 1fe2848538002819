/** Idempotency keys: the first answer to a creating request, kept to answer its retries. */

/** A request's idempotency key as stored: who holds it and, once done, its answer. */
export interface IdempotencyRecord {
  /** Owning workspace (keys are per workspace). */
  workspaceId: string;
  /** The client's `Idempotency-Key`. */
  key: string;
  /** What identifies the request (a hash of its method, path and parameters). */
  fingerprint: string;
  /** The answer once the first request finished; absent while it runs. */
  response?: { status: number; body: string };
  /** While no answer is stored: when the claim lapses and another request may take the key over. */
  lockedUntil: number;
  /** Creation time. */
  createdAt: number;
  /** When the record stops being found (and is deleted in time). */
  expiresAt: number;
}

/** Input of {@link IdempotencyStore.claim}. */
export interface ClaimIdempotencyInput {
  workspaceId: string;
  key: string;
  fingerprint: string;
  /** How long the claim holds while the request runs, ms. */
  lockMs: number;
  /** How long the record is kept, ms. */
  ttlMs: number;
}

/**
 * Idempotency keys of creating requests (`Idempotency-Key`). A key is claimed when its request
 * starts and answered when it ends; of concurrent claims exactly one wins.
 */
export interface IdempotencyStore {
  /**
   * Claims the key for a request: resolves `{ claimed: true }` when it was free (never used, expired,
   * or claimed by a request whose lock lapsed without an answer), else `{ claimed: false, record }`
   * with the record as it is (with the first request's answer when there is one).
   */
  claim(
    input: ClaimIdempotencyInput,
  ): Promise<{ claimed: true } | { claimed: false; record: IdempotencyRecord }>;
  /** Stores the answer of the request that claimed the key. */
  complete(workspaceId: string, key: string, response: { status: number; body: string }): Promise<void>;
  /** Frees a key whose request failed, so that a retry runs again; an answered key is left alone. */
  release(workspaceId: string, key: string): Promise<void>;
}
