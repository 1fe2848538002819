import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStore, type Store } from "@hookline/store";
import { createSqlStore, pgliteClient, pgPoolClient } from "@hookline/store-sql";
import { describe, expect, it } from "vitest";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";
import { loadPg } from "../../store-sql/test/load-pg.js";
import { createHookline } from "../src/index.js";

// Issue 14 item 4: a NUL character or a lone surrogate in what a source emits or logs lost the whole
// invocation on PGlite and Postgres (jsonb and text refuse them), while the memory store kept them.
// Every store now gives back exactly what was emitted.

const url = process.env.HOOKLINE_TEST_PG_URL;

/** The stores under test: memory, PGlite, and Postgres when HOOKLINE_TEST_PG_URL is set. */
const stores: [string, () => Promise<{ store: Store; close(): Promise<void> }>][] = [
  ["memory", async () => ({ store: createMemoryStore(), close: async () => undefined })],
  [
    "PGlite",
    async () => {
      const db = await freshPglite();
      const store = await createSqlStore(pgliteClient(db));
      return { store, close: () => db.close() };
    },
  ],
];
if (url) {
  stores.push([
    "Postgres",
    async () => {
      const pg = loadPg();
      const schema = `hl_text_${randomBytes(6).toString("hex")}`;
      const admin = new pg.Pool({ connectionString: url, max: 1 });
      await admin.query(`CREATE SCHEMA ${schema}`);
      const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
      const store = await createSqlStore(pgPoolClient(pool));
      return {
        store,
        async close() {
          await pool.end();
          await admin.query(`DROP SCHEMA ${schema} CASCADE`);
          await admin.end();
        },
      };
    },
  ]);
}

const SOURCE = `export default {
  name: "Odd text", version: "0.1.0", dedupe: "unique",
  run() {
    console.log("log \\u0000 and \\ud800 alone");
    this.$emit({ text: "a\\u0000b", lone: "\\udc00", pair: "\\ud83d\\ude00", "key\\u0000": 1 }, { id: "id\\u0000\\ud800", summary: "sum\\u0000\\udfff" });
    this.$emit({ plain: true }, { id: "plain" });
  },
};`;

const BYTES_SOURCE = `export default { name: "Bytes", version: "0.1.0",
  run() {
    this.$emit({ zeta: 1, "10": "ten", alpha: [1e21, 1.0, -0, 0.1, 1.5e-7, 2 ** 53 + 2],
      "\u00e9": "\u00e9\u2028\u0007\\"\\\\/", nested: { b: null, a: {} } });
  },
};`;
/** What the sandbox's JSON.stringify wrote for BYTES_SOURCE's event (integer keys first, as in JS). */
const EMITTED_BYTES =
  '{"10":"ten","zeta":1,"alpha":[1e+21,1,0,0.1,1.5e-7,9007199254740994],"\u00e9":"\u00e9\u2028\\u0007\\"\\\\/","nested":{"b":null,"a":{}}}';

describe.each(stores)("text a source emits and logs, on %s", (_name, open) => {
  it("comes back exactly as emitted, with the other events of the run", async () => {
    const { store, close } = await open();
    const hookline = createHookline({ store, secretsKey: "text-tests", worker: false });
    try {
      const ws = (await hookline.workspaces.create({ name: "text" })).id;
      const source = await hookline.sources.deploy(ws, { code: { code: SOURCE, filename: "odd.mjs" } });
      const run = await hookline.sources.run(ws, source.id);
      expect(run.error).toBeUndefined();
      const events = (await hookline.sources.events(ws, source.id)).items;
      expect(events.map((e) => e.body)).toEqual([
        { plain: true },
        { text: "a\u0000b", lone: "\udc00", pair: "\u{1F600}", "key\u0000": 1 },
      ]);
      expect(events[1]).toMatchObject({ eventId: "id\u0000\ud800", summary: "sum\u0000\udfff" });
      const logs = (await hookline.sources.logs(ws, source.id)).items.map((line) => line.message);
      expect(logs).toContain("log \u0000 and \ud800 alone");
      // Dedupe state holding such an id works too: the same run again stores nothing new.
      await hookline.sources.run(ws, source.id);
      expect((await hookline.sources.events(ws, source.id)).items).toHaveLength(2);
    } finally {
      await hookline.close();
      await store.close();
      await close();
    }
  }, 60_000);

  // Issue 30: the sandbox's JSON text of an event is what is stored and POSTed, byte for byte (a
  // store that wrote the body again, or kept it as Postgres jsonb, would reorder keys or respell).
  it("delivers the bytes the component emitted: key order, number spelling, escapes", async () => {
    const { store, close } = await open();
    const received: Buffer[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push(Buffer.concat(chunks));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hookline = createHookline({ store, secretsKey: "bytes", allowPrivateUrls: true });
    hookline.start();
    try {
      const ws = (await hookline.workspaces.create({ name: "bytes" })).id;
      const source = await hookline.sources.deploy(ws, {
        code: { code: BYTES_SOURCE, filename: "bytes.mjs" },
      });
      const port = (receiver.address() as AddressInfo).port;
      const webhook = await hookline.webhooks.create(ws, { url: `http://127.0.0.1:${port}/hook` });
      await hookline.subscriptions.create(ws, { emitterId: source.id, listenerId: webhook.id });
      expect((await hookline.sources.run(ws, source.id)).error).toBeUndefined();
      await expect.poll(() => received.length, { timeout: 20_000, interval: 20 }).toBe(1);
      expect((received[0] as Buffer).equals(Buffer.from(EMITTED_BYTES, "utf8"))).toBe(true);
      expect((received[0] as Buffer).toString("utf8")).toBe(EMITTED_BYTES);
    } finally {
      await hookline.close();
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
      await store.close();
      await close();
    }
  }, 60_000);
});
