/**
 * One claimed delivery from start to end: the attempt, its record, the outcome (succeeded, retried,
 * failed, or paused on a configuration error), the webhook's health and circuit, the report.
 */
import type { ClaimedDelivery, CompleteOptions, Store, WebhookPatch } from "@hookline/store";
import { type AttemptContext, type AttemptResult, attemptDelivery } from "./_attempt.js";
import type { Circuits } from "./_circuit.js";
import { MAX_RETRY_AFTER_MS, nextRetryDelay } from "./retry-schedule.js";
import { type DeliveryAttemptReport, SECRET_UNDECRYPTABLE } from "./worker-types.js";

/** What delivering needs from its worker. */
export interface DeliverContext extends AttemptContext {
  store: Store;
  owner: string;
  schedule: readonly number[];
  jitter: number;
  random: () => number;
  disableAfterMs: number;
  /** Webhooks this worker marked failing (their claimed snapshot may predate it). */
  markedFailing: Set<string>;
  circuits: Circuits;
  onAttempt?: ((report: DeliveryAttemptReport) => void) | undefined;
  /**
   * The lease of a row handed over by the store when a delivery succeeds (see
   * `DeliveryQueue.completeAndTakeNext`), when the worker takes one for `row` now; undefined: it
   * does not (stopping, or the row was held aside as slow).
   */
  handOffLeaseMs(row: ClaimedDelivery, entry: InFlight): number | undefined;
  /**
   * Takes a row the store handed over (leased to this worker): delivered like a claimed one (not
   * awaited), or given back when the worker is stopping (awaited).
   */
  takeOver(next: ClaimedDelivery, from: InFlight): Promise<void>;
}

/** A delivery in flight; `released` once a stopping worker gave it back. */
export interface InFlight {
  promise: Promise<void>;
  released: boolean;
  /** Held aside as slow: it no longer takes one of the shared slots. */
  slow: boolean;
  /** Its slot went to the next row of its webhook (see `DeliverContext.takeOver`): none was freed. */
  handedOn?: boolean;
}

/** The completion of an attempt, the webhook change it calls for, and whether it disabled the webhook. */
interface Outcome {
  complete: CompleteOptions;
  patch?: WebhookPatch;
  disabled?: DeliveryAttemptReport["webhookDisabled"];
}

/** Decides what an attempt's result does to the delivery and its webhook. */
async function outcomeOf(row: ClaimedDelivery, result: AttemptResult, ctx: DeliverContext): Promise<Outcome> {
  const { webhook } = row;
  const now = ctx.clock.now();
  const complete: CompleteOptions = { state: "failed", at: now };
  if (result.status !== undefined) complete.status = result.status;
  if (result.error !== undefined) complete.error = result.error;
  // A workflow's request ($.send.http) has no webhook: no health, no disabling, retried or failed.
  const request = row.request !== undefined;
  switch (result.kind) {
    case "success": {
      if (request) return { complete: { ...complete, state: "succeeded" } };
      const clear = webhook.failingSince !== undefined || ctx.markedFailing.has(webhook.id);
      return {
        complete: { ...complete, state: "succeeded" },
        ...(clear && { patch: { failingSince: null } }),
      };
    }
    case "disable":
      if (request) return { complete };
      return { complete, patch: { active: false, disabledReason: "gone" }, disabled: "gone" };
    case "config":
      if (request) return { complete };
      // Not the receiver's fault and not retried on the schedule: the webhook is disabled with the
      // reason, so the delivery waits paused (nothing is lost) until the key is fixed and it is enabled.
      return {
        complete: { ...complete, state: "pending", nextAttemptAt: now },
        patch: { active: false, disabledReason: SECRET_UNDECRYPTABLE },
        disabled: SECRET_UNDECRYPTABLE,
      };
    case "fail":
    case "retry":
      break;
  }
  const out: Outcome = { complete };
  if (result.kind === "retry") {
    let delay = nextRetryDelay(row.attempts, ctx.schedule, ctx.jitter, ctx.random);
    if (delay !== undefined && result.retryAfterMs !== undefined) {
      delay = Math.min(Math.max(delay, result.retryAfterMs), MAX_RETRY_AFTER_MS);
    }
    if (delay !== undefined) {
      complete.state = "pending";
      complete.nextAttemptAt = now + delay;
    }
  }
  if (request) return out;
  // Health: read the webhook again, the claimed snapshot may be stale.
  const current = await ctx.store.webhooks.get(row.workspaceId, webhook.id);
  const failingSince = current?.failingSince;
  if (failingSince === undefined) {
    out.patch = { failingSince: now };
  } else if (now - failingSince >= ctx.disableAfterMs) {
    if (current?.active) {
      out.patch = { active: false, disabledReason: "failing" };
      out.disabled = "failing";
    }
    complete.state = "failed";
    delete complete.nextAttemptAt;
  }
  return out;
}

/** Applies a webhook change and remembers what it says about the webhook's health. */
async function patchWebhook(row: ClaimedDelivery, patch: WebhookPatch, ctx: DeliverContext): Promise<void> {
  await ctx.store.webhooks.update(row.workspaceId, row.webhook.id, patch);
  if (patch.failingSince === null) ctx.markedFailing.delete(row.webhook.id);
  else if (patch.failingSince !== undefined) ctx.markedFailing.add(row.webhook.id);
}

/**
 * Completes the row with the attempt: after a success, through `completeAndTakeNext` where the
 * store has it and the worker wants the webhook's next due row (its slot passes on, no claim).
 */
async function completeRow(
  row: ClaimedDelivery,
  entry: InFlight,
  outcome: CompleteOptions,
  success: boolean,
  ctx: DeliverContext,
): Promise<boolean> {
  const queue = ctx.store.queue.deliveries;
  const leaseMs = success && queue.completeAndTakeNext ? ctx.handOffLeaseMs(row, entry) : undefined;
  if (leaseMs === undefined || !queue.completeAndTakeNext) return queue.complete(row.id, ctx.owner, outcome);
  const { completed, next } = await queue.completeAndTakeNext(row.id, ctx.owner, outcome, leaseMs);
  // At once, before this row's own follow-ups (which may fail): the next row is leased to us.
  if (next) await ctx.takeOver(next, entry);
  return completed;
}

/** Delivers one claimed row: never throws for the receiver's behaviour, only for store failures. */
export async function deliverClaimed(
  row: ClaimedDelivery,
  entry: InFlight,
  ctx: DeliverContext,
): Promise<void> {
  const { store, owner, clock } = ctx;
  if (!row.webhook.active) {
    if (entry.released) return;
    // Disabled between the claim and now: give the row back unsent. The store keeps it paused until
    // the webhook is enabled again (or makes it due at once if it already is).
    const at = clock.now();
    await store.queue.deliveries.complete(row.id, owner, {
      state: "pending",
      nextAttemptAt: at,
      error: "webhook_disabled",
      at,
    });
    return;
  }

  const startedAt = clock.now();
  const result = await attemptDelivery(row, startedAt, ctx);
  if (entry.released) return;

  const attempt = {
    deliveryId: row.id,
    workspaceId: row.workspaceId,
    at: startedAt,
    durationMs: result.durationMs,
    ...(result.status !== undefined && { status: result.status }),
    ...(result.excerpt !== undefined && { responseExcerpt: result.excerpt }),
    ...(result.error !== undefined && { error: result.error }),
  };
  const outcome = await outcomeOf(row, result, ctx).catch(async (error: unknown) => {
    // What was sent is recorded even when the outcome cannot be worked out.
    await store.queue.deliveries.recordAttempt(attempt);
    throw error;
  });
  if (entry.released) {
    await store.queue.deliveries.recordAttempt(attempt);
    return;
  }
  // A configuration error disables the webhook first, so that the row, given back, waits paused.
  if (result.kind === "config" && outcome.patch) await patchWebhook(row, outcome.patch, ctx);
  // The attempt and the outcome in one write (the lease lost or not, the attempt is kept).
  const completed = await completeRow(
    row,
    entry,
    { ...outcome.complete, attempt },
    result.kind === "success",
    ctx,
  );
  if (!completed) return; // Lease lost: another worker owns the row now.
  if (result.kind !== "config" && outcome.patch) await patchWebhook(row, outcome.patch, ctx);

  const openUntil =
    result.kind === "success" || result.kind === "retry"
      ? ctx.circuits.record(row.webhook.id, result.kind === "success", clock.now())
      : undefined;

  if (ctx.onAttempt) {
    const report: DeliveryAttemptReport = {
      delivery: row,
      at: startedAt,
      durationMs: result.durationMs,
      outcome: outcome.complete.state,
    };
    if (result.status !== undefined) report.status = result.status;
    if (result.error !== undefined) report.error = result.error;
    if (outcome.complete.nextAttemptAt !== undefined) report.nextAttemptAt = outcome.complete.nextAttemptAt;
    if (outcome.disabled) report.webhookDisabled = outcome.disabled;
    if (openUntil !== undefined) report.circuitOpenUntil = openUntil;
    try {
      ctx.onAttempt(report);
    } catch {
      // Callback errors are ignored.
    }
  }
}
