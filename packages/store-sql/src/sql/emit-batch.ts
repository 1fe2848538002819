/**
 * The set-based write of a group commit's emits: each invocation of the group adds its events and
 * deliveries to the group's batch (in its scope), and one hook at the end of the group writes them
 * all with ONE statement, whatever the number of invocations: the dedupe states (upsert), every
 * event and every delivery (`INSERT ... SELECT FROM unnest` of one array per column, so the text is
 * the same whatever the group's size) and the notices announcing the events, built
 * by Postgres from the `seq` the INSERT gave them (`pg_notify` of a JSON head written here followed
 * by the ranges of seqs; left out while no other store instance can hear them, `SqlNotifier.heard`,
 * as for a lone store on PGlite). The same statement first locks the subscriptions of the group's
 * emitters (`FOR SHARE`, over a pool: on one connection nothing runs beside it) and checks that they
 * are still those the deliveries were computed from (a
 * fingerprint): otherwise it writes nothing and the callers read them again (emits.ts). One
 * statement, needing no transaction around it, is one round trip to Postgres and one exchange with
 * the PGlite thread, where six were before (BEGIN, the subscriptions, four writes, COMMIT).
 *
 * Dedupe is decided here, not by the caller: when a part's emitter has a strategy, the group is
 * written in a transaction whose first statement locks the dedupe rows of those emitters and reads
 * their state (one statement for all of them), then core's `applyDedupe` decides each part's events
 * in the batch's order, and the write statement stores the kept ones with the new states. Another
 * node's commit to the same emitter waits for the lock, so the same id is kept once across nodes.
 * A group without a strategy stays one statement.
 *
 * The run's log lines (`emits.commitRun`) go in the same statement, with their notices: a run that
 * logs costs no round trip more than one that does not.
 *
 * A part whose notice might not fit Postgres's 8000-byte payload (over {@link MAX_SQL_NOTICE_EVENTS}
 * events, or ids too long for the head) is announced afterwards, from JavaScript, in chunks.
 */
import type { DedupeStrategy } from "@hookline/core";
import type { AppendedEvent, Delivery, LogLine } from "@hookline/store";
import { decideDedupe } from "@hookline/store/adapter";
import type { SqlNotifier } from "../_notify.js";
import { atGroupEnd, type GroupScope, type GroupStatement } from "./group-commit.js";
import { fromJson, str, toJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

/** One invocation's part of the batch: its events (whose `seq` the batch fills in) and their deliveries. */
export interface EmitPart {
  workspaceId: string;
  componentId: string;
  now: number;
  /**
   * The emitter's dedupe strategy: which of `events` are kept is decided at the group's end, under
   * the lock of the emitter's dedupe row (see {@link addToBatch}); `events`, `bodies` and
   * `deliveries` then hold only the kept ones.
   */
  strategy: DedupeStrategy | undefined;
  events: AppendedEvent[];
  bodies: (string | null | undefined)[];
  deliveries: Delivery[];
  /** The fingerprint of the emitter's subscriptions the deliveries come from (none without events). */
  fingerprint: string | undefined;
  /**
   * The invocation's log lines (`emits.commitRun`), written by the same statement; each one's
   * `seq` is set once the group is written.
   */
  logs: LogLine[];
}

/**
 * Why a group's write wrote nothing: an emitter's subscriptions or webhooks changed since its
 * deliveries were computed (through another store instance or node). The commit reads them again.
 */
export class StaleTargetsError extends Error {
  constructor() {
    super("The subscriptions of an emitter changed while its events were being written");
    this.name = "StaleTargetsError";
  }
}

/**
 * The fingerprint of an emitter's subscriptions, over rows `ord, webhook_id, event_name, filter,
 * active` (oldest first): `none` when it has none. The write recomputes it, under a lock on those
 * rows, and writes nothing when it differs from the one the deliveries were computed from.
 */
export const TARGETS_FINGERPRINT = `coalesce(md5(json_agg(json_build_array(webhook_id, event_name, filter, active)
  ORDER BY ord)::text), 'none')`;

/** The scope key of the batch. */
const BATCH = "emits/batch";

/**
 * Events of one part announced by the write statement itself: their seqs form at most this many
 * ranges, which keeps the payload far below Postgres's limit.
 */
export const MAX_SQL_NOTICE_EVENTS = 100;

/**
 * Adds `part` to the batch of the group whose scope is `scope`; the batch is written at the end of
 * the group, before COMMIT, and the `seq` of each of `part.events` is set then (before the caller
 * is answered).
 */
export function addToBatch(c: SqlContext, scope: GroupScope, part: EmitPart): void {
  let parts = scope.get(BATCH) as EmitPart[] | undefined;
  if (!parts) {
    const all: EmitPart[] = [];
    parts = all;
    scope.set(BATCH, all);
    const locked = new Map<string, unknown>();
    // Whether the batch announces its rows, decided once for all its statements.
    let heard: SqlNotifier | undefined | null = null;
    const n = (): SqlNotifier | undefined => {
      if (heard === null) heard = c.notifier?.heard() ? c.notifier : undefined;
      return heard;
    };
    atGroupEnd(scope, BATCH, {
      locks: () => lockStatements(all, locked),
      writes: () => [writeStatement(c, n(), all, decide(all, locked))],
      hasAfter: () =>
        all.some((p) => (p.events.length > 0 && head(n(), p) === undefined) || laterLogs(n(), p)),
      after: () => laterNotices(n(), all),
    });
  }
  parts.push(part);
}

/**
 * The JSON text of a part's events notice up to its ranges (`{"o":...,"t":"e",...,"r":`), or
 * undefined when the part is announced afterwards (see the module comment) or nothing is announced.
 */
function head(notifier: SqlNotifier | undefined, part: EmitPart): string | null | undefined {
  if (!notifier) return null;
  if (part.events.length > MAX_SQL_NOTICE_EVENTS) return undefined;
  const due = part.deliveries.some((delivery) => delivery.state === "pending");
  return notifier.eventPayloadHead(part.workspaceId, part.componentId, due);
}

/**
 * Locks the dedupe rows of the batch's emitters that have a strategy and reads their state into
 * `locked`: one upsert that creates a missing row (so that a first emit locks too) and otherwise
 * locks the row, returning its latest committed state (`ON CONFLICT DO UPDATE` locks the row and
 * sees the newest version, whatever the statement's snapshot). Emitters in id order, so that two
 * groups lock the rows they share in the same order.
 */
function lockStatements(parts: EmitPart[], locked: Map<string, unknown>): GroupStatement[] {
  const ids = [...new Set(parts.filter((p) => p.strategy !== undefined).map((p) => p.componentId))].sort();
  if (ids.length === 0) return [];
  return [
    {
      text: `INSERT INTO dedupe (component_id, state)
         SELECT id, NULL FROM unnest($1::text[]) WITH ORDINALITY AS u (id, n) ORDER BY n
         ON CONFLICT (component_id) DO UPDATE SET state = dedupe.state
         RETURNING component_id, state`,
      params: [ids],
      onRows(rows) {
        for (const row of rows) locked.set(str(row.component_id), fromJson(row.state));
      },
    },
  ];
}

/**
 * The dedupe decision of each part with a strategy, in the batch's order (a later part of an emitter
 * is decided against the state an earlier one left), from the states `locked` read under lock: each
 * such part keeps only its kept events, their bodies and deliveries. Returns the JSON text of each
 * emitter's new state.
 */
function decide(parts: EmitPart[], locked: Map<string, unknown>): Map<string, string | null> {
  const states = new Map<string, unknown>(locked);
  for (const part of parts) {
    if (part.strategy === undefined) continue;
    const { kept, state } = decideDedupe(part.strategy, states.get(part.componentId), part.events);
    states.set(part.componentId, state);
    if (kept.length === part.events.length) continue;
    const keep = new Set(kept.map((event) => event.id));
    part.bodies = part.bodies.filter((_, i) => keep.has((part.events[i] as AppendedEvent).id));
    part.events = kept;
    part.deliveries = part.deliveries.filter((delivery) => keep.has(delivery.eventId));
  }
  const texts = new Map<string, string | null>();
  for (const id of locked.keys()) texts.set(id, toJson(states.get(id), "dedupe"));
  return texts;
}

/**
 * The head of a part's log notice (`{"o":...,"t":"l",...,"r":`), or null when its lines are not
 * announced (no notifier, no line, or ids too long for a notice: never with generated ids).
 */
function logHead(notifier: SqlNotifier | undefined, part: EmitPart): string | null {
  if (!notifier || part.logs.length === 0 || laterLogs(notifier, part)) return null;
  return notifier.logPayloadHead(part.workspaceId, part.componentId) ?? null;
}

/** Whether a part's log lines are announced afterwards, from JavaScript (as many events are). */
function laterLogs(notifier: SqlNotifier | undefined, part: EmitPart): boolean {
  return notifier !== undefined && part.logs.length > MAX_SQL_NOTICE_EVENTS;
}

/**
 * The CTEs announcing rows the write statement inserted, one notice per part: `rows` selects each
 * inserted row's `part` (1-based) and `seq`; `<prefix>islands` and `<prefix>ranges` cut a part's
 * seqs into consecutive ranges, and `<prefix>noted` sends, on the channel `$23`, for each part whose
 * head (the `text[]` parameter `heads`, by part) is not null, its head followed by its ranges
 * (`[[lo,hi],...]}`), and counts them. The events' notices and the log lines' are both built here.
 */
function noticeCtes(prefix: string, rows: string, heads: string): string {
  return `${prefix}islands AS (
         SELECT part, seq, seq - row_number() OVER (PARTITION BY part ORDER BY seq) AS island
         FROM (${rows}) AS inserted
       ), ${prefix}ranges AS (
         SELECT part, min(seq) AS lo, max(seq) AS hi FROM ${prefix}islands GROUP BY part, island
       ), ${prefix}noted AS (
         SELECT pg_notify($23, h.head || json_agg(json_build_array(r.lo, r.hi) ORDER BY r.lo)::text || '}')
         FROM ${prefix}ranges r JOIN unnest(${heads}::text[]) WITH ORDINALITY AS h (head, part) ON h.part = r.part
         WHERE h.head IS NOT NULL
         GROUP BY h.part, h.head
       )`;
}

/** The events' notices (`noted`), from the rows `ins` inserted (their parts in `v`); heads in `$24`. */
const EVENT_NOTICES = noticeCtes("", "SELECT v.part, i.seq FROM ins i JOIN v ON v.id = i.id", "$24");

/**
 * What a statement that announces nothing has in place of the notices: its notice parameters
 * (channel, heads) still need a type.
 */
const NO_NOTICES = `, quiet AS (SELECT $23::text AS channel, $24::text[] AS heads)`;

/**
 * The log lines of the batch: one INSERT of every part's lines in the batch's order (sequence
 * values are drawn in that order, so the n-th smallest `seq` is the n-th line), and (`announce`)
 * each part's notice of its seq ranges. Parameters from `$28` on.
 */
const logsSql = (announce: boolean): string => `, lg AS (
         SELECT * FROM unnest($28::text[], $29::text[], $30::text[], $31::text[], $32::bigint[], $33::integer[])
           WITH ORDINALITY AS lg (workspace_id, component_id, level, message, ts, part, ord)
       ), lins AS (
         INSERT INTO logs (workspace_id, component_id, level, message, ts)
         SELECT workspace_id, component_id, level, message, ts FROM lg WHERE (SELECT ok FROM ok) ORDER BY ord
         RETURNING seq
       ), ${
         announce
           ? `lseq AS (
         SELECT seq, row_number() OVER (ORDER BY seq) AS ord FROM lins
       ), ${noticeCtes("l", "SELECT lg.part, s.seq FROM lseq s JOIN lg ON lg.ord = s.ord", "$34")}`
           : "lquiet AS (SELECT $34::text[] AS heads)"
       }`;

/** What the statement returns about the log lines (their seqs, their notices sent). */
const logsReturned = (announce: boolean): string =>
  `, (SELECT array_agg(seq ORDER BY seq) FROM lins) AS log_seqs${announce ? ", (SELECT count(*) FROM lnoted) AS log_noted" : ""}`;

/** The parameters of {@link logsSql}. */
function logParams(notifier: SqlNotifier | undefined, parts: EmitPart[]): unknown[] {
  const lines = parts.flatMap((part, i) => part.logs.map((line) => ({ line, part: i + 1 })));
  return [
    lines.map(({ line }) => line.workspaceId),
    lines.map(({ line }) => line.componentId),
    lines.map(({ line }) => line.level),
    lines.map(({ line }) => line.message),
    lines.map(({ line }) => line.ts),
    lines.map(({ part }) => part),
    parts.map((part) => logHead(notifier, part)),
  ];
}

/** Sets each part's log lines' `seq` from the statement's `log_seqs` (ascending: the batch's order). */
function setLogSeqs(parts: EmitPart[], returned: unknown): void {
  const seqs = (Array.isArray(returned) ? returned : []).map(Number);
  let next = 0;
  for (const part of parts) for (const line of part.logs) line.seq = seqs[next++] ?? 0;
}

/** Each emitter's expected fingerprint (its parts computed their deliveries from the same one). */
function expectedFingerprints(
  parts: EmitPart[],
): { workspaceId: string; emitterId: string; fingerprint: string }[] {
  const expected = new Map<string, { workspaceId: string; emitterId: string; fingerprint: string }>();
  for (const part of parts) {
    if (part.fingerprint === undefined) continue;
    expected.set(`${part.workspaceId}\u0000${part.componentId}`, {
      workspaceId: part.workspaceId,
      emitterId: part.componentId,
      fingerprint: part.fingerprint,
    });
  }
  return [...expected.values()];
}

/** The write of the whole batch; sets each event's `seq` (in the batch's order), and each log line's. */
function writeStatement(
  c: SqlContext,
  notifier: SqlNotifier | undefined,
  parts: EmitPart[],
  states: Map<string, string | null>,
): GroupStatement {
  const events = parts.flatMap((part) => part.events);
  const partOf = parts.flatMap((part, i) => part.events.map(() => i + 1));
  const bodies = parts.flatMap((part) => part.bodies.map((body) => body ?? null));
  const createdAt = parts.flatMap((part) => part.events.map(() => part.now));
  const deliveries = parts.flatMap((part) => part.deliveries);
  // The heads of the parts announced here (null: announced later, or not at all).
  const heads = parts.map((part) => (part.events.length === 0 ? null : (head(notifier, part) ?? null)));
  const checks = expectedFingerprints(parts);
  // The log lines' part of the statement only when the group has lines (two texts, each kept hot).
  const logged = parts.some((part) => part.logs.length > 0);
  const announce = notifier !== undefined;
  return {
    text: `WITH e AS (
         SELECT * FROM unnest($25::text[], $26::text[], $27::text[]) AS e (workspace_id, emitter_id, fingerprint)
       ), locked AS (
         SELECT s.workspace_id, s.emitter_id, s.ord, w.id AS webhook_id, s.event_name, s.filter, w.active
         FROM subscriptions s JOIN webhooks w ON w.id = s.listener_id AND w.workspace_id = s.workspace_id
         WHERE (s.workspace_id, s.emitter_id) IN (SELECT workspace_id, emitter_id FROM e)
         ${c.client.singleConnection ? "" : "FOR SHARE OF s, w"}
       ), now_fp AS (
         SELECT workspace_id, emitter_id, ${TARGETS_FINGERPRINT} AS fingerprint
         FROM locked GROUP BY workspace_id, emitter_id
       ), ok AS (
         SELECT coalesce(bool_and(coalesce(n.fingerprint, 'none') = e.fingerprint), true) AS ok
         FROM e LEFT JOIN now_fp n ON n.workspace_id = e.workspace_id AND n.emitter_id = e.emitter_id
       ), v AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                              $7::bigint[], $8::text[], $9::bigint[], $10::integer[]) WITH ORDINALITY
           AS v (id, workspace_id, emitter_id, channel, summary, event_id, ts, body, created_at, part, ord)
       ), ins AS (
         INSERT INTO events (id, workspace_id, emitter_id, channel, summary, event_id, ts, body, created_at)
         SELECT id, workspace_id, emitter_id, channel, summary, event_id, ts, body, created_at FROM v
         WHERE (SELECT ok FROM ok) ORDER BY ord
         RETURNING id, seq
       ), dlv AS (
         INSERT INTO deliveries
           (id, workspace_id, webhook_id, event_id, emitter_id, channel, state, next_attempt_at, created_at, updated_at)
         SELECT * FROM unnest($11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
                              $17::text[], $18::bigint[], $19::bigint[], $20::bigint[])
         WHERE (SELECT ok FROM ok)
       ), ded AS (
         INSERT INTO dedupe (component_id, state)
         SELECT * FROM unnest($21::text[], $22::text[]) WHERE (SELECT ok FROM ok)
         ON CONFLICT (component_id) DO UPDATE SET state = excluded.state
       )${announce ? `, ${EVENT_NOTICES}` : NO_NOTICES}${logged ? logsSql(announce) : ""}
       SELECT i.id, i.seq, (SELECT ok FROM ok) AS ok${announce ? ", (SELECT count(*) FROM noted) AS noted" : ""}${logged ? logsReturned(announce) : ""}
       FROM (SELECT 1) AS one LEFT JOIN ins i ON true`,
    params: [
      events.map((e) => e.id),
      events.map((e) => e.workspaceId),
      events.map((e) => e.emitterId),
      events.map((e) => e.channel),
      events.map((e) => e.summary ?? null),
      events.map((e) => e.eventId ?? null),
      events.map((e) => e.ts),
      bodies,
      createdAt,
      partOf,
      deliveries.map((d) => d.id),
      deliveries.map((d) => d.workspaceId),
      deliveries.map((d) => d.webhookId),
      deliveries.map((d) => d.eventId),
      deliveries.map((d) => d.emitterId),
      deliveries.map((d) => d.channel),
      deliveries.map((d) => d.state),
      deliveries.map((d) => d.nextAttemptAt),
      deliveries.map((d) => d.createdAt),
      deliveries.map((d) => d.updatedAt),
      [...states.keys()],
      [...states.values()],
      notifier?.channel ?? "",
      heads,
      checks.map((x) => x.workspaceId),
      checks.map((x) => x.emitterId),
      checks.map((x) => x.fingerprint),
      ...(logged ? logParams(notifier, parts) : []),
    ],
    onRows(inserted) {
      if (inserted[0]?.ok === false || inserted[0]?.ok === "f") throw new StaleTargetsError();
      if (logged) setLogSeqs(parts, inserted[0]?.log_seqs);
      const seqs = new Map(
        inserted.filter((row) => row.id != null).map((row) => [str(row.id), Number(row.seq)]),
      );
      for (const event of events) event.seq = seqs.get(event.id) ?? 0;
    },
  };
}

/**
 * The notices of the parts the write statement did not announce (many events or log lines, long ids), from
 * JavaScript in chunks, sent on commit (never for a rollback); built after the write, whose `seq`
 * they name.
 */
function laterNotices(notifier: SqlNotifier | undefined, parts: EmitPart[]): GroupStatement[] {
  if (!notifier) return [];
  const payloads = parts.flatMap((part) => {
    if (part.events.length === 0 || head(notifier, part) !== undefined) return [];
    const seqs = part.events.map((event) => event.seq).sort((a, b) => a - b);
    const due = part.deliveries.some((delivery) => delivery.state === "pending");
    return notifier.eventPayloads(part.workspaceId, part.componentId, seqs, due);
  });
  for (const part of parts) {
    if (!laterLogs(notifier, part)) continue;
    const seqs = part.logs.map((line) => line.seq);
    payloads.push(...notifier.logPayloads(part.workspaceId, part.componentId, seqs));
  }
  if (payloads.length === 0) return [];
  return [
    { text: `SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, params: [notifier.channel, payloads] },
  ];
}
