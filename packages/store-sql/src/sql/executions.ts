/**
 * Executions in SQL: one row per execution, its step records an array of JSON texts, so that
 * starting an execution is one INSERT, recording a step one UPDATE of one array element, and
 * reading an execution one row. The execution side of the Queue claims queued rows with
 * `FOR UPDATE SKIP LOCKED`.
 */
import { type ExecutionQueue, type ExecutionStore, StoreError } from "@hookline/store";
import { clampLimit, newExecution, pageOf, parseIdCursor } from "@hookline/store/adapter";
import { claimExecutions, RETURNED } from "./execution-claim.js";
import { toJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { patcher } from "./statement-text.js";
import { toExecution } from "./workflow-rows.js";

/** The executions of a SQL store. */
export function sqlExecutions(c: SqlContext): ExecutionStore {
  return {
    async create(input) {
      const row = newExecution(input, c.clock());
      const steps = row.steps.map((step, i) => toJson(step, `steps[${i}]`) as string);
      // The foreign key refuses an execution whose workflow is not the workspace's.
      try {
        await c.run(
          `INSERT INTO executions (id, workspace_id, workflow_id, status, trigger, event, context, steps,
             started_at, lease_owner, lease_expires_at, created_at, updated_at, run_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)`,
          [
            row.id,
            row.workspaceId,
            row.workflowId,
            row.status,
            row.trigger,
            toJson(row.event, "event"),
            toJson(row.context, "context"),
            steps,
            row.startedAt ?? null,
            row.leaseOwner ?? null,
            row.leaseExpiresAt ?? null,
            row.createdAt,
            row.runAt ?? null,
          ],
          `Execution ${row.id} exists`,
        );
      } catch (error) {
        if ((error as { code?: unknown }).code === "23503") {
          throw new StoreError("not_found", `No workflow ${row.workflowId} in this workspace`, "workflowId");
        }
        throw error;
      }
      return row;
    },
    async get(workspaceId, id) {
      const row = await c.one(
        `SELECT ${RETURNED} FROM executions t WHERE t.workspace_id = $1 AND t.id = $2`,
        [workspaceId, id],
      );
      return row && toExecution(row);
    },
    async list(workspaceId, workflowId, options = {}) {
      const limit = clampLimit(options.limit, 50, 100);
      const before = parseIdCursor(options.before, "exe", "before");
      const rows = await c.run(
        `SELECT ${RETURNED} FROM executions t
         WHERE t.workspace_id = $1 AND t.workflow_id = $2 AND ($3::text IS NULL OR t.id < $3::text)
           AND ($4::text IS NULL OR t.status = $4::text)
         ORDER BY t.id DESC LIMIT $5`,
        [workspaceId, workflowId, before ?? null, options.status ?? null, limit + 1],
      );
      return pageOf(rows.map(toExecution), limit, (row) => row.id);
    },
    async update(workspaceId, id, patch) {
      const params: unknown[] = [workspaceId, id, c.clock()];
      const { sets, set } = patcher(params);
      if (patch.status !== undefined) set("status", patch.status);
      if (patch.exitReason !== undefined) set("exit_reason", patch.exitReason);
      if (patch.error !== undefined) set("error", toJson(patch.error, "error"));
      if (patch.startedAt !== undefined) set("started_at", patch.startedAt, "::bigint");
      if (patch.finishedAt !== undefined) set("finished_at", patch.finishedAt, "::bigint");
      if (patch.leaseExpiresAt !== undefined) set("lease_expires_at", patch.leaseExpiresAt, "::bigint");
      if (patch.runAt !== undefined) set("run_at", patch.runAt, "::bigint");
      if (patch.tokens !== undefined) {
        set("resume_hash", patch.tokens?.resume ?? null, "::text");
        set("cancel_hash", patch.tokens?.cancel ?? null, "::text");
      }
      if (patch.clearResumeData) sets.push("resume_data = NULL");
      const guard = patch.ifNoResumeData ? " AND t.resume_data IS NULL" : "";
      if (patch.steps !== undefined) {
        set(
          "steps",
          patch.steps.map((step, i) => toJson(step, `steps[${i}]`) as string),
          "::text[]",
        );
      }
      if (patch.status !== undefined && patch.status !== "running") {
        sets.push("lease_owner = NULL", "lease_expires_at = NULL");
      }
      sets.push("updated_at = $3");
      const rows = await c.run(
        `UPDATE executions t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2${guard} RETURNING ${RETURNED}`,
        params,
      );
      const row = rows[0];
      return row && toExecution(row);
    },
    async useToken(id, kind, hash, now, data) {
      // One statement: the token matches and both go, or nothing changes (single use).
      const resume = kind === "resume";
      // A resume of a running execution (its step has not ended) stores the data, status unchanged.
      const rows = await c.run(
        `UPDATE executions t SET
           ${
             resume
               ? `status = CASE WHEN t.status = 'running' THEN 'running' ELSE 'queued' END,
                  run_at = CASE WHEN t.status = 'running' THEN t.run_at ELSE $3::bigint END,
                  resume_data = $4::text`
               : "status = 'exited', run_at = NULL, exit_reason = 'cancelled', finished_at = $3::bigint"
           },
           resume_hash = NULL, cancel_hash = NULL, updated_at = $3::bigint
         WHERE t.id = $1 AND t.status IN ('delayed', 'suspended'${resume ? ", 'running'" : ""})
           AND t.${resume ? "resume_hash" : "cancel_hash"} = $2
         RETURNING ${RETURNED}`,
        resume ? [id, hash, now, toJson(data ?? null, "data")] : [id, hash, now],
      );
      const row = rows[0];
      return row && toExecution(row);
    },
    async countQueued(workflowId) {
      const rows = await c.run(
        "SELECT count(*) AS n FROM executions WHERE workflow_id = $1 AND status = 'queued'",
        [workflowId],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async trim(workflowId, keep) {
      // The newest `keep` stay whatever their status; older ones go once they ended.
      const rows = await c.run(
        `WITH gone AS (
           DELETE FROM executions WHERE id IN (
             SELECT id FROM executions WHERE workflow_id = $1 ORDER BY id DESC OFFSET $2
           ) AND status IN ('succeeded', 'failed', 'exited') RETURNING 1
         ) SELECT count(*) AS n FROM gone`,
        [workflowId, Math.max(0, Math.floor(keep))],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async putSteps(workspaceId, id, steps, tokens) {
      if (steps.some((e) => !Number.isInteger(e.index) || e.index < 0)) return false;
      if (steps.length === 0)
        return (
          (await c.one("SELECT 1 FROM executions WHERE workspace_id = $1 AND id = $2", [workspaceId, id])) !==
          undefined
        );
      // One statement on one row: each element (1-based in SQL), then updated_at.
      const params: unknown[] = [workspaceId, id, c.clock(), Math.max(...steps.map((e) => e.index)) + 1];
      const sets = steps.map(({ index, step }) => {
        params.push(index + 1, toJson(step, `steps[${index}]`));
        return `steps[$${params.length - 1}::integer] = $${params.length}::text`;
      });
      if (tokens) {
        params.push(tokens.resume, tokens.cancel);
        sets.push(
          `resume_hash = $${params.length - 1}::text`,
          `cancel_hash = $${params.length}::text`,
          "resume_data = NULL",
        );
      }
      const rows = await c.run(
        `UPDATE executions SET ${sets.join(", ")}, updated_at = $3::bigint
         WHERE workspace_id = $1 AND id = $2 AND $4::integer <= cardinality(steps) RETURNING id`,
        params,
      );
      return rows.length > 0;
    },
    async putStep(workspaceId, id, index, step) {
      if (!Number.isInteger(index) || index < 0) return false;
      // One statement on one row: the step's element (1-based in SQL) and updated_at.
      const rows = await c.run(
        `UPDATE executions SET steps[$3::integer] = $4::text, updated_at = $5::bigint
         WHERE workspace_id = $1 AND id = $2 AND $3::integer <= cardinality(steps) RETURNING id`,
        [workspaceId, id, index + 1, toJson(step, "step"), c.clock()],
      );
      return rows.length > 0;
    },
  };
}

/** The execution side of a SQL store's queue. */
export function sqlExecutionQueue(c: SqlContext): ExecutionQueue {
  return {
    claim: (options) => claimExecutions(c, options),
    async sweep(now) {
      const rows = await c.run(
        `WITH swept AS (
           UPDATE executions SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, updated_at = $1
           WHERE status = 'running' AND lease_expires_at <= $1 RETURNING 1
         ) SELECT count(*) AS n FROM swept`,
        [now],
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}
