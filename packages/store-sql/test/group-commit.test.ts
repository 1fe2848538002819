import type { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { createSqlStore, pgliteClient, type SqlClient } from "../src/index.js";
import { freshPglite } from "./fresh-pglite.js";
import { subscribedWebhook } from "./subscribed-webhook.js";

/**
 * PGlite's client, counting transactions and the statements of each kind inside them; a statement
 * whose parameters (or the arrays among them) hold "poison" fails.
 */
function countingClient(db: PGlite) {
  const inner = pgliteClient(db);
  const counts = { transactions: 0, statements: new Map<string, number>() };
  const poisoned = (params?: unknown[]): boolean =>
    (params ?? []).some((p) =>
      Array.isArray(p) ? poisoned(p) : typeof p === "string" && p.includes("poison"),
    );
  const kind = (text: string) =>
    /INSERT INTO events\b/.test(text)
      ? "emit write"
      : (/^\s*(INSERT INTO \w+|SELECT pg_notify)/.exec(text)?.[1] ?? "other");
  const counted =
    (query: SqlClient["query"]): SqlClient["query"] =>
    (text, params) => {
      counts.statements.set(kind(text), (counts.statements.get(kind(text)) ?? 0) + 1);
      if (poisoned(params)) return Promise.reject(new Error("poisoned statement"));
      return query(text, params);
    };
  const client: SqlClient = {
    // A group of emits alone is one statement, sent without a transaction.
    query: counted((text, params) => inner.query(text, params)),
    singleConnection: true,
    transaction(fn) {
      counts.transactions++;
      return (inner.transaction as NonNullable<SqlClient["transaction"]>)((tx) =>
        fn({ query: counted((text, params) => tx.query(text, params)) }),
      );
    },
  };
  return { client, counts };
}

describe("group commit (PGlite)", () => {
  it("writes the emits of concurrent callers in shared transactions, each caller getting its own events", async () => {
    const db = await freshPglite();
    try {
      const { client, counts } = countingClient(db);
      const store = await createSqlStore(client);
      const { ws } = await subscribedWebhook(store, "dc_1", "group", [{ value: "x", createdAt: 1 }]);
      const before = counts.transactions;
      const writesBefore = counts.statements.get("emit write") ?? 0;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.emits.commit({
            workspaceId: ws.id,
            componentId: "dc_1",
            events: [{ channel: "default", ts: i, body: { i } }],
          }),
        ),
      );
      // The first commit runs alone; the 19 queued behind it share the next statement(s).
      expect((counts.statements.get("emit write") ?? 0) - writesBefore).toBeLessThan(20);
      expect(counts.transactions - before).toBe(0);
      expect(results.map((events) => events.map((e) => e.body))).toEqual(
        Array.from({ length: 20 }, (_, i) => [{ i }]),
      );
      for (const [event] of results) expect(event?.deliveryIds).toHaveLength(1);
      const seqs = results.map(([event]) => event?.seq as number);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs); // arrival order
      expect((await store.events.list(ws.id, "dc_1", { limit: 100 })).items).toHaveLength(20);
      await store.close();
    } finally {
      await db.close();
    }
  }, 120_000);

  it("fails only the commit whose statement failed; the others of its group are written", async () => {
    const db = await freshPglite();
    try {
      const { client } = countingClient(db);
      const store = await createSqlStore(client);
      const ws = await store.workspaces.create({ name: "group" });
      const commit = (body: unknown, ts: number) =>
        store.emits.commit({
          workspaceId: ws.id,
          componentId: "dc_1",
          events: [{ channel: "default", ts, body }],
        });
      const settled = await Promise.allSettled([
        commit({ n: 0 }, 0),
        commit({ n: 1 }, 1),
        commit({ n: "poison" }, 2),
        commit({ n: 3 }, 3),
      ]);
      expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
      const stored = (await store.events.list(ws.id, "dc_1", { limit: 100 })).items.map((e) => e.body);
      expect(stored.sort((a, b) => (a as { n: number }).n - (b as { n: number }).n)).toEqual([
        { n: 0 },
        { n: 1 },
        { n: 3 },
      ]);
      await store.close();
    } finally {
      await db.close();
    }
  }, 120_000);

  it("writes a group's events, deliveries, dedupe states and notices with one statement (after one locking the dedupe rows); a failing caller fails alone", async () => {
    const db = await freshPglite();
    try {
      const { client, counts } = countingClient(db);
      const store = await createSqlStore(client);
      const ws = await store.workspaces.create({ name: "group" });
      const hooks = await Promise.all(
        ["a", "b"].map((name) =>
          store.webhooks.create({
            workspaceId: ws.id,
            url: `http://127.0.0.1:9/${name}`,
            active: true,
            secrets: [{ value: "x", createdAt: 1 }],
          }),
        ),
      );
      // The second webhook's filter, evaluated before the outbox row: only events with n >= 2.
      await store.subscriptions.create({
        workspaceId: ws.id,
        emitterId: "dc_1",
        listenerId: hooks[0]?.id as string,
      });
      await store.subscriptions.create({
        workspaceId: ws.id,
        emitterId: "dc_1",
        listenerId: hooks[1]?.id as string,
        filter: { "event.n": { $gte: 2 } },
      });
      await store.subscriptions.create({
        workspaceId: ws.id,
        emitterId: "dc_2",
        listenerId: hooks[0]?.id as string,
      });
      const commit = (componentId: string, n: number | string, dedupe?: "unique") =>
        store.emits.commit({
          workspaceId: ws.id,
          componentId,
          events: [
            { channel: "default", ts: 1, eventId: `${n}-a`, body: { n } },
            { channel: "default", ts: 2, eventId: `${n}-b`, body: { n, second: true } },
          ],
          ...(dedupe === undefined ? {} : { dedupe }),
        });
      // A first commit holds the connection, so the next ones queue and share a group.
      const first = commit("dc_1", -1);
      const batched = [
        commit("dc_1", 0, "unique"),
        commit("dc_2", 1),
        commit("dc_1", 2, "unique"),
        commit("dc_1", 0, "unique"), // the ids of the group's first caller: decided after it, kept none
      ];
      await first;
      counts.statements.clear();
      const ok = await Promise.all(batched);
      expect(counts.statements.get("emit write")).toBe(1);
      expect(counts.statements.get("INSERT INTO deliveries")).toBeUndefined();
      // The dedupe rows of the group's emitters are locked and read by one statement.
      expect(counts.statements.get("INSERT INTO dedupe")).toBe(1);
      expect(counts.statements.get("SELECT pg_notify")).toBeUndefined();
      expect(ok.map((events) => events.map((e) => e.deliveryIds.length))).toEqual([
        [1, 1],
        [1, 1],
        [2, 2],
        [],
      ]);
      const seqs = ok.flat().map((e) => e.seq);
      expect(seqs.every((seq) => seq > 0)).toBe(true);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs); // the callers' order, then each caller's
      expect(await store.dedupe.get("dc_1")).toEqual({ ids: ["0-a", "0-b", "2-a", "2-b"] });

      // One caller's refused event: the others of its group are written, with their deliveries.
      const second = commit("dc_1", 10);
      const settled = await Promise.allSettled([
        commit("dc_1", 11),
        commit("dc_2", "poison", "unique"),
        commit("dc_1", 13, "unique"),
      ]);
      await second;
      expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      const stored = (await store.events.list(ws.id, "dc_1", { limit: 100 })).items;
      expect(stored.filter((e) => [11, 13].includes((e.body as { n: number }).n))).toHaveLength(4);
      expect((await store.events.list(ws.id, "dc_2", { limit: 100 })).items).toHaveLength(2); // n=1 only
      expect(await store.dedupe.get("dc_1")).toEqual({ ids: ["0-a", "0-b", "2-a", "2-b", "13-a", "13-b"] });
      expect(await store.dedupe.get("dc_2")).toBeUndefined(); // its one commit with a strategy failed
      for (const result of settled)
        if (result.status === "fulfilled")
          for (const event of result.value)
            for (const id of event.deliveryIds)
              expect((await store.deliveries.get(ws.id, id))?.state).toBe("pending");
      await store.close();
    } finally {
      await db.close();
    }
  }, 120_000);
});
