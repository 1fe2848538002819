/** Workflows in SQL: their records, and what deleting one takes with it. */
import { StoreError, type WorkflowStore } from "@hookline/store";
import { clampLimit, compareText, newWorkflow, pageOf, parseIdCursor } from "@hookline/store/adapter";
import { cols, toJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { cancelDeliveriesSql, countOf, patcher } from "./statement-text.js";
import { limitParams, toWorkflow, WORKFLOW } from "./workflow-rows.js";

const taken = (endpointId: string): StoreError =>
  new StoreError("conflict", `Endpoint ${endpointId} is taken`);

/** The workflows of a SQL store. */
export function sqlWorkflows(c: SqlContext): WorkflowStore {
  const get: WorkflowStore["get"] = async (workspaceId, id) => {
    const row = await c.one(
      `SELECT ${cols(WORKFLOW)} FROM workflows t WHERE t.workspace_id = $1 AND t.id = $2`,
      [workspaceId, id],
    );
    return row && toWorkflow(row);
  };
  return {
    async create(input) {
      const row = newWorkflow(input, c.clock());
      // An endpoint is unique across workflows (the unique index) and deployed components (the
      // NOT EXISTS: nothing is inserted when a source has it).
      const inserted = await c.run(
        `INSERT INTO workflows (id, workspace_id, name, trigger, steps, active, endpoint_id, source_id,
           created_at, updated_at, settings, max_running, throttle_limit, throttle_interval_ms, queue_size)
         SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::boolean, $7::text, $8::text, $9::bigint, $9::bigint, $10::text,
           $11::integer, $12::integer, $13::bigint, $14::integer
         WHERE $7::text IS NULL OR NOT EXISTS (SELECT 1 FROM deployed_components d WHERE d.endpoint_id = $7::text)
         RETURNING id`,
        [
          row.id,
          row.workspaceId,
          row.name,
          toJson(row.trigger, "trigger"),
          toJson(row.steps, "steps"),
          row.active,
          row.endpointId ?? null,
          row.sourceId ?? null,
          row.createdAt,
          row.settings === undefined ? null : toJson(row.settings, "settings"),
          ...limitParams(row.limits),
        ],
        `Workflow ${row.id} exists or endpoint ${row.endpointId ?? ""} is taken`,
      );
      if (inserted.length === 0) throw taken(row.endpointId as string);
      return row;
    },
    get,
    async getByEndpoint(endpointId) {
      const row = await c.one(`SELECT ${cols(WORKFLOW)} FROM workflows t WHERE t.endpoint_id = $1`, [
        endpointId,
      ]);
      return row && toWorkflow(row);
    },
    async list(workspaceId, options = {}) {
      const limit = clampLimit(options.limit, 50, 100);
      const before = parseIdCursor(options.before, "p", "before");
      const rows = await c.run(
        `SELECT ${cols(WORKFLOW)} FROM workflows t
         WHERE t.workspace_id = $1 AND ($2::text IS NULL OR t.id < $2::text)
         ORDER BY t.id DESC LIMIT $3`,
        [workspaceId, before ?? null, limit + 1],
      );
      return pageOf(rows.map(toWorkflow), limit, (row) => row.id);
    },
    async listBySource(workspaceId, sourceId) {
      const rows = await c.run(
        `SELECT ${cols(WORKFLOW)} FROM workflows t
         WHERE t.workspace_id = $1 AND t.source_id = $2 AND t.active`,
        [workspaceId, sourceId],
      );
      return rows.map(toWorkflow).sort((a, b) => compareText(a.id, b.id));
    },
    async update(workspaceId, id, patch) {
      const params: unknown[] = [workspaceId, id, c.clock()];
      const { sets, set } = patcher(params);
      if (patch.name !== undefined) set("name", patch.name);
      if (patch.trigger !== undefined) set("trigger", toJson(patch.trigger, "trigger"));
      if (patch.steps !== undefined) set("steps", toJson(patch.steps, "steps"));
      if (patch.active !== undefined) set("active", patch.active);
      if (patch.endpointId !== undefined) set("endpoint_id", patch.endpointId, "::text");
      if (patch.sourceId !== undefined) set("source_id", patch.sourceId, "::text");
      if (patch.settings !== undefined)
        set("settings", patch.settings === null ? null : toJson(patch.settings, "settings"), "::text");
      if (patch.limits !== undefined) {
        const [maxRunning, throttleLimit, throttleIntervalMs, queueSize] = limitParams(patch.limits);
        set("max_running", maxRunning, "::integer");
        set("throttle_limit", throttleLimit, "::integer");
        set("throttle_interval_ms", throttleIntervalMs, "::bigint");
        set("queue_size", queueSize, "::integer");
      }
      sets.push("updated_at = $3");
      let guard = "";
      if (typeof patch.endpointId === "string") {
        params.push(patch.endpointId);
        guard = ` AND NOT EXISTS (SELECT 1 FROM deployed_components d WHERE d.endpoint_id = $${params.length}::text)`;
      }
      const rows = await c.run(
        `UPDATE workflows t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2${guard}
         RETURNING ${cols(WORKFLOW)}`,
        params,
        `Endpoint ${patch.endpointId ?? ""} is taken`,
      );
      const row = rows[0];
      if (row) return toWorkflow(row);
      if (guard && (await get(workspaceId, id))) throw taken(patch.endpointId as string);
      return undefined;
    },
    async delete(workspaceId, id) {
      // One statement: the workflow, its executions (by the foreign key's cascade), its timer, its logs and the
      // subscriptions where it is the emitter or the listener go together, and its unfinished
      // `$.send.http` requests fail (`workflow_deleted`) instead of retrying for days.
      const rows = await c.run(
        `WITH w AS (
           DELETE FROM workflows WHERE workspace_id = $1 AND id = $2 RETURNING id
         ), tm AS (
           DELETE FROM timers WHERE component_id IN (SELECT id FROM w)
         ), lg AS (
           DELETE FROM logs WHERE component_id IN (SELECT id FROM w)
         ), sb AS (
           DELETE FROM subscriptions WHERE workspace_id = $1
             AND (emitter_id IN (SELECT id FROM w) OR listener_id IN (SELECT id FROM w))
         ), rq AS (${cancelDeliveriesSql(
           "workflow_deleted",
           "$3",
           "workspace_id = $1 AND request IS NOT NULL AND webhook_id IN (SELECT id FROM w)",
         )})
         SELECT count(*) AS n FROM w`,
        [workspaceId, id, c.clock()],
      );
      return countOf(rows) > 0;
    },
  };
}
