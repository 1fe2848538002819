/**
 * The Queue of the SQL store: claims lease rows with `FOR UPDATE SKIP LOCKED`, so that concurrent
 * workers (and nodes) never receive the same row.
 */
import type { ClaimedDelivery, CompleteOptions, DeliveryQueue, Queue, TimerQueue } from "@hookline/store";
import { compareText, newAttempt, newRequestDelivery } from "@hookline/store/adapter";
import { type SqlClient, withTransaction } from "../clients.js";
import { claimedOf, FLAGGED_SQL, leaseSetSql } from "./lease.js";
import { addAttempt, addCompletion, type Completion } from "./outcome-batch.js";
import { cols, DELIVERY, EVENT, TIMER, toJson, toTimer, WEBHOOK } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** The advisory lock key serializing claims that use `perWebhookLimit` (they count rows in flight). */
const CLAIM_LOCK_KEY = 7_461_203_319;

/**
 * Leaves out the rows of excluded webhooks (`excludeWebhookIds`, joined with commas: `wh_` ids have
 * none), the parameter `$n`.
 */
const notExcluded = (n: number): string => `AND d.webhook_id <> ALL(string_to_array($${n}::text, ','))`;

/** The due pending rows a claim takes: the earliest first. $1 now, $2 want, $5 excluded webhooks. */
const pickAny = (exclude: boolean): string => `
  SELECT d.id, d.event_id, d.webhook_id, d.request IS NOT NULL AS is_request FROM deliveries d
  WHERE d.state = 'pending' AND d.next_attempt_at <= $1 ${exclude ? notExcluded(5) : ""}
  ORDER BY d.next_attempt_at, d.id
  LIMIT $2
  FOR UPDATE SKIP LOCKED`;

/**
 * The due pending rows a claim bounded per webhook takes ($5 the limit). Set-based and bounded by the
 * webhooks, not the backlog: walk the distinct webhooks that have pending rows (a loose index scan of
 * deliveries_pending_webhook), take each one's earliest due rows up to its free slots (the limit minus
 * its rows in flight under a live lease), then the earliest of those overall. $6 excluded webhooks.
 * The walk orders by the pending index's whole key (webhook, due time, id), which the plan then
 * reads whatever the statistics: ordered by the webhook alone, a plan made on statistics taken while
 * the backlog was pending walked `deliveries_webhook` instead, stepping over every row of the webhook
 * delivered since (test/claim-plans.test.ts).
 */
const pickPerWebhook = (exclude: boolean): string => `
  WITH RECURSIVE hooks AS (
    (SELECT d.webhook_id FROM deliveries d WHERE d.state = 'pending'
     ORDER BY d.webhook_id, d.next_attempt_at, d.id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.webhook_id FROM deliveries d
            WHERE d.state = 'pending' AND d.webhook_id > h.webhook_id
            ORDER BY d.webhook_id, d.next_attempt_at, d.id LIMIT 1)
    FROM hooks h WHERE h.webhook_id IS NOT NULL
  ), in_flight AS (
    SELECT webhook_id, count(*) AS n FROM deliveries
    WHERE state = 'delivering' AND lease_expires_at > $1
    GROUP BY webhook_id
  ), allowed AS (
    SELECT p.id, p.next_attempt_at
    FROM hooks h
    LEFT JOIN in_flight f ON f.webhook_id = h.webhook_id
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM deliveries d
      WHERE d.webhook_id = h.webhook_id AND d.state = 'pending' AND d.next_attempt_at <= $1
        ${exclude ? notExcluded(6) : ""}
      ORDER BY d.next_attempt_at, d.id
      LIMIT least(greatest($5::bigint - coalesce(f.n, 0), 0), $2::bigint)
    ) p
    WHERE h.webhook_id IS NOT NULL
    ORDER BY p.next_attempt_at, p.id
    LIMIT $2
  )
  SELECT d.id, d.event_id, d.webhook_id, d.request IS NOT NULL AS is_request FROM deliveries d
  WHERE d.id = ANY(ARRAY(SELECT id FROM allowed)) AND d.state = 'pending'
  FOR UPDATE SKIP LOCKED`;

/**
 * Leases the picked rows ($3 owner, $4 lease expiry) with their event and webhook. A row whose event
 * or webhook is gone is failed; one whose webhook is disabled is paused: neither is returned leased.
 */
const leaseSql = (picked: string): string => `
  WITH picked AS (${picked}
  ), flagged AS MATERIALIZED (${FLAGGED_SQL}
  ), updated AS (
    UPDATE deliveries d SET ${leaseSetSql("$1", "$3", "$4::bigint")}
    FROM flagged f
    WHERE d.id = f.id
    RETURNING d.*
  )
  SELECT ${cols(DELIVERY, "u")}, ${cols(EVENT, "e", "e_")}, ${cols(WEBHOOK, "w", "w_")}
  FROM updated u
  LEFT JOIN events e ON e.id = u.event_id AND u.request IS NULL
  LEFT JOIN webhooks w ON w.id = u.webhook_id AND u.request IS NULL`;

const LEASE_ANY = leaseSql(pickAny(false));
const LEASE_ANY_EXCLUDING = leaseSql(pickAny(true));
const LEASE_PER_WEBHOOK = leaseSql(pickPerWebhook(false));
const LEASE_PER_WEBHOOK_EXCLUDING = leaseSql(pickPerWebhook(true));

function sqlDeliveryQueue(c: SqlContext): DeliveryQueue {
  /**
   * One completion through the outcomes' group commit: the outcomes (and attempts) of concurrent
   * deliveries are written together, one statement a group (outcome-batch.ts); with `leaseMs`, the
   * same statement hands the row's slot to the next due row of its webhook.
   */
  const complete = async (
    id: string,
    owner: string,
    outcome: CompleteOptions,
    leaseMs?: number,
  ): Promise<Completion> => {
    c.open();
    const at = outcome.at ?? c.clock();
    const retry = outcome.state === "pending";
    const completion: Completion = {
      id,
      owner,
      state: outcome.state,
      nextAttemptAt: retry ? (outcome.nextAttemptAt ?? at) : null,
      status: outcome.status ?? null,
      error: outcome.error ?? null,
      at,
      leaseUntil: leaseMs === undefined ? null : at + leaseMs,
      completed: false,
    };
    const attempt = outcome.attempt ? newAttempt(outcome.attempt) : undefined;
    await c.outcomes(
      async (_tx, scope) => {
        if (attempt) addAttempt(c, scope, attempt);
        addCompletion(c, scope, completion);
      },
      { batchOnly: true },
    );
    return completion;
  };

  const queue: DeliveryQueue = {
    async claim(options) {
      const { owner, now, leaseMs, limit, perWebhookLimit } = options;
      const excluded = options.excludeWebhookIds ?? [];
      const exclude = excluded.length > 0 ? excluded.join(",") : undefined;
      const max = Math.max(0, Math.floor(limit));
      if (max === 0) {
        c.open();
        return [];
      }
      const lease = async (tx: SqlClient): Promise<ClaimedDelivery[]> => {
        const claimed: ClaimedDelivery[] = [];
        for (;;) {
          const want = max - claimed.length;
          if (want <= 0) break;
          const params: unknown[] = [now, want, owner, now + leaseMs];
          const perWebhook = perWebhookLimit !== undefined;
          // $5 is the per-webhook limit when there is one; the excluded webhooks come after it.
          if (perWebhook) params.push(Math.floor(perWebhookLimit));
          if (exclude !== undefined) params.push(exclude);
          const text = perWebhook
            ? exclude === undefined
              ? LEASE_PER_WEBHOOK
              : LEASE_PER_WEBHOOK_EXCLUDING
            : exclude === undefined
              ? LEASE_ANY
              : LEASE_ANY_EXCLUDING;
          const rows = await c.run(text, params, undefined, tx);
          let skipped = 0;
          for (const row of rows) {
            const leased = claimedOf(row);
            if (leased) claimed.push(leased);
            else skipped++;
          }
          // Failed and paused rows do not count: look again for the rest.
          if (skipped === 0 || rows.length === 0) break;
        }
        return claimed.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || compareText(a.id, b.id));
      };
      // On one connection (PGlite) statements never overlap: each claim statement sees the rows the
      // previous one leased, so neither the lock below nor a transaction around them is needed.
      // Claims are background work: on the PGlite thread they wait behind the requests' statements.
      if (c.client.singleConnection) return lease(c.background);
      c.open();
      return withTransaction(c.background, async (tx: SqlClient) => {
        // A claim commits without waiting for the WAL flush: a lease lost in a crash only means the
        // delivery is claimed again. Claims bounded per webhook count the rows in flight: they are
        // serialized, so that two claimers never both see room for the same slot. Their statement
        // is planned for its values each time: Postgres's generic plan of the prepared statement
        // (chosen after five runs) cut bench:queue's bounded claims from 4,067 to 1,621 a second.
        const lock =
          perWebhookLimit !== undefined
            ? `, set_config('plan_cache_mode', 'force_custom_plan', true), pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`
            : "";
        await c.run(`SELECT set_config('synchronous_commit', 'off', true)${lock}`, [], undefined, tx);
        return lease(tx);
      });
    },
    async complete(id, owner, outcome) {
      return (await complete(id, owner, outcome)).completed;
    },
    async enqueue(input) {
      const row = newRequestDelivery(input, input.now ?? c.clock());
      const params: unknown[] = [
        row.id,
        row.workspaceId,
        row.webhookId,
        row.eventId,
        row.emitterId,
        row.channel,
        row.nextAttemptAt,
        toJson(row.request, "request"),
      ];
      await c.run(
        `WITH inserted AS (
           INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, emitter_id, channel, state,
             next_attempt_at, created_at, updated_at, request)
           VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $7, $7, $8) RETURNING 1
         ) SELECT ${c.notifyDueWhen("true", params)} AS noted FROM inserted`,
        params,
      );
      return row;
    },
    async recordAttempt(input) {
      c.open();
      const row = newAttempt(input);
      await c.outcomes(async (_tx, scope) => addAttempt(c, scope, row), { batchOnly: true });
      return row;
    },
    async sweep(now) {
      const params: unknown[] = [now];
      const rows = await c.run(
        `WITH swept AS (
           UPDATE deliveries SET state = 'pending', lease_owner = NULL, lease_expires_at = NULL, updated_at = $1
           WHERE state = 'delivering' AND coalesce(lease_expires_at, 0) <= $1 RETURNING 1
         ) SELECT n, ${c.notifyDueWhen("n > 0", params)} AS noted FROM (SELECT count(*) AS n FROM swept) c`,
        params,
        undefined,
        c.background,
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
  // Over a pool, a finished row hands its slot to its webhook's next due row in the outcome's
  // statement, sparing the claim (a transaction holding the claim lock). On one connection (PGlite)
  // a claim is one statement without a lock, cheaper than the hand-off's statement: none there.
  if (!c.client.singleConnection)
    queue.completeAndTakeNext = async (id, owner, outcome, leaseMs) => {
      const done = await complete(id, owner, outcome, leaseMs);
      return done.next ? { completed: done.completed, next: done.next } : { completed: done.completed };
    };
  return queue;
}

function sqlTimerQueue(c: SqlContext): TimerQueue {
  return {
    async claim({ now, owner, leaseMs, limit }) {
      const max = Math.max(0, Math.floor(limit));
      if (max === 0) {
        c.open();
        return [];
      }
      const rows = await c.run(
        `UPDATE timers t SET lease_owner = $2, lease_expires_at = $3
         FROM (
           SELECT component_id FROM timers
           WHERE next_at <= $1 AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
           ORDER BY next_at, ord
           LIMIT $4
           FOR UPDATE SKIP LOCKED
         ) due
         WHERE t.component_id = due.component_id
         RETURNING ${cols(TIMER)}, t.ord`,
        [now, owner, now + leaseMs, max],
      );
      return rows
        .sort((a, b) => Number(a.next_at) - Number(b.next_at) || Number(a.ord) - Number(b.ord))
        .map(toTimer);
    },
    async advance(componentId, owner, firedAt, nextAt) {
      const rows = await c.run(
        `UPDATE timers SET next_at = $4, lease_owner = NULL, lease_expires_at = NULL
         WHERE component_id = $1 AND lease_owner = $2 AND next_at = $3 RETURNING component_id`,
        [componentId, owner, firedAt, nextAt],
      );
      return rows.length > 0;
    },
  };
}

/** The Queue of a SQL store. */
export function sqlQueue(c: SqlContext): Queue {
  return { deliveries: sqlDeliveryQueue(c), timers: sqlTimerQueue(c) };
}
