/**
 * The atomic emit in SQL: one statement writes the events and one delivery per matching
 * subscription (the transactional outbox) and sends its notices on commit; under a dedupe strategy,
 * the emitter's dedupe row is locked first and the kept events decided under that lock
 * (emit-batch.ts).
 */
import type {
  AppendedEvent,
  Delivery,
  EmitCommitInput,
  EmitStore,
  LogInput,
  LogLine,
  RunCommitted,
} from "@hookline/store";
import {
  bodyText,
  type DeliveryTarget,
  decideDedupe,
  newDelivery,
  newEvents,
  subscriptionFilter,
  targetsOf,
} from "@hookline/store/adapter";
import { addToBatch, type EmitPart, StaleTargetsError, TARGETS_FINGERPRINT } from "./emit-batch.js";
import type { GroupScope } from "./group-commit.js";
import { fromJson, optStr, str } from "./rows.js";
import type { CachedTargets, SqlContext } from "./sql-context.js";

/**
 * The emitter's webhook subscriptions, oldest first, with their fingerprint. No lock: the write
 * checks the fingerprint under one (emit-batch.ts).
 */
async function readTargets(c: SqlContext, workspaceId: string, emitterId: string): Promise<CachedTargets> {
  const rows = await c.run(
    `WITH t AS (
       SELECT s.ord, s.event_name, s.filter, w.id AS webhook_id, w.active
       FROM subscriptions s JOIN webhooks w ON w.id = s.listener_id
       WHERE s.workspace_id = $1 AND s.emitter_id = $2 AND w.workspace_id = $1
     )
     SELECT t.*, (SELECT ${TARGETS_FINGERPRINT} FROM t) AS fingerprint
     FROM (SELECT 1) AS one LEFT JOIN t ON true
     ORDER BY t.ord`,
    [workspaceId, emitterId],
  );
  const targets = rows
    .filter((row) => row.webhook_id != null)
    .map((row): DeliveryTarget => {
      const filter = subscriptionFilter(fromJson(row.filter) as Record<string, unknown> | undefined);
      return {
        eventName: optStr(row.event_name) ?? null,
        webhookId: str(row.webhook_id),
        active: row.active === true || row.active === "t",
        ...(filter ? { filter } : {}),
      };
    });
  return { targets, fingerprint: str(rows[0]?.fingerprint ?? "none") };
}

/** The key of an emitter's targets in the store's cache. */
const targetsKey = (workspaceId: string, emitterId: string) => `${workspaceId}\u0000${emitterId}`;

/** The emitter's targets from the store's cache, read when missing. */
async function cachedTargets(c: SqlContext, workspaceId: string, emitterId: string): Promise<CachedTargets> {
  const key = targetsKey(workspaceId, emitterId);
  const known = c.targets.get(key);
  if (known) return known;
  const read = await readTargets(c, workspaceId, emitterId);
  c.targets.set(key, read);
  return read;
}

/** One invocation's commit, checked and ready to write. */
interface Prepared {
  workspaceId: string;
  componentId: string;
  now: number;
  rows: ReturnType<typeof newEvents>;
  bodies: (string | null | undefined)[];
  strategy: EmitCommitInput["dedupe"];
  /** The run's log lines (`commitRun`), their `seq` set once written. */
  logs: LogLine[];
}

/** Checks what can be refused before any transaction starts. */
function prepare(c: SqlContext, input: EmitCommitInput, lines: LogInput[]): Prepared {
  const now = input.now ?? c.clock();
  // The emitter's own JSON text when it has one (kept byte for byte), else the body's.
  const bodies = input.events.map((event, i) => bodyText(event, `events[${i}].body`));
  // The ids a strategy needs are checked now (the decision itself is made under lock, emit-batch.ts).
  if (input.dedupe) decideDedupe(input.dedupe, undefined, input.events);
  const rows = newEvents(input, now);
  rows.forEach((row, i) => {
    // What a read gives back: the parse of the stored text (the caller's parse of its own text).
    const text = bodies[i];
    if (input.events[i]?.json === text) return;
    row.body = text === null || text === undefined ? undefined : JSON.parse(text);
  });
  const { workspaceId, componentId, dedupe: strategy } = input;
  const logs = lines.map(
    ({ level, message, ts }): LogLine => ({ seq: 0, workspaceId, componentId, level, message, ts }),
  );
  return { workspaceId, componentId, now, rows, bodies, strategy, logs };
}

/**
 * Adds one prepared commit to the batch of the group whose scope is `scope` (see emit-batch.ts):
 * its deliveries are computed from `targets` here, and the rows are written with those of the whole
 * group at its end, each returned event's `seq` set then.
 */
function write(scope: GroupScope, c: SqlContext, input: Prepared, known: CachedTargets): EmitPart {
  const { workspaceId, componentId, now, rows, bodies, strategy, logs } = input;
  const deliveries: Delivery[] = [];
  const events = rows.map((row): AppendedEvent => {
    const mine = targetsOf(known.targets, row.channel, row).map((target) => newDelivery(row, target, now));
    deliveries.push(...mine);
    return { ...row, deliveryIds: mine.map((delivery) => delivery.id) };
  });
  const part: EmitPart = {
    workspaceId,
    componentId,
    now,
    // A part of log lines only locks no dedupe state.
    strategy: rows.length === 0 ? undefined : strategy,
    events,
    bodies,
    deliveries,
    fingerprint: rows.length === 0 ? undefined : known.fingerprint,
    logs,
  };
  addToBatch(c, scope, part);
  return part;
}

/** Tries of a commit whose subscriptions changed under it (each reads them again). */
const STALE_TRIES = 5;

/**
 * The emits of a SQL store (with a run's log lines, `commitRun`, in the same statement). An emit reads its emitter's subscriptions from a cache (read once, then
 * kept), and its rows go through the store's group commit (see group-commit.ts): the emits of
 * concurrent invocations are written by one statement, which checks under a lock that the
 * subscriptions are still those the deliveries were computed from and otherwise writes nothing (the
 * commit then reads them again and tries once more). Each caller is answered once its own events
 * are committed.
 */
export function sqlEmits(c: SqlContext): EmitStore {
  /** Writes one invocation's events (and log lines) through the group commit. */
  async function commitAll(input: EmitCommitInput, lines: LogInput[]): Promise<RunCommitted> {
    c.open();
    // Everything that can be refused is checked before the transaction starts.
    const prepared = prepare(c, input, lines);
    if (prepared.rows.length === 0 && prepared.logs.length === 0) return { events: [], logs: [] };
    const { workspaceId, componentId } = prepared;
    for (let tries = 1; ; tries++) {
      const known =
        prepared.rows.length === 0
          ? { targets: [], fingerprint: "none" }
          : await cachedTargets(c, workspaceId, componentId);
      try {
        // The part's events are the kept ones once its group is written (emit-batch.ts decides).
        const part = await c.grouped(async (_tx, scope) => write(scope, c, prepared, known), {
          batchOnly: true,
        });
        return { events: part.events, logs: part.logs };
      } catch (error) {
        if (!(error instanceof StaleTargetsError) || tries >= STALE_TRIES) throw error;
        c.targets.delete(targetsKey(workspaceId, componentId));
      }
    }
  }
  return {
    async commit(input) {
      return (await commitAll(input, [])).events;
    },
    commitRun: (input) => commitAll(input, input.logs),
  };
}
