/**
 * The claim of the execution queue in SQL: due executions (`queued`, or `delayed`/`suspended` at
 * their `run_at`) leased to a node with `FOR UPDATE SKIP LOCKED`. The executions of workflows
 * without limits go in one statement; those of workflows with limits (`max_running`,
 * `throttle_limit`) in a second one, set-based (each workflow's earliest rows up to its free
 * slots), serialized by an advisory lock so that two claimers never both see the same free slot.
 */
import type { ClaimExecutionsOptions, Execution } from "@hookline/store";
import type { SqlClient } from "../clients.js";
import { cols } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { EXECUTION, STEPS_OF, toExecution } from "./workflow-rows.js";

/** The columns an execution is read with (`t` the executions table). @internal */
export const RETURNED = `${cols(EXECUTION)}, ${STEPS_OF("t")}`;

/** The advisory lock key serializing the claims of limited workflows' executions. */
const LIMITED_CLAIM_LOCK_KEY = 7_461_203_320;

/** Whether execution `e` is due at $1. */
const DUE = `e.status IN ('queued', 'delayed', 'suspended') AND coalesce(e.run_at, 0) <= $1
  AND (e.status = 'queued' OR e.run_at IS NOT NULL)`;

/** Whether workflow `w` has limits. */
const LIMITED = "(w.max_running IS NOT NULL OR w.throttle_limit IS NOT NULL)";

/** Leases the rows `picked` selects: $1 now, $2 owner, $3 lease expiry, $4 most rows. */
const lease = (picked: string): string => `
  UPDATE executions t SET status = 'running', lease_owner = $2, lease_expires_at = $3,
    started_at = coalesce(t.started_at, $1), updated_at = $1, run_at = NULL
  FROM (${picked}) q
  WHERE t.id = q.id AND t.status IN ('queued', 'delayed', 'suspended')
  RETURNING ${RETURNED}`;

/**
 * The unlimited workflows' rows, and whether any workflow has limits (`any_limited`, on every row,
 * one row with a NULL id when nothing was claimed): only then does the second claim run.
 */
const CLAIM_UNLIMITED = `
  WITH claimed AS (${lease(`
    SELECT e.id FROM executions e
    WHERE ${DUE} AND NOT EXISTS (SELECT 1 FROM workflows w WHERE w.id = e.workflow_id AND ${LIMITED})
    ORDER BY coalesce(e.run_at, 0), e.id LIMIT $4 FOR UPDATE OF e SKIP LOCKED`)}
  ), flag AS (SELECT EXISTS (SELECT 1 FROM workflows w WHERE ${LIMITED}) AS any_limited)
  SELECT claimed.*, flag.any_limited FROM flag LEFT JOIN claimed ON true`;

/**
 * A limited workflow's due rows ranked: `rn` among its due rows, `fn` among its first starts. A row
 * is allowed while `rn` fits the running slots left and, for a first start, `fn` fits the starts
 * left in the throttle window.
 */
const CLAIM_LIMITED = lease(`
  WITH due AS (
    SELECT e.id, e.workflow_id, coalesce(e.run_at, 0) AS due_at, e.started_at IS NULL AS first
    FROM executions e JOIN workflows w ON w.id = e.workflow_id
    WHERE ${DUE} AND ${LIMITED}
    ORDER BY coalesce(e.run_at, 0), e.id LIMIT 1000
  ), ranked AS (
    SELECT d.*,
      row_number() OVER (PARTITION BY d.workflow_id ORDER BY d.due_at, d.id) AS rn,
      count(*) FILTER (WHERE d.first) OVER (PARTITION BY d.workflow_id ORDER BY d.due_at, d.id) AS fn
    FROM due d
  ), allowed AS (
    SELECT r.id, r.due_at FROM ranked r JOIN workflows w ON w.id = r.workflow_id
    WHERE (w.max_running IS NULL OR r.rn <= w.max_running - (
        SELECT count(*) FROM executions x
        WHERE x.workflow_id = r.workflow_id AND x.status = 'running' AND x.lease_expires_at > $1))
      AND (w.throttle_limit IS NULL OR NOT r.first OR r.fn <= w.throttle_limit - (
        SELECT count(*) FROM executions x
        WHERE x.workflow_id = r.workflow_id AND x.started_at > $1 - coalesce(w.throttle_interval_ms, 0)))
    ORDER BY r.due_at, r.id LIMIT $4
  )
  SELECT e.id FROM executions e
  WHERE e.id IN (SELECT id FROM allowed) AND ${DUE}
  FOR UPDATE SKIP LOCKED`);

/** Leases due executions to `owner` (see `ExecutionQueue.claim`). @internal */
export async function claimExecutions(
  c: SqlContext,
  { owner, now, leaseMs, limit }: ClaimExecutionsOptions,
): Promise<Execution[]> {
  const max = Math.max(0, Math.floor(limit));
  if (max === 0) {
    c.open();
    return [];
  }
  const params = [now, owner, now + leaseMs, max];
  const got = await c.run(CLAIM_UNLIMITED, params);
  const rows = got.filter((row) => row.id != null);
  const anyLimited = got.some((row) => row.any_limited === true || row.any_limited === "t");
  if (rows.length < max && anyLimited) {
    const more = await c.transaction(async (tx: SqlClient) => {
      await c.run(`SELECT pg_advisory_xact_lock(${LIMITED_CLAIM_LOCK_KEY})`, [], undefined, tx);
      return c.run(CLAIM_LIMITED, [now, owner, now + leaseMs, max - rows.length], undefined, tx);
    });
    rows.push(...more);
  }
  return rows.map(toExecution).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
