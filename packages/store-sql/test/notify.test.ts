import type { PGlite } from "@electric-sql/pglite";
import type { StoreNotice } from "@hookline/store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { channelFor, createNotifier, decodePayload, MAX_PAYLOAD_BYTES, toRanges } from "../src/_notify.js";
import { createSqlStore, pgliteClient, type SqlClient, type SqlListener } from "../src/index.js";
import { freshPglite } from "./fresh-pglite.js";
import { subscribedWebhook } from "./subscribed-webhook.js";

const until = async (predicate: () => boolean, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe("notification payloads", () => {
  it("compress seqs into ranges and stay under the NOTIFY limit, however many", () => {
    expect(toRanges([1, 2, 3, 7, 9, 10])).toEqual([
      [1, 3],
      [7, 7],
      [9, 10],
    ]);
    const notifier = createNotifier({ query: async () => ({ rows: [] }) }, "hookline_test");
    // every other number: no run compresses, so the ranges need several payloads
    const seqs = Array.from({ length: 3_000 }, (_, i) => 1_000_000_000 + 2 * i);
    const payloads = notifier.eventPayloads("ws_1", "dc_1", seqs, true);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    const notices = payloads.flatMap((payload) => decodePayload(payload, "someone-else"));
    expect(notices.flatMap((n) => (n.kind === "events" ? n.seqs : []))).toEqual(seqs);
    expect(notices.every((n) => !n.local)).toBe(true);
    expect(notices.filter((n) => n.kind === "deliveries")).toHaveLength(payloads.length);
    expect(decodePayload(notifier.duePayload(), notifier.origin)).toEqual([
      { kind: "deliveries", local: true },
    ]);
    // never one of ours: ignored
    for (const junk of ["", "not json", "null", "[]", '{"t":"e","r":[[5,1]]}', '{"t":"x"}']) {
      expect(decodePayload(junk, notifier.origin)).toEqual([]);
    }
    expect(channelFor("Tenant-A.1")).toBe("hookline_tenant_a_1");
    expect(channelFor("x".repeat(100))).toHaveLength(63);
  });
});

describe("a lost LISTEN connection", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.spyOn(Math, "random").mockReturnValue(0.5);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("is re-opened with growing backoff, then subscribers get a resync notice", async () => {
    const attempts: number[] = [];
    let failuresLeft = 3;
    let deliver: ((payload: string) => void) | undefined;
    let lose: ((error: unknown) => void) | undefined;
    let open = 0;
    const client: SqlClient = {
      query: async () => ({ rows: [] }),
      async listen(_channel, onNotify, onLost): Promise<SqlListener> {
        attempts.push(Date.now());
        if (failuresLeft-- > 0) throw new Error("connection refused");
        deliver = onNotify;
        // a broken connection is closed by the client before it reports the loss
        lose = (error) => {
          open--;
          onLost(error);
        };
        open++;
        return {
          async close() {
            open--;
          },
        };
      },
    };
    const errors: unknown[] = [];
    const notifier = createNotifier(client, "hookline_test", {
      reconnectMinMs: 20,
      reconnectMaxMs: 200,
      onError: (error) => errors.push(error),
    });
    const notices: StoreNotice[] = [];
    const unsubscribe = notifier.subscribe((notice) => notices.push(notice));
    // the first attempt and three failed ones, 20, 40 and 80 ms apart on the fake clock (no
    // jitter: Math.random() is 0.5), then connected
    const tick = (ms: number) => vi.advanceTimersByTimeAsync(ms);
    await tick(0);
    for (const [gap, before] of [
      [20, 1],
      [40, 2],
      [80, 3],
    ] as const) {
      await tick(gap - 1);
      expect(attempts).toHaveLength(before);
      await tick(1);
      expect(attempts).toHaveLength(before + 1);
    }
    expect(open).toBe(1);
    expect(attempts.map((at) => at - (attempts[0] as number))).toEqual([0, 20, 60, 140]);
    expect(errors).toHaveLength(3);
    expect(notices).toEqual([{ kind: "resync", local: false }]);

    deliver?.(notifier.duePayload());
    expect(notices.at(-1)).toEqual({ kind: "deliveries", local: true });

    // the connection breaks: reconnected after the (reset) minimum delay, and a resync notice
    notices.length = 0;
    lose?.(new Error("terminating connection due to administrator command"));
    await tick(19);
    expect([attempts.length, open, notices]).toEqual([4, 0, []]);
    await tick(1);
    expect(notices).toEqual([{ kind: "resync", local: false }]);
    expect(attempts).toHaveLength(5);
    expect(open).toBe(1);

    // the last unsubscribe closes the connection; a new subscriber opens one again
    unsubscribe();
    await tick(0);
    expect(open).toBe(0);
    const again = notifier.subscribe(() => undefined);
    await tick(0);
    expect(open).toBe(1);
    await notifier.close();
    expect(open).toBe(0);
    again();
  });
});

describe("notifications between two stores on one PGlite", () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await freshPglite();
  }, 30_000);
  afterAll(async () => {
    await db.close();
  });

  it("a change made through one store reaches the other's subscribers as not local", async () => {
    const a = await createSqlStore(pgliteClient(db));
    const b = await createSqlStore(pgliteClient(db));
    const off = await createSqlStore(pgliteClient(db), { notifications: false });
    expect(off.notifications).toBeUndefined();
    const seen: StoreNotice[] = [];
    const unsubscribe = a.notifications?.subscribe((notice) => seen.push(notice));
    const { ws } = await subscribedWebhook(b, "dc_1", "n");
    const events = await b.emits.commit({
      workspaceId: ws.id,
      componentId: "dc_1",
      events: [{ channel: "default", ts: 1, body: {} }],
    });
    const lines = await b.logs.append(ws.id, "dc_1", [{ level: "info", message: "hi", ts: 1 }]);
    await until(() => seen.some((n) => n.kind === "logs"));
    expect(seen).toEqual([
      { kind: "events", local: false, workspaceId: ws.id, emitterId: "dc_1", seqs: [events[0]?.seq] },
      { kind: "deliveries", local: false },
      { kind: "logs", local: false, workspaceId: ws.id, componentId: "dc_1", seqs: [lines[0]?.seq] },
    ]);
    // a store with notifications off sends none either
    seen.length = 0;
    await off.emits.commit({
      workspaceId: ws.id,
      componentId: "dc_1",
      events: [{ channel: "default", ts: 2, body: {} }],
    });
    await a.logs.append(ws.id, "dc_1", [{ level: "info", message: "marker", ts: 2 }]);
    await until(() => seen.length > 0);
    expect(seen.map((n) => n.kind)).toEqual(["logs"]);
    expect(seen[0]?.local).toBe(true);
    unsubscribe?.();
    await Promise.all([a.close(), b.close(), off.close()]);
  });

  it("a lone store writes no notices: they start when a second store opens and stop when it closes", async () => {
    const channel = "hl_lone_test";
    const raw: { t: string; r: [number, number][] }[] = [];
    // A LISTEN of its own on the database, outside any store: it hears every notice written.
    const unlisten = await db.listen(channel, (payload) => raw.push(JSON.parse(payload)));
    const a = await createSqlStore(pgliteClient(db), { notifications: { channel } });
    const ws = await a.workspaces.create({ name: "lone" });
    const emit = async (ts: number) =>
      (
        await a.emits.commit({
          workspaceId: ws.id,
          componentId: "dc_lone",
          events: [{ channel: "default", ts, body: { ts } }],
        })
      )[0]?.seq;
    const append = async (message: string) =>
      (await a.logs.append(ws.id, "dc_lone", [{ level: "info", message, ts: 1 }]))[0]?.seq;
    const seqsOf = (t: string) => raw.filter((n) => n.t === t).flatMap((n) => n.r.flat());

    await emit(1);
    await append("alone");
    await a.emits.commitRun({
      workspaceId: ws.id,
      componentId: "dc_lone",
      events: [{ channel: "default", ts: 2, body: {} }],
      logs: [{ level: "info", message: "alone too", ts: 2 }],
    });
    const b = await createSqlStore(pgliteClient(db), { notifications: { channel } });
    const heard = await emit(3);
    const heardLine = await append("heard");
    await until(() => seqsOf("l").length > 0);
    // Notices arrive in commit order: the lone writes', had there been any, would be here first.
    expect(seqsOf("e")).toEqual([heard, heard]);
    expect(seqsOf("l")).toEqual([heardLine, heardLine]);

    await b.close();
    raw.length = 0;
    await emit(4);
    const c = await createSqlStore(pgliteClient(db), { notifications: { channel } });
    const again = await emit(5);
    await until(() => seqsOf("e").length > 0);
    expect(seqsOf("e")).toEqual([again, again]);
    await unlisten();
    await Promise.all([a.close(), c.close()]);
  });

  it("announces every event of a group: small commits by the write itself, a large one afterwards", async () => {
    const a = await createSqlStore(pgliteClient(db));
    const b = await createSqlStore(pgliteClient(db));
    const seen: StoreNotice[] = [];
    const unsubscribe = a.notifications?.subscribe((notice) => seen.push(notice));
    const ws = await b.workspaces.create({ name: "many" });
    const commit = (componentId: string, n: number) =>
      b.emits.commit({
        workspaceId: ws.id,
        componentId,
        events: Array.from({ length: n }, (_, i) => ({ channel: "default", ts: i, body: { i } })),
      });
    // The first holds the connection; the next three share a group (MAX_SQL_NOTICE_EVENTS is 100).
    const first = commit("dc_a", 1);
    const [small, large, other] = await Promise.all([
      commit("dc_a", 3),
      commit("dc_b", 250),
      commit("dc_a", 2),
    ]);
    await first;
    const expected = new Map<string, number[]>([
      ["dc_a", [...(await first), ...(small ?? []), ...(other ?? [])].map((e) => e.seq)],
      ["dc_b", (large ?? []).map((e) => e.seq)],
    ]);
    const announced = () => {
      const got = new Map<string, number[]>();
      for (const n of seen)
        if (n.kind === "events") got.set(n.emitterId, [...(got.get(n.emitterId) ?? []), ...n.seqs]);
      return got;
    };
    await until(() => announced().get("dc_b")?.length === 250 && announced().get("dc_a")?.length === 6);
    for (const [emitter, seqs] of expected) {
      expect([...(announced().get(emitter) ?? [])].sort((x, y) => x - y)).toEqual(
        [...seqs].sort((x, y) => x - y),
      );
    }
    expect(seen.every((n) => !n.local)).toBe(true);
    unsubscribe?.();
    await Promise.all([a.close(), b.close()]);
  });
});
