import { randomBytes } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import { createHookline, type Hookline, type HooklineEvents } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import type { Store } from "@hookline/store";
import { createSqlStore, pgliteClient, pgPoolClient } from "@hookline/store-sql";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSse } from "../packages/http/test/_sse-reader.js";
import { freshPglite } from "../packages/store-sql/test/fresh-pglite.js";
import { loadPg } from "../packages/store-sql/test/load-pg.js";

// Two engines sharing one store database, as two nodes do: an SSE client of node A gets what
// node B stores, through the store's LISTEN/NOTIFY and the engine's fan-out. On one in-process
// PGlite always; on Postgres too when HOOKLINE_TEST_PG_URL is set.
const url = process.env.HOOKLINE_TEST_PG_URL;

const SOURCE = `export default { name: "Relay", version: "0.1.0", props: { http: "$.interface.http" },
  run(e) { console.log("got " + e.body.n); this.$emit(e.body, { summary: "n=" + e.body.n }); } };`;

const until = async (predicate: () => boolean, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Opens an SSE stream on a fetch handler and parses it with eventsource-parser. */
async function openStream(handler: (request: Request) => Promise<Response>, path: string, key: string) {
  const controller = new AbortController();
  const res = await handler(
    new Request(`http://node-a.test${path}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal,
    }),
  );
  expect(res.status).toBe(200);
  return readSse(res, controller);
}

interface Backend {
  name: string;
  /** Two stores on one database, one per node. */
  open(): Promise<[Store, Store]>;
  close(): Promise<void>;
}

const backends: Backend[] = [];
{
  let db: PGlite | undefined;
  backends.push({
    name: "one PGlite, in-process",
    async open() {
      db = await freshPglite();
      return [await createSqlStore(pgliteClient(db)), await createSqlStore(pgliteClient(db))];
    },
    async close() {
      await db?.close();
    },
  });
}
if (url) {
  const schema = `hl_fanout_${randomBytes(6).toString("hex")}`;
  const pools: Pool[] = [];
  let admin: Pool | undefined;
  backends.push({
    name: "one Postgres, two pools",
    async open() {
      const pg = loadPg();
      admin = new pg.Pool({ connectionString: url, max: 1 });
      await admin.query(`CREATE SCHEMA ${schema}`);
      const store = async () => {
        const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
        pools.push(pool);
        return createSqlStore(pgPoolClient(pool));
      };
      const a = await store();
      return [a, await store()];
    },
    async close() {
      for (const pool of pools) await pool.end();
      await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin?.end();
    },
  });
}

describe.each(backends)("SSE across nodes on $name", (backend) => {
  let a: Hookline;
  let b: Hookline;
  let stores: Store[] = [];

  beforeAll(async () => {
    stores = await backend.open();
    const [storeA, storeB] = stores as [Store, Store];
    a = createHookline({ store: storeA, secretsKey: "fanout", worker: false });
    b = createHookline({ store: storeB, secretsKey: "fanout", worker: false });
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const store of stores) await store.close();
    await backend.close();
  });

  it("a client of node A receives the events and logs node B stores, once each", async () => {
    const ws = await a.workspaces.create({ name: "fanout" });
    const { key } = await a.apiKeys.create(ws.id);
    const source = await a.sources.deploy(ws.id, { code: { code: SOURCE, filename: "relay.mjs" } });
    const handler = createHandler(a, { onError: () => undefined });
    const emits = await openStream(handler, `/v1/sources/${source.id}/sse`, key);
    const logs = await openStream(handler, `/v1/sources/${source.id}/logs/sse`, key);
    const seenOnA: HooklineEvents["emit"][] = [];
    a.events.on("emit", (e) => seenOnA.push(e));

    const post = (node: Hookline, n: number) =>
      node.ingress(source.endpointId as string, {
        method: "POST",
        path: "/",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n }),
      });
    expect((await post(b, 1)).status).toBe(200);
    expect((await post(b, 2)).status).toBe(200);
    await until(() => emits.messages.length === 2 && logs.messages.length === 2);
    expect(emits.messages.map((m) => JSON.parse(m.data).event)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(logs.messages.map((m) => JSON.parse(m.data).message)).toEqual(["got 1", "got 2"]);
    const stored = await b.sources.events(ws.id, source.id);
    expect(emits.messages.map((m) => Number(m.id))).toEqual(stored.items.map((e) => e.seq).reverse());
    expect(seenOnA.map((e) => [e.event.body, e.remote])).toEqual([
      [{ n: 1 }, true],
      [{ n: 2 }, true],
    ]);

    // Node A's own emit reaches its observers once, not a second time through the notification.
    expect((await post(a, 3)).status).toBe(200);
    await until(() => emits.messages.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seenOnA.map((e) => [e.event.body, e.remote])).toEqual([
      [{ n: 1 }, true],
      [{ n: 2 }, true],
      [{ n: 3 }, undefined],
    ]);
    await emits.close();
    await logs.close();
  }, 30_000);
});
