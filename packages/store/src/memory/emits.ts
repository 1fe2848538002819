/** The atomic emit in memory: the dedupe decision, events and deliveries, all or nothing. */
import type { DeliveryTarget } from "../adapter/channels.js";
import { subscriptionFilter, targetsOf } from "../adapter/channels.js";
import { decideDedupe } from "../adapter/dedupe.js";
import { newDelivery, newEvents } from "../adapter/rows.js";
import { bodyText, utf8Length } from "../adapter/text.js";
import type {
  AppendedEvent,
  EmitCommitInput,
  EmitStore,
  LogInput,
  LogLine,
  RunCommitted,
} from "../types/index.js";
import { copy, copyPlain } from "./copy.js";
import { announceLogLines, appendLogLines } from "./logs.js";
import type { MemoryState } from "./state.js";

/** The emitter's webhook subscriptions, oldest first (the listener must be a webhook of the workspace). */
function targetsFor(s: MemoryState, workspaceId: string, emitterId: string): DeliveryTarget[] {
  const targets: DeliveryTarget[] = [];
  for (const sub of s.subscriptions.values()) {
    if (sub.workspaceId !== workspaceId || sub.emitterId !== emitterId) continue;
    const hook = s.webhooks.get(sub.listenerId);
    if (hook?.workspaceId !== workspaceId) continue;
    const filter = subscriptionFilter(sub.filter);
    targets.push({
      eventName: sub.eventName,
      webhookId: hook.id,
      active: hook.active,
      ...(filter ? { filter } : {}),
    });
  }
  return targets;
}

/**
 * The emits of a memory store. A commit writes its parts in order, recording how to undo each write;
 * a failure anywhere (an injected fault, a value that cannot be copied) undoes them all.
 */
export function memoryEmits(s: MemoryState): EmitStore {
  const commit = (
    input: EmitCommitInput,
    now: number,
    undo: (() => void)[],
  ): { events: AppendedEvent[]; due: boolean } => {
    const { workspaceId, componentId } = input;
    let rows = newEvents(input, now);
    const texts = new Map(rows.map((row, i) => [row, input.events[i]?.json] as const));
    // Decided and written in this synchronous step: no other commit runs in between (the memory
    // store's lock), so two commits of the same ids keep each id once.
    const decided = input.dedupe ? decideDedupe(input.dedupe, s.dedupe.get(componentId), rows) : undefined;
    if (decided) rows = decided.kept;
    for (const row of rows) row.body = copy(row.body);
    const targets = targetsFor(s, workspaceId, componentId);

    s.faults?.before("dedupe");
    if (decided) {
      const had = s.dedupe.has(componentId);
      const previous = s.dedupe.get(componentId);
      s.dedupe.set(componentId, copy(decided.state));
      undo.push(() => (had ? s.dedupe.set(componentId, previous) : s.dedupe.delete(componentId)));
    }

    s.faults?.before("events");
    let emitted = s.eventsByEmitter.get(componentId);
    if (!emitted) {
      const created = new Set<string>();
      s.eventsByEmitter.set(componentId, created);
      emitted = created;
    }
    const byEmitter = emitted;
    for (const row of rows) {
      row.seq = s.nextSeq();
      s.events.set(row.id, row);
      byEmitter.add(row.id);
      // The emitter's own text, as the SQL stores keep it: its deliveries POST these bytes.
      const json = texts.get(row);
      const text = json === undefined ? null : bodyText({ body: row.body, json }, "body");
      if (text !== null) {
        s.eventTexts.set(row.id, text);
        s.eventBytes.set(row.id, utf8Length(text));
      }
      undo.push(() => {
        s.events.delete(row.id);
        s.eventBytes.delete(row.id);
        s.eventTexts.delete(row.id);
        byEmitter.delete(row.id);
      });
    }

    s.faults?.before("deliveries");
    let due = false;
    const events = rows.map((row) => {
      const deliveryIds: string[] = [];
      for (const target of targetsOf(targets, row.channel, row)) {
        const delivery = newDelivery(row, target, now);
        s.deliveries.set(delivery.id, delivery);
        s.setState(delivery, delivery.state);
        undo.push(() => {
          s.deliveries.delete(delivery.id);
          s.openDeliveries.delete(delivery.id);
        });
        // A due-heap entry of an undone row is dropped when popped (its row is gone).
        if (delivery.state === "pending") {
          s.due.push(delivery);
          due = true;
        }
        deliveryIds.push(delivery.id);
      }
      return { ...copyPlain(row), deliveryIds };
    });
    return { events, due };
  };

  /** Writes `input` (and `logs`) all or nothing, then announces what it wrote. */
  const commitAll = (input: EmitCommitInput, logs: LogInput[]): RunCommitted => {
    s.open();
    const now = input.now ?? s.clock();
    const undo: (() => void)[] = [];
    let result: { events: AppendedEvent[]; due: boolean };
    let lines: LogLine[];
    try {
      result = commit(input, now, undo);
      s.faults?.before("logs");
      lines = appendLogLines(s, input.workspaceId, input.componentId, logs, undo);
    } catch (error) {
      for (const step of undo.reverse()) step();
      throw error;
    }
    const { events, due } = result;
    if (events.length > 0) {
      const { workspaceId, componentId: emitterId } = input;
      s.announce({ kind: "events", local: true, workspaceId, emitterId, seqs: events.map((e) => e.seq) });
      if (due) s.announce({ kind: "deliveries", local: true });
    }
    announceLogLines(s, lines);
    return { events, logs: lines };
  };

  return {
    async commit(input) {
      return commitAll(input, []).events;
    },
    async commitRun(input) {
      return commitAll(input, input.logs);
    },
  };
}
