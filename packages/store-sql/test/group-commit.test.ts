import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { createSqlStore, pgliteClient, type SqlClient } from "../src/index.js";

/** PGlite's client, counting transactions; a statement whose parameters hold "poison" fails. */
function countingClient(db: PGlite) {
  const inner = pgliteClient(db);
  const counts = { transactions: 0 };
  const poisoned = (params?: unknown[]) =>
    (params ?? []).some((p) => typeof p === "string" && p.includes("poison"));
  const client: SqlClient = {
    query: (text, params) => inner.query(text, params),
    transaction(fn) {
      counts.transactions++;
      return (inner.transaction as NonNullable<SqlClient["transaction"]>)((tx) =>
        fn({
          query(text, params) {
            if (poisoned(params)) return Promise.reject(new Error("poisoned statement"));
            return tx.query(text, params);
          },
        }),
      );
    },
  };
  return { client, counts };
}

describe("group commit (PGlite)", () => {
  it("writes the emits of concurrent callers in shared transactions, each caller getting its own events", async () => {
    const db = await PGlite.create();
    try {
      const { client, counts } = countingClient(db);
      const store = await createSqlStore(client);
      const ws = await store.workspaces.create({ name: "group" });
      const webhook = await store.webhooks.create({
        workspaceId: ws.id,
        url: "http://127.0.0.1:9/hook",
        active: true,
        secrets: [{ value: "x", createdAt: 1 }],
      });
      await store.subscriptions.create({ workspaceId: ws.id, emitterId: "dc_1", listenerId: webhook.id });
      const before = counts.transactions;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.emits.commit({
            workspaceId: ws.id,
            componentId: "dc_1",
            events: [{ channel: "default", ts: i, body: { i } }],
          }),
        ),
      );
      // The first commit runs alone; the 19 queued behind it share the next transaction(s).
      expect(counts.transactions - before).toBeLessThan(20);
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
    const db = await PGlite.create();
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
});
