/** Idempotency keys in SQL. */
import type { IdempotencyRecord, IdempotencyStore } from "@hookline/store";
import type { SqlRow } from "../clients.js";
import { str } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

const COLS = "workspace_id, key, fingerprint, status, body, locked_until, created_at, expires_at";

function toRecord(row: SqlRow): IdempotencyRecord {
  const record: IdempotencyRecord = {
    workspaceId: str(row.workspace_id),
    key: str(row.key),
    fingerprint: str(row.fingerprint),
    lockedUntil: Number(row.locked_until),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
  if (row.status !== null && row.status !== undefined) {
    record.response = { status: Number(row.status), body: str(row.body) };
  }
  return record;
}

/** The idempotency keys of a SQL store. */
export function sqlIdempotency(c: SqlContext): IdempotencyStore {
  let sweptAt = Number.NEGATIVE_INFINITY;
  return {
    async claim(input) {
      const now = c.clock();
      if (now - sweptAt >= 60_000) {
        // Expired records go as new ones come, once a minute at most per store.
        sweptAt = now;
        await c.run("DELETE FROM idempotency_keys WHERE expires_at <= $1", [now]);
      }
      // Of concurrent claims one inserts (or takes over an expired or abandoned record); the others
      // read what it holds. A record released between the two statements is claimed again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const taken = await c.run(
          `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, locked_until, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (workspace_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = NULL,
             body = NULL, locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at,
             expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at <= $5
             OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= $5)
           RETURNING key`,
          [input.workspaceId, input.key, input.fingerprint, now + input.lockMs, now, now + input.ttlMs],
        );
        if (taken.length > 0) return { claimed: true };
        const row = await c.one(`SELECT ${COLS} FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`, [
          input.workspaceId,
          input.key,
        ]);
        if (row) return { claimed: false, record: toRecord(row) };
      }
      throw new Error(`Idempotency key ${input.key} kept changing while it was claimed`);
    },
    async complete(workspaceId, key, response) {
      await c.run("UPDATE idempotency_keys SET status = $3, body = $4 WHERE workspace_id = $1 AND key = $2", [
        workspaceId,
        key,
        response.status,
        response.body,
      ]);
    },
    async release(workspaceId, key) {
      await c.run("DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND status IS NULL", [
        workspaceId,
        key,
      ]);
    },
  };
}
