/** Subscriptions in SQL. */
import { channelName, DEFAULT_CHANNEL } from "@hookline/core";
import { StoreError, type SubscriptionStore } from "@hookline/store";
import { newSubscription } from "@hookline/store/adapter";
import { cols, SUBSCRIPTION, toJson, toSubscription } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { countOf } from "./statement-text.js";

/** The subscriptions of a SQL store. */
export function sqlSubscriptions(c: SqlContext): SubscriptionStore {
  return {
    async create(input) {
      c.targets.clear(); // the emits' cached subscriptions (emits.ts)
      const row = newSubscription(input, c.clock());
      const inserted = await c.run(
        `INSERT INTO subscriptions (id, workspace_id, emitter_id, listener_id, event_name, filter, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING id`,
        [
          row.id,
          row.workspaceId,
          row.emitterId,
          row.listenerId,
          row.eventName,
          toJson(row.filter, "filter"),
          row.createdAt,
        ],
      );
      if (inserted.length > 0) return { ...row, created: true };
      const existing = await c.one(
        `SELECT ${cols(SUBSCRIPTION)} FROM subscriptions t
         WHERE t.workspace_id = $1 AND t.emitter_id = $2 AND t.listener_id = $3
           AND coalesce(t.event_name, '${DEFAULT_CHANNEL}') = $4`,
        [row.workspaceId, row.emitterId, row.listenerId, channelName(row.eventName)],
      );
      if (!existing) throw new StoreError("conflict", "The subscription changed concurrently; retry");
      return { ...toSubscription(existing), created: false };
    },
    async list(workspaceId, filter = {}) {
      const params: unknown[] = [workspaceId];
      let where = "t.workspace_id = $1";
      if (filter.emitterId !== undefined) {
        params.push(filter.emitterId);
        where += ` AND t.emitter_id = $${params.length}`;
      }
      if (filter.listenerId !== undefined) {
        params.push(filter.listenerId);
        where += ` AND t.listener_id = $${params.length}`;
      }
      const rows = await c.run(
        `SELECT ${cols(SUBSCRIPTION)} FROM subscriptions t WHERE ${where} ORDER BY t.ord`,
        params,
      );
      return rows.map(toSubscription);
    },
    async delete(workspaceId, match) {
      c.targets.clear(); // the emits' cached subscriptions (emits.ts)
      const params: unknown[] = [workspaceId, match.emitterId, match.listenerId];
      let where = "workspace_id = $1 AND emitter_id = $2 AND listener_id = $3";
      if (match.eventName !== undefined) {
        params.push(channelName(match.eventName));
        where += ` AND coalesce(event_name, '${DEFAULT_CHANNEL}') = $4`;
      }
      const rows = await c.run(
        `WITH gone AS (DELETE FROM subscriptions WHERE ${where} RETURNING 1) SELECT count(*) AS n FROM gone`,
        params,
      );
      return countOf(rows);
    },
  };
}
