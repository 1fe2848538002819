import { createMemoryStore, type KvStore, type Store } from "@hookline/store";
import { createSqlStore, pgliteClient } from "@hookline/store-sql";
import { afterAll, describe, expect, it } from "vitest";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";
import { createHookline, type Hookline } from "../src/index.js";

// `$.service.db` is kept with a source's sandbox and read again only when its version moved on
// (decision 0400): a run reads the version, not the whole state, unless the state changed.

const COUNTER = `export default {
  name: "Counter", version: "0.1.0",
  props: { db: "$.service.db" },
  hooks: { async deploy() { this.db.set("from", "deploy"); } },
  async run() {
    const n = (this.db.get("n") ?? 0) + 1;
    this.db.set("n", n);
    this.db.set("filler", "x".repeat(100));
    if (n === 2) this.db.set("from", undefined);
    this.$emit({ n, from: this.db.get("from") ?? null });
  },
};`;

/** A store whose kv reads are counted: how many carried the whole state, and how many did not. */
function counted(store: Store) {
  const reads = { whole: 0, version: 0, writes: 0 };
  const kv: KvStore = {
    ...store.kv,
    async list(id) {
      reads.whole++;
      return store.kv.list(id);
    },
    async snapshot(id, known) {
      const read = await store.kv.snapshot(id, known);
      if (read.entries) reads.whole++;
      else reads.version++;
      return read;
    },
    async write(id, writes) {
      reads.writes++;
      return store.kv.write(id, writes);
    },
  };
  const wrapped = new Proxy(store, { get: (target, key) => (key === "kv" ? kv : Reflect.get(target, key)) });
  return { store: wrapped, reads };
}

const open = (store: Store): Hookline =>
  createHookline({ store, secretsKey: "db-test-key", baseUrl: "https://hooks.example.com", worker: false });

const stores: [string, () => Promise<{ store: Store; close(): Promise<void> }>][] = [
  ["memory", async () => ({ store: createMemoryStore(), close: async () => {} })],
  [
    "PGlite",
    async () => {
      const db = await freshPglite();
      const store = await createSqlStore(pgliteClient(db));
      return { store, close: () => db.close() };
    },
  ],
];

describe.each(stores)("$.service.db on %s", (_name, make) => {
  const opened: Hookline[] = [];
  let closeStore: () => Promise<void> = async () => {};
  afterAll(async () => {
    for (const h of opened) await h.close();
    await closeStore();
  });

  it("is read whole once per sandbox, then only its version; values persist across runs, nodes and restarts", async () => {
    const made = await make();
    closeStore = made.close;
    const { store, reads } = counted(made.store);
    const node = open(store);
    opened.push(node);
    const ws = (await node.workspaces.create({ name: "db" })).id;
    const source = await node.sources.deploy(ws, { code: { code: COUNTER, filename: "counter.mjs" } });
    const ns = async (h: Hookline) => (await h.sources.run(ws, source.id)).emitted.map((e) => e.body);

    Object.assign(reads, { whole: 0, version: 0, writes: 0 });
    expect(await ns(node)).toEqual([{ n: 1, from: "deploy" }]);
    expect(await ns(node)).toEqual([{ n: 2, from: null }]);
    expect(await ns(node)).toEqual([{ n: 3, from: null }]);
    // The first run reads the state; the next two only learn that it is the one they wrote.
    expect(reads).toMatchObject({ whole: 1, version: 2, writes: 3 });

    // Another node on the same store: it reads the state whole, and its write is seen here.
    const other = open(store);
    opened.push(other);
    expect(await ns(other)).toEqual([{ n: 4, from: null }]);
    expect(reads.whole).toBe(2);
    expect(await ns(node)).toEqual([{ n: 5, from: null }]);
    expect(reads.whole).toBe(3);
    expect(await ns(node)).toEqual([{ n: 6, from: null }]);
    expect(reads.whole).toBe(3);

    // A restart: a new engine on the store finds the values.
    await node.close();
    await other.close();
    const restarted = open(store);
    opened.push(restarted);
    expect(await ns(restarted)).toEqual([{ n: 7, from: null }]);
    expect(await made.store.kv.list(source.id)).toEqual([
      { key: "filler", value: "x".repeat(100) },
      { key: "n", value: 7 },
    ]);
  }, 120_000);
});
