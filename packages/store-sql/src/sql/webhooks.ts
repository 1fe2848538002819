/** Webhooks in SQL, and what enabling, disabling and deleting one does to its deliveries. */
import type { WebhookStore } from "@hookline/store";
import { newWebhook } from "@hookline/store/adapter";
import { cols, toJson, toWebhook, WEBHOOK } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { cancelDeliveriesSql, countOf, patcher } from "./statement-text.js";

/** The webhooks of a SQL store. */
export function sqlWebhooks(c: SqlContext): WebhookStore {
  return {
    async create(input) {
      const row = newWebhook(input, c.clock());
      await c.run(
        `INSERT INTO webhooks (id, workspace_id, url, name, description, active, secrets, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          row.id,
          row.workspaceId,
          row.url,
          row.name ?? null,
          row.description ?? null,
          row.active,
          toJson(row.secrets, "secrets"),
          row.createdAt,
          row.updatedAt,
        ],
      );
      return structuredClone(row);
    },
    async get(workspaceId, id) {
      const row = await c.one(
        `SELECT ${cols(WEBHOOK)} FROM webhooks t WHERE t.workspace_id = $1 AND t.id = $2`,
        [workspaceId, id],
      );
      return row && toWebhook(row);
    },
    async list(workspaceId) {
      const rows = await c.run(
        `SELECT ${cols(WEBHOOK)} FROM webhooks t WHERE t.workspace_id = $1 ORDER BY t.ord`,
        [workspaceId],
      );
      return rows.map(toWebhook);
    },
    async update(workspaceId, id, patch) {
      c.targets.clear(); // the emits' cached subscriptions (emits.ts)
      const now = c.clock();
      const params: unknown[] = [workspaceId, id, now];
      const { sets, set } = patcher(params);
      if (patch.url !== undefined) set("url", patch.url);
      if (patch.active !== undefined) set("active", patch.active);
      if (patch.secrets !== undefined) set("secrets", toJson(patch.secrets, "secrets"));
      if (patch.name !== undefined) set("name", patch.name);
      if (patch.description !== undefined) set("description", patch.description);
      if (patch.disabledReason !== undefined) set("disabled_reason", patch.disabledReason);
      if (patch.failingSince !== undefined) set("failing_since", patch.failingSince, "::bigint");
      sets.push("updated_at = $3");
      const update = `UPDATE webhooks t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2
         RETURNING ${cols(WEBHOOK)}`;
      if (patch.active === undefined) {
        const row = (await c.run(update, params))[0];
        return row && toWebhook(row);
      }
      // One statement, so atomic: the webhook, and its waiting deliveries paused or resumed (due now).
      const [from, to] = patch.active ? ["paused", "pending"] : ["pending", "paused"];
      const rows = await c.run(
        `WITH hook AS (${update}), moved AS (
           UPDATE deliveries SET state = '${to}', updated_at = $3,
             next_attempt_at = CASE WHEN '${to}' = 'pending' THEN $3 ELSE next_attempt_at END
           WHERE webhook_id IN (SELECT id FROM hook) AND state = '${from}' RETURNING 1
         ), n AS (SELECT count(*) AS n FROM moved)
         SELECT hook.*, ${c.notifyDueWhen(`n.n > 0 AND '${to}' = 'pending'`, params)} AS noted FROM hook, n`,
        params,
      );
      const row = rows[0];
      return row && toWebhook(row);
    },
    async delete(workspaceId, id) {
      c.targets.clear(); // the emits' cached subscriptions (emits.ts)
      // One statement, so atomic: the webhook, its subscriptions, and its unfinished deliveries fail.
      const rows = await c.run(
        `WITH gone AS (
           DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2 RETURNING id
         ), subs_gone AS (
           DELETE FROM subscriptions WHERE listener_id IN (SELECT id FROM gone)
         ), cancelled AS (${cancelDeliveriesSql("webhook_deleted", "$3", "webhook_id IN (SELECT id FROM gone)")})
         SELECT count(*) AS n FROM gone`,
        [workspaceId, id, c.clock()],
      );
      return countOf(rows) > 0;
    },
  };
}
