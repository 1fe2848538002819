/**
 * The atomic emit in SQL: one transaction writes the dedupe state, the events and one delivery per
 * matching subscription (the transactional outbox), and sends its notices on commit.
 */
import type { AppendedEvent, Delivery, EmitCommitInput, EmitStore } from "@hookline/store";
import {
  type DeliveryTarget,
  newDelivery,
  newEvents,
  subscriptionFilter,
  targetsOf,
} from "@hookline/store/adapter";
import type { SqlClient } from "../clients.js";
import { chunkRows, placeholders, type SqlContext } from "./context.js";
import { fromJson, optStr, str, toJson } from "./rows.js";

const EVENT_COLUMNS = 9;
const DELIVERY_COLUMNS = 10;

/** The emitter's webhook subscriptions, oldest first, locked against a concurrent delete until commit. */
async function targetsFor(c: SqlContext, tx: SqlClient, workspaceId: string, emitterId: string) {
  const rows = await c.run(
    `SELECT s.event_name, s.filter, w.id AS webhook_id, w.active
     FROM subscriptions s JOIN webhooks w ON w.id = s.listener_id
     WHERE s.workspace_id = $1 AND s.emitter_id = $2 AND w.workspace_id = $1
     ORDER BY s.ord
     FOR SHARE OF w`,
    [workspaceId, emitterId],
    undefined,
    tx,
  );
  return rows.map((row): DeliveryTarget => {
    const filter = subscriptionFilter(fromJson(row.filter) as Record<string, unknown> | undefined);
    return {
      eventName: optStr(row.event_name) ?? null,
      webhookId: str(row.webhook_id),
      active: row.active === true || row.active === "t",
      ...(filter ? { filter } : {}),
    };
  });
}

/** One invocation's commit, checked and ready to write. */
interface Prepared {
  workspaceId: string;
  componentId: string;
  now: number;
  rows: ReturnType<typeof newEvents>;
  bodies: (string | null | undefined)[];
  dedupe: string | null | undefined;
}

/** Checks what can be refused before any transaction starts. */
function prepare(c: SqlContext, input: EmitCommitInput): Prepared {
  const now = input.now ?? c.clock();
  const bodies = input.events.map((event, i) => toJson(event.body, `events[${i}].body`));
  const dedupe = input.dedupeState === undefined ? undefined : toJson(input.dedupeState, "dedupeState");
  const rows = newEvents(input, now);
  rows.forEach((row, i) => {
    const text = bodies[i];
    row.body = text === null || text === undefined ? undefined : JSON.parse(text);
  });
  return { workspaceId: input.workspaceId, componentId: input.componentId, now, rows, bodies, dedupe };
}

/** Writes one prepared commit inside the transaction `tx`. */
async function write(c: SqlContext, tx: SqlClient, input: Prepared): Promise<AppendedEvent[]> {
  const { workspaceId, componentId, now, rows, bodies, dedupe } = input;
  if (dedupe !== undefined) {
    await c.run(
      `INSERT INTO dedupe (component_id, state) VALUES ($1, $2)
         ON CONFLICT (component_id) DO UPDATE SET state = excluded.state`,
      [componentId, dedupe],
      undefined,
      tx,
    );
  }
  if (rows.length === 0) return [];
  const targets = await targetsFor(c, tx, workspaceId, componentId);

  const chunk = chunkRows(EVENT_COLUMNS);
  for (let start = 0; start < rows.length; start += chunk) {
    const part = rows.slice(start, start + chunk);
    const params = part.flatMap((row, i) => [
      row.id,
      workspaceId,
      componentId,
      row.channel,
      row.summary ?? null,
      row.eventId ?? null,
      row.ts,
      bodies[start + i] ?? null,
      now,
    ]);
    const inserted = await c.run(
      `INSERT INTO events (id, workspace_id, emitter_id, channel, summary, event_id, ts, body, created_at)
         VALUES ${placeholders(part.length, EVENT_COLUMNS)} RETURNING id, seq`,
      params,
      undefined,
      tx,
    );
    const seqs = new Map(inserted.map((row) => [str(row.id), Number(row.seq)]));
    for (const row of part) row.seq = seqs.get(row.id) ?? 0;
  }

  const deliveries: Delivery[] = [];
  const events = rows.map((row): AppendedEvent => {
    const mine = targetsOf(targets, row.channel, row).map((target) => newDelivery(row, target, now));
    deliveries.push(...mine);
    return { ...row, deliveryIds: mine.map((delivery) => delivery.id) };
  });
  const deliveryChunk = chunkRows(DELIVERY_COLUMNS);
  for (let start = 0; start < deliveries.length; start += deliveryChunk) {
    const part = deliveries.slice(start, start + deliveryChunk);
    await c.run(
      `INSERT INTO deliveries
           (id, workspace_id, webhook_id, event_id, emitter_id, channel, state, next_attempt_at, created_at,
            updated_at)
         SELECT v.id, v.workspace_id, v.webhook_id, v.event_id, v.emitter_id, v.channel, v.state,
                v.next_attempt_at, v.created_at, v.updated_at
         FROM (VALUES ${placeholders(part.length, DELIVERY_COLUMNS, ["", "", "", "", "", "", "", "::bigint", "::bigint", "::bigint"])})
           AS v (id, workspace_id, webhook_id, event_id, emitter_id, channel, state, next_attempt_at, created_at,
                 updated_at)`,
      part.flatMap((d) => [
        d.id,
        d.workspaceId,
        d.webhookId,
        d.eventId,
        d.emitterId,
        d.channel,
        d.state,
        d.nextAttemptAt,
        d.createdAt,
        d.updatedAt,
      ]),
      undefined,
      tx,
    );
  }

  const due = deliveries.some((delivery) => delivery.state === "pending");
  if (c.notifier) {
    // Sent on commit, never for a rollback: listeners read committed rows.
    const seqs = events.map((row) => row.seq).sort((a, b) => a - b);
    const payloads = c.notifier.eventPayloads(workspaceId, componentId, seqs, due);
    if (payloads.length > 0) {
      await c.run(
        `SELECT ${payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(", ")}`,
        [c.notifier.channel, ...payloads],
        undefined,
        tx,
      );
    }
  }
  return events;
}

/**
 * The emits of a SQL store. Commits go through the store's group commit (see group-commit.ts): the
 * emits of concurrent invocations are written in one transaction, each caller answered once its
 * own events are committed.
 */
export function sqlEmits(c: SqlContext): EmitStore {
  return {
    async commit(input) {
      c.open();
      // Everything that can be refused is checked before the transaction starts.
      const prepared = prepare(c, input);
      if (prepared.rows.length === 0 && prepared.dedupe === undefined) return [];
      return c.grouped((tx) => write(c, tx, prepared));
    },
  };
}
