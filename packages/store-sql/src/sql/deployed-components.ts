/** Deployed components in SQL. */
import type { DeployedComponentStore } from "@hookline/store";
import { newDeployedComponent } from "@hookline/store/adapter";
import { cols, DEPLOYED, toDeployed, toJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { countOf, patcher } from "./statement-text.js";

/** The deployed components of a SQL store. */
export function sqlDeployedComponents(c: SqlContext): DeployedComponentStore {
  const byColumn = async (where: string, params: unknown[]) => {
    const row = await c.one(`SELECT ${cols(DEPLOYED)} FROM deployed_components t WHERE ${where}`, params);
    return row && toDeployed(row);
  };
  return {
    async create(input) {
      const row = newDeployedComponent(input, c.clock());
      await c.run(
        `INSERT INTO deployed_components
           (id, workspace_id, saved_component_id, name, slug, props, active, endpoint_id, custom_response,
            meta, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          row.id,
          row.workspaceId,
          row.savedComponentId,
          row.name,
          row.slug,
          toJson(row.props, "props"),
          row.active,
          row.endpointId ?? null,
          row.customResponse ?? null,
          toJson(row.meta, "meta"),
          row.createdAt,
          row.updatedAt,
        ],
        `Deployed component ${row.id}, slug ${input.slug} or endpoint ${input.endpointId} is taken`,
      );
      return structuredClone(row);
    },
    get: (workspaceId, id) => byColumn("t.workspace_id = $1 AND t.id = $2", [workspaceId, id]),
    getBySlug: (workspaceId, slug) => byColumn("t.workspace_id = $1 AND t.slug = $2", [workspaceId, slug]),
    getByEndpoint: (endpointId) => byColumn("t.endpoint_id = $1", [endpointId]),
    async list(workspaceId) {
      const rows = await c.run(
        `SELECT ${cols(DEPLOYED)} FROM deployed_components t WHERE t.workspace_id = $1 ORDER BY t.ord`,
        [workspaceId],
      );
      return rows.map(toDeployed);
    },
    async update(workspaceId, id, patch) {
      const params: unknown[] = [workspaceId, id];
      const { sets, set } = patcher(params);
      if (patch.savedComponentId !== undefined) set("saved_component_id", patch.savedComponentId);
      if (patch.name !== undefined) set("name", patch.name);
      if (patch.slug !== undefined) set("slug", patch.slug);
      if (patch.props !== undefined) set("props", toJson(patch.props, "props"));
      if (patch.active !== undefined) set("active", patch.active);
      if (patch.customResponse !== undefined) set("custom_response", patch.customResponse);
      if (patch.endpointId !== undefined) set("endpoint_id", patch.endpointId);
      if (patch.meta !== undefined) set("meta", patch.meta === null ? null : toJson(patch.meta, "meta"));
      set("updated_at", c.clock());
      const rows = await c.run(
        `UPDATE deployed_components t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2
         RETURNING ${cols(DEPLOYED)}`,
        params,
        `Slug ${patch.slug} or endpoint ${patch.endpointId} is taken`,
      );
      const row = rows[0];
      return row && toDeployed(row);
    },
    async delete(workspaceId, id) {
      // One statement, so atomic: the component and everything it owns.
      const rows = await c.run(
        `WITH gone AS (
           DELETE FROM deployed_components WHERE workspace_id = $1 AND id = $2 RETURNING id
         ), kv_gone AS (
           DELETE FROM kv WHERE component_id IN (SELECT id FROM gone)
         ), kv_version_gone AS (
           DELETE FROM kv_versions WHERE component_id IN (SELECT id FROM gone)
         ), dedupe_gone AS (
           DELETE FROM dedupe WHERE component_id IN (SELECT id FROM gone)
         ), timer_gone AS (
           DELETE FROM timers WHERE component_id IN (SELECT id FROM gone)
         ), logs_gone AS (
           DELETE FROM logs WHERE component_id IN (SELECT id FROM gone)
         ), subs_gone AS (
           DELETE FROM subscriptions
           WHERE emitter_id IN (SELECT id FROM gone) OR listener_id IN (SELECT id FROM gone)
         )
         SELECT count(*) AS n FROM gone`,
        [workspaceId, id],
      );
      return countOf(rows) > 0;
    },
  };
}
