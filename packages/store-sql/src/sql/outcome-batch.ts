/**
 * The set-based write of a group commit's delivery outcomes: each `complete` and `recordAttempt` of
 * the group adds its row to the group's batch (in its scope), and one hook at the end of the group
 * writes them all with ONE statement: every attempt inserted and every completed delivery updated
 * (`unnest` of one array per column, so the statement's text is the same whatever the group's size),
 * the notice sent when a rescheduled row is due at once. A group of outcomes alone is thus one
 * statement without a transaction around it (group-commit.ts, batch-only writes): one round trip.
 */
import type { Attempt, ClaimedDelivery } from "@hookline/store";
import { WAITING_STATE } from "./deliveries.js";
import { atGroupEnd, type GroupScope, type GroupStatement } from "./group-commit.js";
import { claimedOf, FLAGGED_SQL, leaseSetSql } from "./lease.js";
import { cols, DELIVERY, EVENT, str, WEBHOOK } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** One `complete` of the batch; `completed` is set when the group's statement has run. */
export interface Completion {
  id: string;
  owner: string;
  state: "succeeded" | "failed" | "pending";
  /** For `pending`: when it is due again; null keeps the row's time. */
  nextAttemptAt: number | null;
  status: number | null;
  error: string | null;
  at: number;
  /** Hand the row's slot to the next due row of its webhook, leased to the owner until then. */
  leaseUntil: number | null;
  /** Whether the owner still held the lease and the row was changed (set by the batch). */
  completed: boolean;
  /** The row the slot was handed to (set by the batch). */
  next?: ClaimedDelivery;
}

/** The batch of one group: its attempts and completions, in the order they were asked for. */
interface OutcomeBatch {
  attempts: Attempt[];
  completions: Completion[];
}

/** The scope key of the batch. */
const BATCH = "outcomes/batch";

function batchOf(c: SqlContext, scope: GroupScope): OutcomeBatch {
  let batch = scope.get(BATCH) as OutcomeBatch | undefined;
  if (!batch) {
    const created: OutcomeBatch = { attempts: [], completions: [] };
    batch = created;
    scope.set(BATCH, created);
    atGroupEnd(scope, BATCH, { writes: () => [outcomesStatement(c, created)] });
  }
  return batch;
}

/** Adds an attempt to the batch of the group whose scope is `scope`; written before COMMIT. */
export function addAttempt(c: SqlContext, scope: GroupScope, attempt: Attempt): void {
  batchOf(c, scope).attempts.push(attempt);
}

/**
 * Adds a completion to the batch of the group whose scope is `scope`; `completion.completed` is set
 * at the end of the group, before the caller is answered.
 */
export function addCompletion(c: SqlContext, scope: GroupScope, completion: Completion): void {
  batchOf(c, scope).completions.push(completion);
}

/**
 * Hand-offs (with `$16`, each completion's lease end or null): each finished row that asks passes
 * its slot to its webhook's next due row, leased to the same owner (`FOR UPDATE SKIP LOCKED`). The
 * asking rows of one webhook and owner are paired with its picked rows by rank. Only in a batch
 * where a completion asks, so that the others keep the short statement (cheap to plan). The handed
 * rows are updated by an index condition on their ids (`= ANY(ARRAY(...))`): joined to `flagged`
 * alone, statistics taken while a backlog was pending (`LIMIT a.n` estimated at a tenth of it) made
 * the plan a sequential scan of `deliveries` at every outcome (decision 0426).
 */
const HAND_OFF_CTES = `, asked AS (
         SELECT id, owner, webhook_id, at, lease_until,
           row_number() OVER (PARTITION BY webhook_id, owner ORDER BY id) AS rn
         FROM done WHERE lease_until IS NOT NULL
       ), picked AS (
         SELECT p.*, a.owner, a.lease_until, a.at, row_number() OVER (
             PARTITION BY a.webhook_id, a.owner ORDER BY p.next_attempt_at, p.id) AS rn
         FROM (SELECT webhook_id, owner, count(*) AS n, max(at) AS at, max(lease_until) AS lease_until
               FROM asked GROUP BY webhook_id, owner) a
         CROSS JOIN LATERAL (
           SELECT d.id, d.event_id, d.webhook_id, d.next_attempt_at, d.request IS NOT NULL AS is_request
           FROM deliveries d
           WHERE d.webhook_id = a.webhook_id AND d.state = 'pending' AND d.next_attempt_at <= a.at
           ORDER BY d.webhook_id, d.next_attempt_at, d.id
           LIMIT a.n
           FOR UPDATE SKIP LOCKED
         ) p
       ), flagged AS MATERIALIZED (${FLAGGED_SQL}
       ), handed AS (
         UPDATE deliveries d SET ${leaseSetSql("f.at", "f.owner", "f.lease_until")}
         FROM flagged f
         WHERE d.id = ANY(ARRAY(SELECT id FROM flagged)) AND d.id = f.id
         RETURNING d.*, f.owner AS to_owner, f.rn
       )`;

/** The hand-offs' columns and joins of the batch's final SELECT (the handed rows prefixed `n_`). */
const HAND_OFF_SELECT = `, ${cols(DELIVERY, "u", "n_")}, ${cols(EVENT, "e", "n_e_")}, ${cols(WEBHOOK, "w", "n_w_")}
       FROM done CROSS JOIN relaxed
       LEFT JOIN asked a ON a.id = done.id AND a.owner = done.owner
       LEFT JOIN handed u ON u.webhook_id = a.webhook_id AND u.to_owner = a.owner AND u.rn = a.rn
       LEFT JOIN events e ON e.id = u.event_id AND u.request IS NULL
       LEFT JOIN webhooks w ON w.id = u.webhook_id AND u.request IS NULL`;

/**
 * The whole batch in one statement: every attempt inserted, then every completion applied. A row
 * is changed only while `owner` holds its lease; a row rescheduled while its webhook is disabled
 * waits paused; a row rescheduled as due at once (such as one a stopping worker gave back) wakes
 * the other workers, on commit. The completion compares the state with a one-row subquery, which
 * no partial index matches, so that it finds its rows by primary key: with the literal, the plan
 * read the whole in-flight index, whose entries of rows delivered since the last VACUUM stay
 * (decision 0426; test/outcome-plans.test.ts). The completions' ids come through a one-row
 * subquery too: Postgres then estimates them at its default whatever the batch's size, as it does
 * for the prepared statement's generic plan, which it therefore keeps after five runs. Given the
 * array itself, every run's plan counted its rows and looked cheaper than the generic one: the
 * statement was planned again at each run, 0.3 ms of PGlite's 0.85 a statement (decision 0427).
 */
function outcomesStatement(c: SqlContext, batch: OutcomeBatch): GroupStatement {
  const { attempts } = batch;
  // One completion per row and owner: a later one of the same pair would find the lease released
  // (and UPDATE ... FROM would apply either of two at random).
  const key = (id: string, owner: string) => `${id}\u0000${owner}`;
  const firsts = new Map<string, Completion>();
  for (const completion of batch.completions) {
    const k = key(completion.id, completion.owner);
    if (!firsts.has(k)) firsts.set(k, completion);
  }
  const completions = [...firsts.values()];
  const params: unknown[] = [
    attempts.map((a) => a.id),
    attempts.map((a) => a.deliveryId),
    attempts.map((a) => a.workspaceId),
    attempts.map((a) => a.at),
    attempts.map((a) => a.status ?? null),
    attempts.map((a) => a.durationMs),
    attempts.map((a) => a.responseExcerpt ?? null),
    attempts.map((a) => a.error ?? null),
    completions.map((x) => x.id),
    completions.map((x) => x.owner),
    completions.map((x) => x.state),
    completions.map((x) => x.nextAttemptAt),
    completions.map((x) => x.status),
    completions.map((x) => x.error),
    completions.map((x) => x.at),
  ];
  const handOff = completions.some((x) => x.leaseUntil !== null);
  if (handOff) params.push(completions.map((x) => x.leaseUntil));
  return {
    text: `WITH att AS (
         INSERT INTO attempts (id, delivery_id, workspace_id, at, status, duration_ms, response_excerpt, error)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::integer[],
                              $6::double precision[], $7::text[], $8::text[])
       ), done AS (
         UPDATE deliveries d SET
           state = CASE WHEN v.state = 'pending' THEN ${WAITING_STATE} ELSE v.state END,
           next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at),
           last_status = v.status, last_error = v.error,
           lease_owner = NULL, lease_expires_at = NULL, updated_at = v.at
         FROM unnest((SELECT $9::text[]), $10::text[], $11::text[], $12::bigint[], $13::integer[], $14::text[],
                     $15::bigint[]${handOff ? ", $16::bigint[]" : ""})
           AS v (id, owner, state, next_attempt_at, status, error, at${handOff ? ", lease_until" : ""})
         WHERE d.id = v.id AND d.state = (SELECT 'delivering'::text) AND d.lease_owner = v.owner
         RETURNING d.id, v.owner, d.state, d.next_attempt_at <= v.at AS due_now${handOff ? ", d.webhook_id, v.at, v.lease_until" : ""}
       ), relaxed AS (
         -- Committed without waiting for the WAL flush (Postgres): an outcome lost in a crash
         -- leaves its delivery in flight until its lease expires, and then it is sent again.
         SELECT set_config('synchronous_commit', 'off', true) AS relaxed
       )${handOff ? HAND_OFF_CTES : ""}
       SELECT done.id, done.owner, ${c.notifyDueWhen("done.state = 'pending' AND done.due_now", params)} AS noted
         ${handOff ? HAND_OFF_SELECT : "FROM done CROSS JOIN relaxed"}`,
    params,
    onRows(rows) {
      const changed = new Map(rows.map((row) => [key(str(row.id), str(row.owner)), row]));
      for (const completion of batch.completions) {
        const k = key(completion.id, completion.owner);
        const row = changed.get(k);
        completion.completed = firsts.get(k) === completion && row !== undefined;
        const next = completion.completed && row?.n_id != null ? claimedOf(row, "n_") : undefined;
        if (next) completion.next = next;
      }
    },
  };
}
