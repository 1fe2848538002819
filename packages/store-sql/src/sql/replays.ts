/** Replay jobs in SQL: each batch's deliveries and the job's progress in one transaction. */
import type { Replay, ReplayStatus, ReplayStore } from "@hookline/store";
import { newReplay } from "@hookline/store/adapter";
import type { SqlRow } from "../clients.js";
import { enqueueSql } from "./deliveries.js";
import { fromJson, optStr, str, toJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

const REPLAY = [
  "id",
  "workspace_id",
  "subscription_id",
  "webhook_id",
  "emitter_id",
  "since",
  "until",
  "filter",
  "status",
  "scanned",
  "enqueued",
  "cursor",
  "error",
  "created_at",
  "updated_at",
].join(", ");

function toReplay(row: SqlRow): Replay {
  const replay: Replay = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    subscriptionId: str(row.subscription_id),
    webhookId: str(row.webhook_id),
    emitterId: str(row.emitter_id),
    status: str(row.status) as ReplayStatus,
    scanned: Number(row.scanned),
    enqueued: Number(row.enqueued),
    cursor: optStr(row.cursor) ?? null,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  if (row.since !== null && row.since !== undefined) replay.since = Number(row.since);
  if (row.until !== null && row.until !== undefined) replay.until = Number(row.until);
  const filter = fromJson(row.filter) as Record<string, unknown> | undefined;
  if (filter !== undefined) replay.filter = filter;
  const error = optStr(row.error);
  if (error !== undefined) replay.error = error;
  return replay;
}

/** The replays of a SQL store. */
export function sqlReplays(c: SqlContext): ReplayStore {
  return {
    async create(input, now) {
      const row = newReplay(input, now);
      await c.run(
        `INSERT INTO replays (id, workspace_id, subscription_id, webhook_id, emitter_id, since, until, filter,
           status, scanned, enqueued, cursor, error, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'running', 0, 0, NULL, NULL, $9, $9)`,
        [
          row.id,
          row.workspaceId,
          row.subscriptionId,
          row.webhookId,
          row.emitterId,
          row.since ?? null,
          row.until ?? null,
          toJson(row.filter, "filter"),
          now,
        ],
      );
      return toReplay((await c.one(`SELECT ${REPLAY} FROM replays WHERE id = $1`, [row.id])) as SqlRow);
    },
    async get(workspaceId, id) {
      const row = await c.one(`SELECT ${REPLAY} FROM replays WHERE workspace_id = $1 AND id = $2`, [
        workspaceId,
        id,
      ]);
      return row && toReplay(row);
    },
    async list(workspaceId, subscriptionId) {
      const rows = await c.run(
        `SELECT ${REPLAY} FROM replays WHERE workspace_id = $1 AND subscription_id = $2 ORDER BY id DESC`,
        [workspaceId, subscriptionId],
      );
      return rows.map(toReplay);
    },
    async advance(workspaceId, id, step, now) {
      c.open();
      return c.transaction(async (tx) => {
        const [moved] = await c.run(
          `UPDATE replays SET cursor = $4, status = $5, scanned = scanned + $6, updated_at = $7,
             error = coalesce($8, error)
           WHERE workspace_id = $1 AND id = $2 AND status = 'running' AND cursor IS NOT DISTINCT FROM $3
           RETURNING webhook_id`,
          [workspaceId, id, step.from, step.cursor, step.status, step.scanned, now, step.error ?? null],
          undefined,
          tx,
        );
        if (!moved) return undefined;
        const deliveries = await enqueueSql(c, workspaceId, str(moved.webhook_id), step.events, now, tx);
        const [row] = await c.run(
          `UPDATE replays SET enqueued = enqueued + $2 WHERE id = $1 RETURNING ${REPLAY}`,
          [id, deliveries.length],
          undefined,
          tx,
        );
        return { replay: toReplay(row as SqlRow), deliveries };
      });
    },
  };
}
