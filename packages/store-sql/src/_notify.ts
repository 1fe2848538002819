/**
 * Store notifications over Postgres `LISTEN`/`NOTIFY` (internal to the SQL store).
 *
 * Writers add `pg_notify(channel, payload)` to the transaction that makes the change, so the notice
 * is sent on commit and never for a rollback. Payloads are small JSON objects carrying ids only
 * (Postgres limits them to 8000 bytes):
 *
 * - `{"o":origin,"t":"d"}`: deliveries became due.
 * - `{"o":origin,"t":"e","w":workspaceId,"c":emitterId,"r":[[lo,hi],...],"d":1}`: events with `seq`
 *   in those ranges were appended (`d`: with deliveries).
 * - `{"o":origin,"t":"l","w":workspaceId,"c":componentId,"r":[[lo,hi]]}`: log lines were appended.
 *
 * `o` is the writing store instance, so a listener tells its own changes (`local`) from others'. Ids
 * (`w`, `c`) are encoded as the store encodes text (`encodeText`), so that any id round-trips.
 * One listening connection per store is opened while it has subscribers; a lost connection is
 * re-opened with exponential backoff, and a `resync` notice tells subscribers to poll.
 */
import { randomBytes } from "node:crypto";
import type { StoreNotice, StoreNotifications } from "@hookline/store";
import { decodeText, encodeText } from "@hookline/store/adapter";
import type { SqlClient, SqlListener } from "./clients.js";

/** Largest payload sent, in bytes, below Postgres's 8000-byte limit. */
export const MAX_PAYLOAD_BYTES = 7_900;
/** Default first delay before re-opening a lost listening connection: 250 ms. */
export const DEFAULT_RECONNECT_MIN_MS = 250;
/** Default longest delay between two attempts to re-open it: 30 s. */
export const DEFAULT_RECONNECT_MAX_MS = 30_000;
/** A range announced by a logs notice that is wider than this is dropped (never expected). */
const MAX_RANGE = 100_000;

/** Tuning of the notifications of the SQL store. */
export interface NotifyOptions {
  /** The channel; `hookline_<schema>` by default. */
  channel?: string;
  /** First delay before re-opening a lost listening connection (doubles up to `reconnectMaxMs`). */
  reconnectMinMs?: number;
  /** Longest delay between two attempts to re-open it. */
  reconnectMaxMs?: number;
  /** Called with errors of the listening connection (a loss, a failed reconnect); ignored by default. */
  onError?: (error: unknown) => void;
}

/** The notifications of one SQL store, and what its writers need to send them. */
export interface SqlNotifier extends StoreNotifications {
  /** The channel. */
  readonly channel: string;
  /** This store instance's origin id. */
  readonly origin: string;
  /** The payload of a "deliveries are due" notice. */
  duePayload(): string;
  /**
   * Payloads announcing events (`seqs` ascending), each within {@link MAX_PAYLOAD_BYTES}; `d` (with
   * `withDeliveries`) when some of their deliveries became due.
   */
  eventPayloads(workspaceId: string, emitterId: string, seqs: number[], withDeliveries: boolean): string[];
  /**
   * The JSON text of an events notice up to its ranges (`{"o":...,"t":"e","w":...,"c":...,"r":`), for
   * a statement to append the ranges and `}` itself; undefined when the ids are too long to announce
   * (use {@link SqlNotifier.eventPayloads}).
   */
  eventPayloadHead(workspaceId: string, emitterId: string, withDeliveries: boolean): string | undefined;
  /** Payloads announcing appended log lines (`seqs` ascending), each within {@link MAX_PAYLOAD_BYTES}. */
  logPayloads(workspaceId: string, componentId: string, seqs: number[]): string[];
  /**
   * The same head as {@link SqlNotifier.eventPayloadHead} for appended log lines
   * (`{"o":...,"t":"l","w":...,"c":...,"r":`); undefined when the ids are too long to announce.
   */
  logPayloadHead(workspaceId: string, componentId: string): string | undefined;
  /**
   * Whether a notice written now may reach another store instance: false while this is the only
   * instance over a database that no other process opens (PGlite, {@link SqlClient.storeOrigins}),
   * where writers leave their notices out.
   */
  heard(): boolean;
  /** Stops listening; later subscriptions get nothing. */
  close(): Promise<void>;
}

/** Turns a schema name into a channel name that needs no quoting anywhere (at most 63 bytes). */
export function channelFor(schema: string): string {
  return `hookline_${schema.toLowerCase().replace(/[^a-z0-9_]/g, "_")}`.slice(0, 63);
}

/** Compresses ascending numbers into `[lo, hi]` runs of consecutive values. */
export function toRanges(seqs: number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const seq of seqs) {
    const last = ranges[ranges.length - 1];
    if (last && seq === last[1] + 1) last[1] = seq;
    else ranges.push([seq, seq]);
  }
  return ranges;
}

function expand(ranges: unknown): number[] | undefined {
  if (!Array.isArray(ranges)) return undefined;
  const seqs: number[] = [];
  for (const range of ranges) {
    if (!Array.isArray(range)) return undefined;
    const lo = Number(range[0]);
    const hi = Number(range[1]);
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo || hi - lo > MAX_RANGE) {
      return undefined;
    }
    for (let seq = lo; seq <= hi; seq++) seqs.push(seq);
  }
  return seqs;
}

/** The notices a payload carries (none when it is not one of ours). */
export function decodePayload(payload: string, origin: string): StoreNotice[] {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return [];
  }
  if (typeof message !== "object" || message === null) return [];
  const local = message.o === origin;
  // Ids travel as the store writes text (see encodeText): decoded here.
  const w = typeof message.w === "string" ? decodeText(message.w) : undefined;
  const c = typeof message.c === "string" ? decodeText(message.c) : undefined;
  switch (message.t) {
    case "d":
      return [{ kind: "deliveries", local }];
    case "e": {
      const seqs = expand(message.r);
      if (typeof w !== "string" || typeof c !== "string" || !seqs) return [];
      const notices: StoreNotice[] = [{ kind: "events", local, workspaceId: w, emitterId: c, seqs }];
      if (message.d) notices.push({ kind: "deliveries", local });
      return notices;
    }
    case "l": {
      const seqs = expand(message.r);
      if (typeof w !== "string" || typeof c !== "string" || !seqs) return [];
      return [{ kind: "logs", local, workspaceId: w, componentId: c, seqs }];
    }
    default:
      return [];
  }
}

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * Payloads of `head` with the ranges of `seqs` (ascending) in chunks, each within
 * {@link MAX_PAYLOAD_BYTES}; undefined when `head` alone leaves no room.
 */
function chunked(head: Record<string, unknown>, seqs: number[]): string[] | undefined {
  const empty = bytes(JSON.stringify({ ...head, r: [] }));
  if (empty > MAX_PAYLOAD_BYTES - 40) return undefined;
  const payloads: string[] = [];
  let chunk: [number, number][] = [];
  let size = empty;
  for (const range of toRanges(seqs)) {
    const cost = JSON.stringify(range).length + 1;
    if (chunk.length > 0 && size + cost > MAX_PAYLOAD_BYTES) {
      payloads.push(JSON.stringify({ ...head, r: chunk }));
      chunk = [];
      size = empty;
    }
    chunk.push(range);
    size += cost;
  }
  if (chunk.length > 0) payloads.push(JSON.stringify({ ...head, r: chunk }));
  return payloads;
}

/**
 * Creates the notifier of one SQL store on `client`'s `listen` (subscribers get nothing when the
 * client has none; writers still send, for other processes).
 */
export function createNotifier(client: SqlClient, channel: string, options: NotifyOptions = {}): SqlNotifier {
  const origin = randomBytes(6).toString("hex");
  const peers = client.storeOrigins;
  peers?.add(origin);
  const minMs = options.reconnectMinMs ?? DEFAULT_RECONNECT_MIN_MS;
  const maxMs = Math.max(minMs, options.reconnectMaxMs ?? DEFAULT_RECONNECT_MAX_MS);
  const report = (error: unknown): void => {
    try {
      options.onError?.(error);
    } catch {
      // A failing error handler changes nothing.
    }
  };
  const listeners = new Set<(notice: StoreNotice) => void>();
  let listener: SqlListener | undefined;
  /** Bumped on every start and stop: a connection attempt of an older generation closes itself. */
  let generation = 0;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let closed = false;

  const dispatch = (notice: StoreNotice): void => {
    for (const fn of [...listeners]) {
      try {
        fn(notice);
      } catch {
        // A listener's error never reaches the connection.
      }
    }
  };

  const schedule = (gen: number, afterLoss: boolean): void => {
    if (gen !== generation || closed) return;
    const delay = Math.min(maxMs, minMs * 2 ** Math.min(failures, 20));
    failures++;
    // Jitter of +-20 %, so that many nodes losing Postgres at once do not reconnect in lockstep.
    const jittered = Math.round(delay * (0.8 + 0.4 * Math.random()));
    retry = setTimeout(() => {
      retry = undefined;
      void connect(gen, afterLoss);
    }, jittered);
    retry.unref?.();
  };

  const connect = async (gen: number, afterLoss: boolean): Promise<void> => {
    const listen = client.listen;
    if (!listen) return;
    let opened: SqlListener;
    try {
      opened = await listen.call(
        client,
        channel,
        (payload) => {
          if (gen !== generation) return;
          for (const notice of decodePayload(payload, origin)) dispatch(notice);
        },
        (error) => {
          if (gen !== generation) return;
          listener = undefined;
          report(error);
          // Notices sent from now until the connection is back are lost: workers keep polling meanwhile.
          schedule(gen, true);
        },
      );
    } catch (error) {
      report(error);
      // Whatever was sent while no connection listened is lost: resync once one does.
      schedule(gen, true);
      return;
    }
    if (gen !== generation) {
      await opened.close().catch(() => undefined);
      return;
    }
    listener = opened;
    failures = 0;
    if (afterLoss) dispatch({ kind: "resync", local: false });
  };

  const stop = async (): Promise<void> => {
    generation++;
    clearTimeout(retry);
    retry = undefined;
    failures = 0;
    const current = listener;
    listener = undefined;
    if (current) await current.close().catch(report);
  };

  return {
    channel,
    origin,
    subscribe(fn) {
      const own = (notice: StoreNotice) => fn(notice);
      listeners.add(own);
      if (listeners.size === 1 && !closed && client.listen) {
        generation++;
        void connect(generation, false);
      }
      return () => {
        if (!listeners.delete(own)) return;
        if (listeners.size === 0) void stop();
      };
    },
    duePayload() {
      return JSON.stringify({ o: origin, t: "d" });
    },
    eventPayloadHead(workspaceId, emitterId, withDeliveries) {
      const whole = JSON.stringify({
        o: origin,
        t: "e",
        w: encodeText(workspaceId),
        c: encodeText(emitterId),
        ...(withDeliveries ? { d: 1 } : {}),
        r: [],
      });
      // Room for the ranges the statement appends (MAX_SQL_NOTICE_EVENTS of them at most).
      if (bytes(whole) > MAX_PAYLOAD_BYTES / 2) return undefined;
      return whole.slice(0, -"[]}".length);
    },
    logPayloadHead(workspaceId, componentId) {
      const whole = JSON.stringify({
        o: origin,
        t: "l",
        w: encodeText(workspaceId),
        c: encodeText(componentId),
        r: [],
      });
      if (bytes(whole) > MAX_PAYLOAD_BYTES / 2) return undefined;
      return whole.slice(0, -"[]}".length);
    },
    eventPayloads(workspaceId, emitterId, seqs, withDeliveries) {
      const head = {
        o: origin,
        t: "e",
        w: encodeText(workspaceId),
        c: encodeText(emitterId),
        ...(withDeliveries ? { d: 1 } : {}),
      };
      // Ids too long to announce (never with generated ids): still wake the workers.
      return chunked(head, seqs) ?? (withDeliveries ? [JSON.stringify({ o: origin, t: "d" })] : []);
    },
    logPayloads(workspaceId, componentId, seqs) {
      return (
        chunked({ o: origin, t: "l", w: encodeText(workspaceId), c: encodeText(componentId) }, seqs) ?? []
      );
    },
    heard: () => peers === undefined || peers.size > 1,
    async close() {
      closed = true;
      peers?.delete(origin);
      listeners.clear();
      await stop();
    },
  };
}
