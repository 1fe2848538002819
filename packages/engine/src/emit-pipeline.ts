/**
 * The emit pipeline: what one invocation passed to `this.$emit` becomes stored events and their
 * deliveries. {@link storeEmits} is the whole pipeline, in order:
 *
 * 1. {@link screenEmits}: the caps (`limits.maxEmitsPerRun`, `limits.maxEventBytes`) and the
 *    metadata rules of core (`validateEmitMeta`, channel names included); a refused event is
 *    counted and logged, the others go on;
 * 2. `ts` ordering (core's `orderEmits`);
 * 3. the events, their dedupe, one delivery row per matching subscription and the run's log lines
 *    in one atomic step (`store.emits.commitRun`, the outbox: the store applies core's `applyDedupe`
 *    with the source's dedupe state locked, so that dedupe holds across nodes); the source is
 *    marked for retention, applied later off this path (retention.ts);
 * 4. observers notified (`emit`), the delivery worker woken.
 */
import {
  CHANNEL_NAME_RULE,
  type ComponentDescription,
  channelOf,
  type DedupeStrategy,
  type EmitMeta,
  HooklineError,
  orderEmits,
  validateEmitMeta,
} from "@hookline/core";
import type { InvocationResult } from "@hookline/runtime";
import type { EmitCommitInput, EventInput, RunCommitted, StoredEvent } from "@hookline/store";
import { type EngineContext, problemsMessage } from "./context.js";
import { announceLogs, writeLogs } from "./source-logs.js";
import type { EngineLimits, RefusedEmits } from "./types.js";

/** One `$emit` call as the runtime reports it. */
type RawEmit = InvocationResult["emits"][number];
/** An emit whose metadata passed validation (`json`: the event's JSON text, when the sandbox gave it). */
type ValidEmit = { event: unknown; json?: string; meta: EmitMeta };
/** The source an invocation belongs to. */
type SourceRef = { id: string; workspaceId: string };

/** What {@link storeEmits} did with one invocation's emits. */
export interface EmitOutcome {
  /** The events stored, in order. */
  stored: StoredEvent[];
  /** The events refused by the caps and rules (dedupe drops are not refusals). */
  refused: RefusedEmits;
}

/** No refusal. */
const NONE: RefusedEmits = Object.freeze({ total: 0, invalid: 0, overEmitLimit: 0, tooLarge: 0 });

/** The result of {@link screenEmits}: the emits that go on, what was refused, the log lines. */
export interface Screened {
  accepted: ValidEmit[];
  refused: RefusedEmits;
  /** One line per kind of refusal (per distinct problem for invalid metadata). */
  lines: string[];
}

/** A channel name as a log line shows it: quoted, escaped, at most 64 characters of it. */
function quoteChannel(name: unknown): string {
  if (typeof name !== "string") return JSON.stringify(name) ?? String(name);
  if (name.length <= 64) return JSON.stringify(name);
  return `${JSON.stringify(name.slice(0, 64))}... (${name.length} characters)`;
}

/** The log line of an emit whose metadata is invalid. */
function invalidLine(meta: unknown, problems: ReturnType<typeof validateEmitMeta>): string {
  const channel = problems.find((p) => p.path === "name");
  if (channel && problems.length === 1) {
    const name = (meta as { name?: unknown }).name;
    return `invalid_emit: event refused: the channel ${quoteChannel(name)} is not valid: a channel name is ${CHANNEL_NAME_RULE}`;
  }
  return `invalid_emit: event refused: ${problemsMessage(problems)}`;
}

const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;

/**
 * Step 1 of the pipeline, pure: applies the caps and the metadata rules to one invocation's
 * emits. The first `maxEmitsPerRun` emits are considered, the rest refused; an emit with invalid
 * metadata (a bad channel name...) is refused; so is an event whose JSON text is over
 * `maxEventBytes`. Equal lines are merged, with a count. @internal
 *
 * @example
 * ```ts
 * screenEmits({ maxEmitsPerRun: 1, maxEventBytes: 100 }, [
 *   { event: 1, meta: {} },
 *   { event: 2, meta: {} },
 * ]).refused.overEmitLimit; // 1
 * ```
 */
export function screenEmits(
  limits: Pick<EngineLimits, "maxEmitsPerRun" | "maxEventBytes">,
  emits: readonly RawEmit[],
): Screened {
  const accepted: ValidEmit[] = [];
  const invalid = new Map<string, number>();
  let tooLarge = 0;
  const considered = emits.length > limits.maxEmitsPerRun ? emits.slice(0, limits.maxEmitsPerRun) : emits;
  const overEmitLimit = emits.length - considered.length;
  for (const emit of considered) {
    const problems = validateEmitMeta(emit.meta);
    if (problems.length > 0) {
      const line = invalidLine(emit.meta, problems);
      invalid.set(line, (invalid.get(line) ?? 0) + 1);
    } else if (
      Buffer.byteLength(emit.json ?? JSON.stringify(emit.event ?? null) ?? "null") > limits.maxEventBytes
    ) {
      tooLarge++;
    } else accepted.push(emit as ValidEmit);
  }
  const lines = [...invalid].map(([line, n]) => (n === 1 ? line : `${line} (${n} events)`));
  if (overEmitLimit > 0) {
    lines.push(
      `emit_limit: ${plural(overEmitLimit, "event")} refused: this run called $emit ${emits.length.toLocaleString("en-US")} times and limits.maxEmitsPerRun is ${limits.maxEmitsPerRun.toLocaleString("en-US")}`,
    );
  }
  if (tooLarge > 0) {
    lines.push(
      `event_too_large: ${plural(tooLarge, "event")} refused: each was over limits.maxEventBytes (${limits.maxEventBytes.toLocaleString("en-US")} bytes of JSON)`,
    );
  }
  const invalidCount = [...invalid.values()].reduce((a, b) => a + b, 0);
  const total = invalidCount + overEmitLimit + tooLarge;
  return {
    accepted,
    refused: total === 0 ? NONE : { total, invalid: invalidCount, overEmitLimit, tooLarge },
    lines,
  };
}

/**
 * Step 3: writes one invocation's events and their deliveries in ONE atomic store operation
 * (`store.emits.commit`: all of it or nothing, so no id is marked as seen without its event, and no
 * event is stored without its deliveries), the store deciding the source's dedupe (`strategy`)
 * under its lock, then marks the source for retention (trimmed later, off this path). Returns the
 * stored events with their delivery ids. @internal
 */
export async function commitEmits(
  ctx: Pick<EngineContext, "store" | "clock" | "retention">,
  source: SourceRef,
  strategy: DedupeStrategy | undefined,
  emits: readonly ValidEmit[],
): Promise<(StoredEvent & { deliveryIds: string[] })[]> {
  if (emits.length === 0) return [];
  const appended = await ctx.store.emits.commit(commitInput(ctx, source, strategy, emits));
  if (appended.length > 0) ctx.retention.touch(source.id);
  return appended;
}

/** The store's input for one invocation's screened, ordered emits. */
function commitInput(
  ctx: Pick<EngineContext, "clock">,
  source: SourceRef,
  strategy: DedupeStrategy | undefined,
  emits: readonly ValidEmit[],
): EmitCommitInput {
  const now = ctx.clock.now();
  return {
    workspaceId: source.workspaceId,
    componentId: source.id,
    now,
    ...(strategy === undefined ? {} : { dedupe: strategy }),
    events: emits.map(({ event, json, meta }) => {
      const input: EventInput = { channel: channelOf(meta), ts: meta.ts ?? now, body: event ?? null };
      // The sandbox's own text: stored and POSTed as the component wrote it.
      if (json !== undefined) input.json = json;
      if (meta.summary !== undefined) input.summary = meta.summary;
      if (meta.id !== undefined) input.eventId = String(meta.id);
      return input;
    }),
  };
}

/**
 * The emit pipeline (see the module comment): screens, orders and stores (deduped) one invocation's
 * emits together with its log lines (`logs`, written in the same store step: `store.emits.commitRun`,
 * one round trip on SQL with or without lines), and says what was stored and what was refused.
 * Refusals are logged after the run's lines; a dedupe error (an emit without `id` under a strategy:
 * no event of the run is stored) is written to the source's logs with the run's lines. @internal
 */
export async function storeEmits(
  ctx: EngineContext,
  source: SourceRef,
  description: ComponentDescription,
  emits: InvocationResult["emits"],
  logs: InvocationResult["logs"] = [],
): Promise<EmitOutcome> {
  if (emits.length === 0 && logs.length === 0) return { stored: [], refused: NONE };
  // 1. Caps and metadata rules; the refusals' lines follow the run's own.
  const screened = screenEmits(ctx.limits, emits);
  const now = ctx.clock.now();
  const lines = [
    ...logs,
    ...screened.lines.map((message) => ({ level: "error" as const, message, ts: now })),
  ];
  // 2. `ts` ordering.
  const ordered = orderEmits(screened.accepted);
  // 3. Dedupe, events and deliveries, and the lines, atomically (the store decides dedupe under its lock).
  let committed: RunCommitted;
  try {
    committed = await ctx.store.emits.commitRun({
      ...commitInput(ctx, source, description.dedupe, ordered),
      logs: lines,
    });
  } catch (error) {
    const refused = error instanceof HooklineError && error.code.startsWith("dedupe_");
    // The lines are kept whatever happened to the events (a refused commit wrote none of them).
    const why = refused
      ? [{ level: "error" as const, message: `${error.message}: no event of this run was stored`, ts: now }]
      : [];
    const written = writeLogs(ctx, source.workspaceId, source.id, [...lines, ...why]);
    if (!refused) {
      await written.catch(() => undefined);
      throw error;
    }
    await written;
    return { stored: [], refused: screened.refused };
  }
  const appended = committed.events;
  if (appended.length > 0) ctx.retention.touch(source.id);
  announceLogs(ctx, source.workspaceId, source.id, committed.logs);
  // 4. Observers and the delivery worker.
  for (const { deliveryIds, ...event } of appended) {
    ctx.notify("emit", { workspaceId: source.workspaceId, sourceId: source.id, event, deliveryIds });
  }
  if (appended.some((e) => e.deliveryIds.length > 0)) ctx.wakeWorker();
  return {
    stored: appended.map(({ deliveryIds: _ignored, ...event }) => event),
    refused: screened.refused,
  };
}
