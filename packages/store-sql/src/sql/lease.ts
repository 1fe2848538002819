/**
 * Leasing picked delivery rows, shared by the claim (queue.ts) and the hand-off of a finished row's
 * slot to the next row of its webhook (outcome-batch.ts): which rows are leased, failed or paused,
 * and how a leased row with its event and webhook becomes a {@link ClaimedDelivery}.
 */
import type { ClaimedDelivery } from "@hookline/store";
import { requestClaim } from "@hookline/store/adapter";
import type { SqlRow } from "../clients.js";
import { lazyBody, toDelivery, toEvent, toWebhook, unprefix } from "./rows.js";

/**
 * The `flagged` rows of `picked` (columns `id`, `event_id`, `webhook_id`, `is_request`): whether
 * their event is there and whether their webhook is active (a workflow's request has neither).
 * Each is a scalar subquery by key: an `EXISTS` may be planned as a hash of every event when the
 * picked rows are estimated many (decision 0426).
 */
export const FLAGGED_SQL = `
    SELECT p.*,
      p.is_request OR (SELECT true FROM events e WHERE e.id = p.event_id) IS NOT NULL AS has_event,
      CASE WHEN p.is_request THEN true
        ELSE (SELECT w.active FROM webhooks w WHERE w.id = p.webhook_id) END AS active
    FROM picked p`;

/**
 * The `SET` list leasing a `flagged` row `f` of `deliveries d` to `owner` until `until` at `now`
 * (SQL expressions): leased when its event is there and its webhook active; paused when the webhook
 * is disabled; failed when either is gone.
 */
export const leaseSetSql = (now: string, owner: string, until: string): string => `
      state = CASE WHEN f.has_event AND f.active THEN 'delivering'
        WHEN f.has_event AND f.active IS NOT NULL THEN 'paused' ELSE 'failed' END,
      attempts = CASE WHEN f.has_event AND f.active THEN d.attempts + 1 ELSE d.attempts END,
      lease_owner = CASE WHEN f.has_event AND f.active THEN ${owner} ELSE d.lease_owner END,
      lease_expires_at = CASE WHEN f.has_event AND f.active THEN ${until} ELSE d.lease_expires_at END,
      last_error = CASE WHEN f.has_event AND f.active IS NOT NULL THEN d.last_error
        WHEN f.has_event THEN 'webhook_deleted' ELSE 'event_deleted' END,
      updated_at = ${now}`;

/**
 * A leased row (delivery columns prefixed `prefix`, its event's `prefix + "e_"`, its webhook's
 * `prefix + "w_"`) as a claimed delivery; undefined when it was not leased (failed, paused) or its
 * event or webhook was not found.
 */
export function claimedOf(row: SqlRow, prefix = ""): ClaimedDelivery | undefined {
  const delivery = prefix ? unprefix(row, prefix) : row;
  if (delivery.state !== "delivering") return undefined;
  if (delivery.request != null) return requestClaim(toDelivery(delivery));
  if (row[`${prefix}e_id`] == null || row[`${prefix}w_id`] == null) return undefined;
  const eventRow = unprefix(row, `${prefix}e_`);
  const payload = eventRow.body;
  // The body stays text: the delivery POSTs `payload`, and parses the body only if it reads it.
  eventRow.body = null;
  const event = toEvent(eventRow);
  const claimed: ClaimedDelivery = {
    ...toDelivery(delivery),
    event,
    webhook: toWebhook(unprefix(row, `${prefix}w_`)),
  };
  if (typeof payload === "string") {
    claimed.payload = payload;
    lazyBody(event, payload);
  }
  return claimed;
}
