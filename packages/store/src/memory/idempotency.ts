/** Idempotency keys in memory. */
import type { IdempotencyRecord, IdempotencyStore } from "../types/index.js";
import { copy } from "./copy.js";
import type { MemoryState } from "./state.js";

/** The idempotency keys of a memory store (kept beside its state: nothing else reads them). */
export function memoryIdempotency(s: MemoryState): IdempotencyStore {
  const records = new Map<string, IdempotencyRecord>();
  const keyOf = (workspaceId: string, key: string) => `${workspaceId}\u0000${key}`;
  let sweptAt = Number.NEGATIVE_INFINITY;
  return {
    async claim(input) {
      s.open();
      const now = s.clock();
      // Expired records go as new ones come, in one pass a minute at most.
      if (now - sweptAt >= 60_000) {
        sweptAt = now;
        for (const [k, row] of records) if (row.expiresAt <= now) records.delete(k);
      }
      const held = records.get(keyOf(input.workspaceId, input.key));
      if (held && held.expiresAt > now && (held.response || held.lockedUntil > now))
        return { claimed: false, record: copy(held) };
      records.set(keyOf(input.workspaceId, input.key), {
        workspaceId: input.workspaceId,
        key: input.key,
        fingerprint: input.fingerprint,
        lockedUntil: now + input.lockMs,
        createdAt: now,
        expiresAt: now + input.ttlMs,
      });
      return { claimed: true };
    },
    async complete(workspaceId, key, response) {
      s.open();
      const row = records.get(keyOf(workspaceId, key));
      if (row) row.response = { ...response };
    },
    async release(workspaceId, key) {
      s.open();
      const row = records.get(keyOf(workspaceId, key));
      if (row && !row.response) records.delete(keyOf(workspaceId, key));
    },
  };
}
