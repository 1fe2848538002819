import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFaultPlan, runStoreConformance } from "@hookline/store/testing";
import * as threadEntry from "@hookline/store-sql/pglite-thread";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlStore, openPgliteThread, type PgliteThread, type SqlClient } from "../src/index.js";
import { faultyClient } from "./faulty-client.js";
import { subscribedWebhook } from "./subscribed-webhook.js";

// PGlite on its own thread, as `pd serve` opens it: the whole conformance suite, then what the
// thread adds (its statements are prepared once and kept; errors cross the thread with their code).
const threads: PgliteThread[] = [];
const open = async (dir?: string) => {
  const db = await openPgliteThread(dir);
  threads.push(db);
  return db;
};
afterAll(async () => {
  for (const db of threads) await db.close();
});

const faults = createFaultPlan();
let shared: PgliteThread | undefined;
runStoreConformance(
  "pglite on a thread",
  async () => {
    shared = await open();
    return createSqlStore(faultyClient(shared, faults));
  },
  {
    timeout: 30_000,
    notifications: "others",
    faultInjection: faults,
    workflows: true,
    multiProcess: () => createSqlStore(shared as PgliteThread),
  },
);

describe("PGlite on a thread", () => {
  let db: PgliteThread;
  beforeAll(async () => {
    db = await open();
  }, 30_000);

  it("takes the emits' next group while one is written (never more than two), the outcomes' one at a time", async () => {
    const thread = await open();
    const most = { emits: 0, outcomes: 0 };
    const inFlight = { emits: 0, outcomes: 0 };
    // Counts the statements of one kind sent through `inner` and not yet answered.
    const counting = (inner: SqlClient, kind: "emits" | "outcomes", marker: string): SqlClient => ({
      ...inner,
      async pipeline(statements, options) {
        const ours = statements.some((s) => s.text.includes(marker));
        if (ours) most[kind] = Math.max(most[kind], ++inFlight[kind]);
        try {
          return await inner.pipeline!(statements, options);
        } finally {
          if (ours) inFlight[kind]--;
        }
      },
    });
    const counted: SqlClient = {
      ...counting(thread, "emits", "INSERT INTO events"),
      background: counting(thread.background!, "outcomes", "INSERT INTO attempts"),
    };
    const store = await createSqlStore(counted);
    const { ws } = await subscribedWebhook(store, "dc_groups");
    const appended = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.emits.commit({
          workspaceId: ws.id,
          componentId: "dc_groups",
          events: [{ channel: "default", ts: i, body: { i } }],
        }),
      ),
    );
    expect(most.emits).toBe(2);
    const seqs = appended.map((events) => events[0]?.seq ?? 0);
    expect(new Set(seqs).size).toBe(40);
    const stored = await store.events.list(ws.id, "dc_groups", { limit: 100 });
    expect(stored.items.map((e) => e.seq).sort((a, b) => a - b)).toEqual([...seqs].sort((a, b) => a - b));

    const now = Date.now();
    const claimed = await store.queue.deliveries.claim({ owner: "w", now, leaseMs: 60_000, limit: 40 });
    expect(claimed).toHaveLength(40);
    const done = await Promise.all(
      claimed.map((row) =>
        store.queue.deliveries.complete(row.id, "w", {
          state: "succeeded",
          status: 200,
          at: now,
          attempt: { deliveryId: row.id, workspaceId: ws.id, at: now, status: 200, durationMs: 1 },
        }),
      ),
    );
    expect(done.every(Boolean)).toBe(true);
    expect(most.outcomes).toBe(1);
    await store.close();
  });

  it("keeps a Postgres error's code and message, and the transaction's work is all or nothing", async () => {
    await db.query("CREATE TABLE t (id text PRIMARY KEY, n integer)");
    await db.query("INSERT INTO t VALUES ($1, $2)", ["a", 1]);
    const duplicate = await db.query("INSERT INTO t VALUES ($1, $2)", ["a", 2]).catch((e: unknown) => e);
    expect(duplicate).toMatchObject({ code: "23505" });
    expect((duplicate as Error).message).toContain("duplicate key");
    const failed = await db.transaction!(async (tx) => {
      await tx.query("INSERT INTO t VALUES ($1, $2)", ["b", 1]);
      await tx.query("INSERT INTO t VALUES ($1, $2)", ["a", 3]);
    }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "23505" });
    const committed = await db.transaction!(async (tx) => {
      await tx.query("INSERT INTO t VALUES ($1, $2)", ["c", 1]);
      return (await tx.query("SELECT count(*)::int AS n FROM t")).rows[0]?.n;
    });
    expect(committed).toBe(2);
    expect((await db.query("SELECT id FROM t ORDER BY id")).rows).toEqual([{ id: "a" }, { id: "c" }]);
  });

  it("pipelines statements: the rows of each in order; the first failure stops the rest", async () => {
    await db.query("CREATE TABLE p (id text PRIMARY KEY)");
    const results = await db.transaction!(async (tx) =>
      tx.pipeline!([
        { text: "INSERT INTO p VALUES ($1), ($2)", params: ["a", "b"] },
        { text: "SELECT id FROM p ORDER BY id" },
        { text: "SELECT count(*)::int AS n FROM p WHERE id = $1", params: ["b"] },
      ]),
    );
    expect(results.map((r) => r.rows)).toEqual([[], [{ id: "a" }, { id: "b" }], [{ n: 1 }]]);
    const failed = await db.transaction!(async (tx) =>
      tx.pipeline!([
        { text: "INSERT INTO p VALUES ($1)", params: ["c"] },
        { text: "INSERT INTO p VALUES ($1)", params: ["a"] },
        { text: "INSERT INTO p VALUES ($1)", params: ["d"] },
      ]),
    ).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "23505" });
    expect((await db.query("SELECT id FROM p ORDER BY id")).rows).toEqual([{ id: "a" }, { id: "b" }]);
  });

  it("commits a transaction with its last pipeline; nothing may follow; a failure there rolls back", async () => {
    await db.query("CREATE TABLE pc (id text PRIMARY KEY)");
    const after = await db.transaction!(async (tx) => {
      await tx.pipeline!([{ text: "INSERT INTO pc VALUES ($1)", params: ["a"] }], { commit: true });
      return tx.query("SELECT 1").catch((e: unknown) => e);
    });
    expect((after as Error).message).toContain("committed");
    expect((await db.query("SELECT id FROM pc")).rows).toEqual([{ id: "a" }]);
    const failed = await db.transaction!(async (tx) => {
      await tx.query("INSERT INTO pc VALUES ($1)", ["b"]);
      await tx.pipeline!([{ text: "INSERT INTO pc VALUES ($1)", params: ["a"] }], { commit: true });
    }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "23505" });
    expect((await db.query("SELECT id FROM pc ORDER BY id")).rows).toEqual([{ id: "a" }]);
    // The database is free again for the next transaction.
    await db.transaction!(async (tx) => tx.query("INSERT INTO pc VALUES ($1)", ["c"]));
    expect((await db.query("SELECT count(*)::int AS n FROM pc")).rows).toEqual([{ n: 2 }]);
  });

  it("makes statements outside a transaction wait for its end", async () => {
    await db.query("CREATE TABLE q (n integer)");
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tx = db.transaction!(async (t) => {
      await t.query("INSERT INTO q VALUES (1)");
      await held;
      await t.query("INSERT INTO q VALUES (2)");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Sees neither row of the open transaction (it runs after its COMMIT, and then sees both).
    const outside = db.query("SELECT count(*)::int AS n FROM q");
    release();
    await tx;
    expect((await outside).rows[0]?.n).toBe(2);
  });

  it("holds background work back while foreground statements are in flight, yet never starves it", async () => {
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => order.push(name));
    const bg = db.background as NonNullable<PgliteThread["background"]>;
    // The first holds the database for 100 ms; everything else is sent meanwhile.
    const all = [track("bg0", bg.query("SELECT pg_sleep(0.1)"))];
    await new Promise((resolve) => setTimeout(resolve, 20));
    all.push(track("bg1", bg.query("SELECT 1")), track("bg2", bg.query("SELECT 2")));
    for (let i = 1; i <= 3; i++) all.push(track(`fg${i}`, db.query("SELECT $1::int", [i])));
    await Promise.all(all);
    expect(order).toEqual(["bg0", "fg1", "fg2", "fg3", "bg1", "bg2"]);

    // Foreground statements always in flight: a background one still runs after three answers.
    let stop = false;
    let answered = 0;
    const busy = async () => {
      while (!stop) {
        await db.query("SELECT 1");
        answered++;
      }
    };
    const loops = [busy(), busy()];
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = answered;
    await bg.transaction!(async (tx) => expect((await tx.query("SELECT 7 AS n")).rows).toEqual([{ n: 7 }]));
    const waitedFor = answered - before;
    stop = true;
    await Promise.all(loops);
    expect(waitedFor).toBeLessThanOrEqual(3 + 2);
  });

  it("runs more distinct statements than it keeps prepared, and a changed table's statement again", async () => {
    for (let i = 0; i < 300; i++) {
      expect((await db.query(`SELECT $1::int + ${i} AS n`, [1])).rows[0]?.n).toBe(i + 1);
    }
    await db.query("CREATE TABLE c (a integer)");
    await db.query("INSERT INTO c VALUES (1)");
    expect((await db.query("SELECT * FROM c")).rows).toEqual([{ a: 1 }]);
    await db.query("ALTER TABLE c ADD COLUMN b text DEFAULT 'x'");
    expect((await db.query("SELECT * FROM c")).rows).toEqual([{ a: 1, b: "x" }]);
  });

  // The folder is locked as openPglite locks it (the same lockDataDir, data-dir-lock.test.ts).
  it("keeps what it wrote in its data folder after a restart; one opener at a time", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "hl-thread-")), "pglite");
    try {
      // The small entry `pd serve` starts the thread from, before loading the rest of the store.
      const first = await threadEntry.openPgliteThread(dir);
      await expect(threadEntry.openPgliteThread(dir)).rejects.toBeInstanceOf(threadEntry.DataDirLockedError);
      const store = await createSqlStore(first);
      const ws = await store.workspaces.create({ name: "kept" });
      await store.close();
      await first.close();
      expect(first.closed).toBe(true);
      const again = await openPgliteThread(dir);
      const reopened = await createSqlStore(again);
      expect((await reopened.workspaces.get(ws.id))?.name).toBe("kept");
      await reopened.close();
      await again.close();
    } finally {
      rmSync(join(dir, ".."), { recursive: true, force: true });
    }
  }, 60_000);
});
