/** Delivery records in SQL: reads, retry, recover and purge. */
import type { Delivery, DeliveryStore, DeliveryWithEvent, StoredEvent } from "@hookline/store";
import { clampLimit, newDelivery, pageOf, parseIdCursor } from "@hookline/store/adapter";
import type { SqlClient } from "../clients.js";
import { ATTEMPT, cols, DELIVERY, EVENT, toAttempt, toDelivery, toEvent, unprefix } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { countOf, placeholders } from "./statement-text.js";

/**
 * The state a delivery waits in (`d` being the row): `pending` when its webhook is enabled (or it is
 * a workflow's request, which has none), `paused` otherwise.
 */
export const WAITING_STATE = `CASE WHEN d.request IS NOT NULL OR EXISTS (
    SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.active
  ) THEN 'pending' ELSE 'paused' END`;

/** The delivery records of a SQL store. */
export function sqlDeliveries(c: SqlContext): DeliveryStore {
  return {
    async get(workspaceId, id) {
      const row = await c.one(
        `SELECT ${cols(DELIVERY, "d")}, ${cols(EVENT, "e", "e_")}
         FROM deliveries d LEFT JOIN events e ON e.id = d.event_id
         WHERE d.workspace_id = $1 AND d.id = $2`,
        [workspaceId, id],
      );
      if (!row) return undefined;
      const delivery: DeliveryWithEvent = toDelivery(row);
      if (row.e_id !== null && row.e_id !== undefined) delivery.event = toEvent(unprefix(row, "e_"));
      return delivery;
    },
    async list(workspaceId, options = {}) {
      const limit = clampLimit(options.limit, 50, 100);
      const before = parseIdCursor(options.before, "dlv", "before");
      const params: unknown[] = [workspaceId];
      let where = "t.workspace_id = $1";
      const filter = (column: string, value: unknown, op = "="): void => {
        params.push(value);
        where += ` AND t.${column} ${op} $${params.length}`;
      };
      if (options.webhookId !== undefined) filter("webhook_id", options.webhookId);
      if (options.eventId !== undefined) filter("event_id", options.eventId);
      if (options.state !== undefined) filter("state", options.state);
      if (before !== undefined) filter("id", before, "<");
      params.push(limit + 1);
      const rows = await c.run(
        `SELECT ${cols(DELIVERY)} FROM deliveries t WHERE ${where} ORDER BY t.id DESC LIMIT $${params.length}`,
        params,
      );
      return pageOf(rows.map(toDelivery), limit, (row) => row.id);
    },
    async listAttempts(workspaceId, deliveryId) {
      const rows = await c.run(
        `SELECT ${cols(ATTEMPT)} FROM attempts t WHERE t.workspace_id = $1 AND t.delivery_id = $2 ORDER BY t.ord`,
        [workspaceId, deliveryId],
      );
      return rows.map(toAttempt);
    },
    async retry(workspaceId, id, now) {
      const params: unknown[] = [workspaceId, id, now];
      const rows = await c.run(
        `WITH retried AS (
           UPDATE deliveries d SET state = ${WAITING_STATE}, next_attempt_at = $3, updated_at = $3
           WHERE d.workspace_id = $1 AND d.id = $2 AND d.state <> 'delivering'
             AND (d.request IS NOT NULL OR (EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)
               AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)))
           RETURNING d.state
         ), c AS (SELECT count(*) AS n, count(*) FILTER (WHERE state = 'pending') AS due FROM retried)
         SELECT n, ${c.notifyDueWhen("due > 0", params)} AS noted FROM c`,
        params,
      );
      return countOf(rows) > 0;
    },
    async recover(workspaceId, webhookId, window, now) {
      const params: unknown[] = [workspaceId, webhookId, window.since, window.until ?? null, now];
      const rows = await c.run(
        `WITH recovered AS (
           UPDATE deliveries d SET state = ${WAITING_STATE}, next_attempt_at = $5, updated_at = $5
           WHERE d.workspace_id = $1 AND d.webhook_id = $2 AND d.state = 'failed'
             AND d.created_at >= $3 AND ($4::bigint IS NULL OR d.created_at < $4::bigint)
             AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = $2 AND w.workspace_id = $1)
             AND EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)
           RETURNING d.state
         ), c AS (SELECT count(*) AS n, count(*) FILTER (WHERE state = 'pending') AS due FROM recovered)
         SELECT n, ${c.notifyDueWhen("due > 0", params)} AS noted FROM c`,
        params,
      );
      return countOf(rows);
    },
    async purge(workspaceId, webhookId) {
      const rows = await c.run(
        `WITH gone AS (
           DELETE FROM deliveries
           WHERE workspace_id = $1 AND webhook_id = $2 AND state IN ('pending', 'paused') RETURNING id
         ), attempts_gone AS (
           DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM gone)
         )
         SELECT count(*) AS n FROM gone`,
        [workspaceId, webhookId],
      );
      return countOf(rows);
    },
    enqueue: (workspaceId, webhookId, events, now) => enqueueSql(c, workspaceId, webhookId, events, now),
    async metrics(workspaceId, webhookId, window) {
      const row = await c.one(
        `SELECT count(*) AS n,
           count(*) FILTER (WHERE a.status < 200) AS c1, count(*) FILTER (WHERE a.status BETWEEN 200 AND 299) AS c2,
           count(*) FILTER (WHERE a.status BETWEEN 300 AND 399) AS c3,
           count(*) FILTER (WHERE a.status BETWEEN 400 AND 499) AS c4,
           count(*) FILTER (WHERE a.status >= 500) AS c5, count(*) FILTER (WHERE a.status IS NULL) AS ce,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY a.duration_ms) AS p50,
           percentile_disc(0.95) WITHIN GROUP (ORDER BY a.duration_ms) AS p95,
           percentile_disc(0.99) WITHIN GROUP (ORDER BY a.duration_ms) AS p99
         FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE a.workspace_id = $1 AND d.webhook_id = $2 AND a.at >= $3 AND ($4::bigint IS NULL OR a.at < $4::bigint)`,
        [workspaceId, webhookId, window.since, window.until ?? null],
      );
      const n = (value: unknown) => Number(value ?? 0);
      const p = (value: unknown) => (value === null || value === undefined ? null : Number(value));
      const statusClasses = {
        "1xx": n(row?.c1),
        "2xx": n(row?.c2),
        "3xx": n(row?.c3),
        "4xx": n(row?.c4),
        "5xx": n(row?.c5),
        error: n(row?.ce),
      };
      return {
        attempts: n(row?.n),
        succeeded: statusClasses["2xx"],
        failed: n(row?.n) - statusClasses["2xx"],
        statusClasses,
        latencyMs: { p50: p(row?.p50), p95: p(row?.p95), p99: p(row?.p99) },
      };
    },
  };
}

/**
 * New deliveries of stored events to one webhook (`DeliveryStore.enqueue`), on `db` (a transaction)
 * when given: pending, or paused when the webhook is disabled; events of another workspace are left out.
 */
export async function enqueueSql(
  c: SqlContext,
  workspaceId: string,
  webhookId: string,
  events: readonly StoredEvent[],
  now: number,
  db?: SqlClient,
): Promise<Delivery[]> {
  c.open();
  if (events.length === 0) return [];
  // Built as pending; the statement makes each paused when the webhook is disabled.
  const rows = events.map((event) => newDelivery(event, { webhookId, active: true }, now));
  const params: unknown[] = [workspaceId, webhookId, now];
  const values = placeholders(rows.length, 2).replace(/\$(\d+)/g, (_, n) => `$${Number(n) + 3}`);
  params.push(...rows.flatMap((row) => [row.id, row.eventId]));
  const made = await c.run(
    `WITH made AS (
         INSERT INTO deliveries
           (id, workspace_id, webhook_id, event_id, emitter_id, channel, state, next_attempt_at, created_at, updated_at)
         SELECT v.id, $1, w.id, e.id, e.emitter_id, e.channel,
                CASE WHEN w.active THEN 'pending' ELSE 'paused' END, $3::bigint, $3::bigint, $3::bigint
         FROM (VALUES ${values}) AS v (id, event_id)
         JOIN events e ON e.id = v.event_id AND e.workspace_id = $1
         JOIN webhooks w ON w.id = $2 AND w.workspace_id = $1
         RETURNING id, state
       ), c AS (SELECT count(*) FILTER (WHERE state = 'pending') AS due FROM made)
       SELECT made.id, made.state, (SELECT ${c.notifyDueWhen("due > 0", params)} FROM c) AS noted FROM made`,
    params,
    undefined,
    db,
  );
  const states = new Map(made.map((row) => [String(row.id), String(row.state)]));
  return rows
    .filter((row) => states.has(row.id))
    .map((row): Delivery => ({ ...row, state: states.get(row.id) as Delivery["state"] }));
}
