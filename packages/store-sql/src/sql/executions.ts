/**
 * Executions in SQL: one row per execution and one per step record (`execution_steps`), so that
 * recording a step is one statement on one small row, and reading an execution with its steps is
 * one round trip. The execution side of the Queue claims queued rows with `FOR UPDATE SKIP LOCKED`.
 */
import type { ExecutionQueue, ExecutionStore } from "@hookline/store";
import { StoreError } from "@hookline/store";
import { clampLimit, isFinalStatus, newExecution, pageOf, parseIdCursor } from "@hookline/store/adapter";
import { chunkRows, patcher, placeholders, type SqlContext } from "./context.js";
import { cols, toJson } from "./rows.js";
import { EXECUTION, STEPS_OF, toExecution } from "./workflow-rows.js";

const SELECT_EXECUTION = `SELECT ${cols(EXECUTION, "e")}, ${STEPS_OF("e")} FROM executions e`;

/** The executions of a SQL store. */
export function sqlExecutions(c: SqlContext): ExecutionStore {
  return {
    async create(input) {
      const row = newExecution(input, c.clock());
      const steps = row.steps.map((step, i) => toJson(step, `steps[${i}]`) as string);
      const params: unknown[] = [
        row.id,
        row.workspaceId,
        row.workflowId,
        row.status,
        row.trigger,
        toJson(row.event, "event"),
        toJson(row.context, "context"),
        row.startedAt ?? null,
        row.leaseOwner ?? null,
        row.leaseExpiresAt ?? null,
        row.createdAt,
      ];
      // The execution and its step records in one statement, only when the workflow is the
      // workspace's (nothing is inserted otherwise).
      let stepsSql = "";
      if (steps.length > 0 && steps.length <= chunkRows(3)) {
        const base = params.length;
        params.push(...steps.flatMap((record, i) => [row.id, i, record]));
        const values = placeholders(steps.length, 3, ["::text", "::integer", "::text"]).replace(
          /\$(\d+)/g,
          (_, n: string) => `$${Number(n) + base}`,
        );
        stepsSql = `, s AS (
           INSERT INTO execution_steps (execution_id, idx, record)
           SELECT v.execution_id, v.idx, v.record FROM (VALUES ${values}) AS v (execution_id, idx, record)
           WHERE EXISTS (SELECT 1 FROM x)
         )`;
      }
      const inserted = await c.run(
        `WITH x AS (
           INSERT INTO executions (id, workspace_id, workflow_id, status, trigger, event, context, started_at,
             lease_owner, lease_expires_at, created_at, updated_at)
           SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::text,
             $10::bigint, $11::bigint, $11::bigint
           WHERE EXISTS (SELECT 1 FROM workflows w WHERE w.id = $3::text AND w.workspace_id = $2::text)
           RETURNING id
         )${stepsSql}
         SELECT id FROM x`,
        params,
        `Execution ${row.id} exists`,
      );
      if (inserted.length === 0) {
        throw new StoreError("not_found", `No workflow ${row.workflowId} in this workspace`, "workflowId");
      }
      if (steps.length > chunkRows(3)) {
        // More steps than one statement holds (thousands): the rest, in chunks.
        for (let start = 0; start < steps.length; start += chunkRows(3)) {
          const part = steps.slice(start, start + chunkRows(3));
          await c.run(
            `INSERT INTO execution_steps (execution_id, idx, record) VALUES ${placeholders(part.length, 3)}`,
            part.flatMap((record, i) => [row.id, start + i, record]),
          );
        }
      }
      return row;
    },
    async get(workspaceId, id) {
      const row = await c.one(`${SELECT_EXECUTION} WHERE e.workspace_id = $1 AND e.id = $2`, [
        workspaceId,
        id,
      ]);
      return row && toExecution(row);
    },
    async list(workspaceId, workflowId, options = {}) {
      const limit = clampLimit(options.limit, 50, 100);
      const before = parseIdCursor(options.before, "exe", "before");
      const rows = await c.run(
        `${SELECT_EXECUTION}
         WHERE e.workspace_id = $1 AND e.workflow_id = $2 AND ($3::text IS NULL OR e.id < $3::text)
           AND ($4::text IS NULL OR e.status = $4::text)
         ORDER BY e.id DESC LIMIT $5`,
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
      if (patch.status !== undefined && (isFinalStatus(patch.status) || patch.status === "queued")) {
        sets.push("lease_owner = NULL", "lease_expires_at = NULL");
      }
      sets.push("updated_at = $3");
      const rows = await c.run(
        `WITH e AS (
           UPDATE executions t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2 RETURNING t.*
         ) SELECT ${cols(EXECUTION, "e")}, ${STEPS_OF("e")} FROM e`,
        params,
      );
      const row = rows[0];
      return row && toExecution(row);
    },
    async putStep(workspaceId, id, index, step) {
      if (!Number.isInteger(index) || index < 0) return false;
      // One statement: the step's record, and the execution's updated_at.
      const rows = await c.run(
        `WITH s AS (
           UPDATE execution_steps SET record = $4
           WHERE execution_id = $2 AND idx = $3
             AND EXISTS (SELECT 1 FROM executions x WHERE x.id = $2 AND x.workspace_id = $1)
           RETURNING execution_id
         ) UPDATE executions SET updated_at = $5 WHERE id IN (SELECT execution_id FROM s) RETURNING id`,
        [workspaceId, id, index, toJson(step, "step"), c.clock()],
      );
      return rows.length > 0;
    },
  };
}

/** The execution side of a SQL store's queue. */
export function sqlExecutionQueue(c: SqlContext): ExecutionQueue {
  return {
    async claim({ owner, now, leaseMs, limit }) {
      const max = Math.max(0, Math.floor(limit));
      if (max === 0) {
        c.open();
        return [];
      }
      const rows = await c.run(
        `WITH e AS (
           UPDATE executions t SET status = 'running', lease_owner = $2, lease_expires_at = $3,
             started_at = coalesce(t.started_at, $1), updated_at = $1
           FROM (
             SELECT id FROM executions WHERE status = 'queued' ORDER BY ord LIMIT $4 FOR UPDATE SKIP LOCKED
           ) q
           WHERE t.id = q.id AND t.status = 'queued'
           RETURNING t.*
         ) SELECT ${cols(EXECUTION, "e")}, ${STEPS_OF("e")} FROM e`,
        [now, owner, now + leaseMs, max],
      );
      return rows.sort((a, b) => Number(a.ord) - Number(b.ord)).map(toExecution);
    },
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
