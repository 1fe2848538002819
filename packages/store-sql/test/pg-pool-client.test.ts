import type { Pool } from "pg";
import { describe, expect, it } from "vitest";
import { MAX_NAMED_STATEMENTS, NAMED_AFTER_RUNS } from "../src/_pg-statements.js";
import { pgPoolClient } from "../src/index.js";

/** What a fake pool's `query` received. */
interface Sent {
  text: string;
  name?: string;
  values?: unknown[];
  on: "pool" | "connection";
}

/**
 * A stand-in for `pg.Pool` that records each query (the real pool is driven against Postgres in
 * postgres.test.ts): `answer` decides each query's fate.
 */
function fakePool(answer: (sent: Sent) => Promise<unknown[]> = async () => []) {
  const sent: Sent[] = [];
  const run =
    (on: Sent["on"]) =>
    async (config: string | { text: string; name?: string; values?: unknown[] }, values?: unknown[]) => {
      const entry: Sent = typeof config === "string" ? { text: config, values, on } : { ...config, on };
      sent.push(entry);
      return { rows: await answer(entry) };
    };
  const pool = {
    options: {},
    query: run("pool"),
    connect: async () => ({ query: run("connection"), release: () => undefined }),
  };
  return { pool: pool as unknown as Pool, sent };
}

const stalePlan = () =>
  Object.assign(new Error("cached plan must not change result type"), { code: "0A000" });

describe("pgPoolClient: named statements", () => {
  it("names a statement with parameters from its third run on, and never one without", async () => {
    const { pool, sent } = fakePool();
    const client = pgPoolClient(pool, { listen: false });
    for (let i = 0; i < NAMED_AFTER_RUNS + 2; i++) await client.query("SELECT $1::int", [i]);
    for (let i = 0; i < 5; i++) await client.query("SELECT 1");
    const named = sent.filter((s) => s.text === "SELECT $1::int").map((s) => s.name);
    expect(named.slice(0, NAMED_AFTER_RUNS - 1)).toEqual([undefined, undefined]);
    const name = named[NAMED_AFTER_RUNS - 1];
    expect(name).toMatch(/^hookline_\d+$/);
    expect(named.slice(NAMED_AFTER_RUNS)).toEqual([name, name]);
    expect(sent.filter((s) => s.text === "SELECT 1").every((s) => s.name === undefined)).toBe(true);
    // The same name in a transaction (each connection prepares it once).
    await client.transaction!(async (tx) => tx.query("SELECT $1::int", [9]));
    expect(sent.find((s) => s.on === "connection" && s.text === "SELECT $1::int")?.name).toBe(name);
  });

  it("names at most MAX_NAMED_STATEMENTS texts; the rest run unnamed", async () => {
    const { pool, sent } = fakePool();
    const client = pgPoolClient(pool, { listen: false });
    const texts = Array.from({ length: MAX_NAMED_STATEMENTS + 20 }, (_, i) => `SELECT $1::int + ${i}`);
    for (const text of texts) for (let k = 0; k < NAMED_AFTER_RUNS; k++) await client.query(text, [k]);
    const names = new Set(sent.map((s) => s.name).filter((n) => n !== undefined));
    expect(names.size).toBe(MAX_NAMED_STATEMENTS);
    const last = sent.filter((s) => s.text === texts.at(-1));
    expect(last.every((s) => s.name === undefined)).toBe(true);
  });

  it("sends nothing named with prepare: false", async () => {
    const { pool, sent } = fakePool();
    const client = pgPoolClient(pool, { listen: false, prepare: false });
    for (let i = 0; i < 10; i++) await client.query("SELECT $1::int", [i]);
    expect(sent.every((s) => s.name === undefined)).toBe(true);
  });

  it("prepares a statement made stale by a schema change again under a new name", async () => {
    let refuse: string | undefined;
    const { pool, sent } = fakePool(async (s) => {
      if (s.name !== undefined && s.name === refuse) throw stalePlan();
      return [{ ok: true }];
    });
    const client = pgPoolClient(pool, { listen: false });
    const text = "SELECT * FROM t WHERE a = $1";
    for (let i = 0; i < NAMED_AFTER_RUNS; i++) await client.query(text, [i]);
    const first = sent.at(-1)?.name;
    refuse = first;
    // Outside a transaction: run again at once, under the new name.
    expect((await client.query(text, [1])).rows).toEqual([{ ok: true }]);
    const second = sent.at(-1)?.name;
    expect(second).toMatch(/^hookline_\d+$/);
    expect(second).not.toBe(first);
    // In a transaction the error stands (the transaction is aborted); the next run is renamed.
    refuse = second;
    await expect(client.transaction!(async (tx) => tx.query(text, [2]))).rejects.toThrow(/cached plan/);
    expect((await client.query(text, [3])).rows).toEqual([{ ok: true }]);
    expect(sent.at(-1)?.name).not.toBe(second);
  });
});

/**
 * A pool client over a fake pool that answers a statement starting with `HOLD` only when its
 * release (in `held`, in order) is called, and any other at once.
 */
function holdingClient() {
  const held: (() => void)[] = [];
  const { pool, sent } = fakePool(
    (s) =>
      new Promise((resolve) => {
        if (s.text.startsWith("HOLD")) held.push(() => resolve([]));
        else resolve([]);
      }),
  );
  const client = pgPoolClient(pool, { listen: false });
  const bg = client.background;
  if (!bg) throw new Error("no background client");
  return { client, bg, held, sent };
}

describe("pgPoolClient: delivery work yields to requests", () => {
  it("holds background statements back while a foreground one is in flight, yet never starves them", async () => {
    const { client, bg, held, sent } = holdingClient();
    const order: string[] = [];
    const fg = client.query("HOLD 1").then(() => order.push("fg"));
    const back = bg.query("SELECT 'bg'").then(() => order.push("bg"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent.map((s) => s.text)).toEqual(["HOLD 1"]);
    held.shift()?.();
    await Promise.all([fg, back]);
    expect(order).toEqual(["fg", "bg"]);

    // Requests' statements always in flight: a background transaction runs after three answers.
    const busy = Array.from({ length: 4 }, (_, i) => client.query(`HOLD ${i}`));
    const tx = bg.transaction!(async (t) => t.query("SELECT 'tx'"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent.some((s) => s.text === "SELECT 'tx'")).toBe(false);
    for (let i = 0; i < 3; i++) held.shift()?.();
    await tx;
    expect(sent.some((s) => s.text === "SELECT 'tx'")).toBe(true);
    for (const release of held.splice(0)) release();
    await Promise.all(busy);
  });

  it("counts a statement sent as the one before it is answered as in flight (a serial lane)", async () => {
    const { client, bg, held, sent } = holdingClient();
    // One statement at a time, each sent as soon as the one before is answered (as a group commit
    // sends its groups): never idle, though never two in flight.
    let stop = false;
    let answered = 0;
    const lane = (async () => {
      while (!stop) {
        await client.query(`HOLD ${answered}`);
        answered++;
      }
    })();
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    await pause();
    let ran = 0;
    const back = bg.query("SELECT 'bg'").then(() => {
      ran = answered;
    });
    for (let i = 0; i < 6 && ran === 0; i++) {
      held.shift()?.();
      await pause();
    }
    expect(ran).toBe(3);
    expect(sent.map((s) => s.text).indexOf("SELECT 'bg'")).toBeGreaterThanOrEqual(3);
    stop = true;
    held.shift()?.();
    await Promise.all([lane, back]);
  });

  it("has no background client with yieldBackground: false", () => {
    const { pool } = fakePool();
    expect(pgPoolClient(pool, { listen: false, yieldBackground: false }).background).toBeUndefined();
  });
});
