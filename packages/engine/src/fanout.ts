/**
 * The cross-node fan-out of events and logs: when several engines share one store (nodes on one
 * Postgres), each one's observers (the SSE streams) must also see what the others store. The store's
 * notifications carry ids only (`seq` numbers); this reads the rows back from the store and emits
 * them on the engine's own `emit` and `log` events, marked `remote`.
 */
import type { LogLine, Store, StoredEvent, StoreNotice } from "@hookline/store";
import type { Emitter } from "mitt";
import type { HooklineEvents } from "./events.js";

/** A running fan-out; {@link Fanout.close} stops it. */
export interface Fanout {
  /** Unsubscribes and waits for the reads under way. */
  close(): Promise<void>;
}

const PAGE = 100;

/** Reads the emitter's events with these seqs, oldest first (pages are newest first). */
async function readEvents(store: Store, notice: StoreNotice & { kind: "events" }): Promise<StoredEvent[]> {
  const wanted = new Set(notice.seqs);
  const lo = Math.min(...notice.seqs);
  const hi = Math.max(...notice.seqs);
  const found: StoredEvent[] = [];
  let before = String(hi + 1);
  for (;;) {
    const page = await store.events.list(notice.workspaceId, notice.emitterId, {
      after: String(lo - 1),
      before,
      limit: PAGE,
    });
    for (const event of page.items) if (wanted.has(event.seq)) found.push(event);
    if (!page.nextCursor || page.items.length === 0) break;
    before = page.nextCursor;
  }
  return found.sort((a, b) => a.seq - b.seq);
}

/** Reads the component's log lines with these seqs, oldest first. */
async function readLogs(store: Store, notice: StoreNotice & { kind: "logs" }): Promise<LogLine[]> {
  const wanted = new Set(notice.seqs);
  const hi = Math.max(...notice.seqs);
  const found: LogLine[] = [];
  let after = String(Math.min(...notice.seqs) - 1);
  for (;;) {
    const page = await store.logs.list(notice.workspaceId, notice.componentId, { after, limit: PAGE });
    for (const line of page.items) if (wanted.has(line.seq)) found.push(line);
    const last = page.items[page.items.length - 1];
    if (!page.nextCursor || !last || last.seq >= hi) break;
    after = page.nextCursor;
  }
  return found;
}

/**
 * Starts the fan-out of `store`'s notifications to `events`: events and log lines stored through
 * another store instance (another node) are read back and emitted as `emit` (with `deliveryIds`
 * empty) and `log`, with `remote: true`. Nothing is read while no one listens to that type, and
 * notices of this instance's own writes are ignored (the engine emitted those already). Notices
 * are handled one at a time, in order. A store without notifications makes this a no-op.
 *
 * @param store - The engine's store.
 * @param events - The engine's event emitter.
 * @returns The fan-out, to close with the engine.
 * @internal
 */
export function startFanout(store: Store, events: Emitter<HooklineEvents>): Fanout {
  const notifications = store.notifications;
  if (!notifications) return { close: async () => undefined };
  const listened = (type: "emit" | "log"): boolean =>
    (events.all.get(type)?.length ?? 0) > 0 || (events.all.get("*")?.length ?? 0) > 0;
  const emit = <K extends "emit" | "log">(type: K, payload: HooklineEvents[K]): void => {
    try {
      events.emit(type, payload);
    } catch {
      // An observer's error never stops the fan-out.
    }
  };
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  const enqueue = (work: () => Promise<void>): void => {
    chain = chain.then(() => (closed ? undefined : work())).catch(() => undefined);
  };

  const unsubscribe = notifications.subscribe((notice) => {
    if (notice.local || closed) return;
    if (notice.kind === "events" && notice.seqs.length > 0 && listened("emit")) {
      enqueue(async () => {
        for (const event of await readEvents(store, notice)) {
          emit("emit", {
            workspaceId: notice.workspaceId,
            sourceId: notice.emitterId,
            event,
            deliveryIds: [],
            remote: true,
          });
        }
      });
    } else if (notice.kind === "logs" && notice.seqs.length > 0 && listened("log")) {
      enqueue(async () => {
        const lines = await readLogs(store, notice);
        if (lines.length > 0) {
          emit("log", { workspaceId: notice.workspaceId, sourceId: notice.componentId, lines, remote: true });
        }
      });
    }
  });

  return {
    async close() {
      closed = true;
      unsubscribe();
      await chain;
    },
  };
}
