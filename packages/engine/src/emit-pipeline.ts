/**
 * The emit pipeline: what one invocation passed to `this.$emit` becomes stored events and their
 * deliveries. {@link storeEmits} is the whole pipeline, in order:
 *
 * 1. the metadata rules of core (`validateEmitMeta`): an invalid emit is logged and dropped;
 * 2. `ts` ordering (core's `orderEmits`);
 * 3. dedupe (core's `applyDedupe`) against the state the store keeps per source;
 * 4. {@link commitEmits}: the new dedupe state, the events and one delivery row per matching
 *    subscription written (the store's outbox), then retention;
 * 5. observers notified (`emit`), the delivery worker woken.
 *
 * It runs inside the source's invocation queue (see mounts.ts), so dedupe state is read and
 * written in invocation order.
 */
import {
  applyDedupe,
  type ComponentDescription,
  channelOf,
  type DedupeState,
  type EmitMeta,
  orderEmits,
  validateEmitMeta,
} from "@hookline/core";
import type { InvocationResult } from "@hookline/runtime";
import type { Store, StoredEvent } from "@hookline/store";
import { type EngineContext, problemsMessage } from "./context.js";
import { systemLog } from "./source-logs.js";

/** An emit whose metadata passed validation. */
type ValidEmit = { event: unknown; meta: EmitMeta };
/** The source an invocation belongs to. */
type SourceRef = { id: string; workspaceId: string };

/**
 * Step 4: writes one invocation's new dedupe state (when the source has a strategy), its events
 * and their deliveries (one store operation: an event is never stored without its deliveries),
 * then trims the source's events to `retention.events`. Returns the stored events with their
 * delivery ids. @internal
 */
export async function commitEmits(
  ctx: Pick<EngineContext, "store" | "clock" | "retention">,
  source: SourceRef,
  dedupeState: DedupeState | undefined,
  emits: readonly ValidEmit[],
): Promise<(StoredEvent & { deliveryIds: string[] })[]> {
  if (dedupeState !== undefined) await ctx.store.dedupe.set(source.id, dedupeState);
  if (emits.length === 0) return [];
  const now = ctx.clock.now();
  const appended = await ctx.store.events.append(
    source.workspaceId,
    source.id,
    emits.map(({ event, meta }) => {
      const input: Parameters<Store["events"]["append"]>[2][number] = {
        channel: channelOf(meta),
        ts: meta.ts ?? now,
        body: event ?? null,
      };
      if (meta.summary !== undefined) input.summary = meta.summary;
      if (meta.id !== undefined) input.eventId = String(meta.id);
      return input;
    }),
    { now },
  );
  await ctx.store.events.trim(source.id, ctx.retention.events);
  return appended;
}

/**
 * The emit pipeline (see the module comment): validates, orders, dedupes and stores one
 * invocation's emits, and returns the stored events. An invalid emit and a dedupe error (an emit
 * without `id` under a strategy: no event of the run is stored) are written to the source's logs.
 * @internal
 */
export async function storeEmits(
  ctx: EngineContext,
  source: SourceRef,
  description: ComponentDescription,
  emits: InvocationResult["emits"],
): Promise<StoredEvent[]> {
  if (emits.length === 0) return [];
  // 1. Metadata rules.
  const valid: ValidEmit[] = [];
  for (const emit of emits) {
    const problems = validateEmitMeta(emit.meta);
    if (problems.length > 0) {
      await systemLog(ctx, source, "error", `invalid_emit: event dropped: ${problemsMessage(problems)}`);
    } else valid.push(emit as ValidEmit);
  }
  // 2. `ts` ordering.
  let kept = orderEmits(valid);
  // 3. Dedupe against the source's state.
  let dedupeState: DedupeState | undefined;
  if (description.dedupe) {
    const previous = (await ctx.store.dedupe.get(source.id)) as DedupeState | undefined;
    try {
      ({ emitted: kept, state: dedupeState } = applyDedupe(description.dedupe, previous, kept));
    } catch (error) {
      const message = `${(error as Error).message}: no event of this run was stored`;
      await systemLog(ctx, source, "error", message);
      return [];
    }
  }
  // 4. Dedupe state, events and deliveries; retention.
  const appended = await commitEmits(ctx, source, dedupeState, kept);
  // 5. Observers and the delivery worker.
  for (const { deliveryIds, ...event } of appended) {
    ctx.notify("emit", { workspaceId: source.workspaceId, sourceId: source.id, event, deliveryIds });
  }
  if (appended.some((e) => e.deliveryIds.length > 0)) ctx.wakeWorker();
  return appended.map(({ deliveryIds: _ignored, ...event }) => event);
}
