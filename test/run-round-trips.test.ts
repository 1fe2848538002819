// Store round trips of one HTTP-triggered source run on a SQL store (PGlite), counted by a client
// wrapper: a run that logs and emits writes its log lines, its event and its delivery in ONE
// statement (`store.emits.commitRun` through the group commit), with no transaction around it.
// Before the log lines joined the emit commit, such a run took two (docs/architecture.md, "The
// emit path").
import type { PGlite } from "@electric-sql/pglite";
import { createHookline, type Hookline } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import type { Store } from "@hookline/store";
import { createSqlStore, pgliteClient, type SqlClient } from "@hookline/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPglite } from "../packages/store-sql/test/fresh-pglite.js";

/** What went to the database: exchanges (a statement, or a pipeline of them) and transactions. */
interface Counts {
  exchanges: number;
  transactions: number;
  texts: string[];
}

/** Wraps `client` so that every exchange and transaction is counted in `counts`. */
function counting(client: SqlClient, counts: Counts): SqlClient {
  const wrap = (inner: SqlClient): SqlClient => {
    const wrapped: SqlClient = {
      ...inner,
      query(text, params) {
        counts.exchanges++;
        counts.texts.push(text);
        return inner.query(text, params);
      },
    };
    if (inner.pipeline) {
      const pipeline = inner.pipeline.bind(inner);
      wrapped.pipeline = (statements, options) => {
        counts.exchanges++;
        counts.texts.push(...statements.map((s) => s.text));
        return pipeline(statements, options);
      };
    }
    if (inner.transaction) {
      const transaction = inner.transaction.bind(inner);
      wrapped.transaction = (fn) => {
        counts.transactions++;
        return transaction((tx) => fn(wrap(tx)));
      };
    }
    if (inner.listen) wrapped.listen = inner.listen.bind(inner);
    return wrapped;
  };
  return wrap(client);
}

const SOURCE = `export default { name: "Logs and emits", version: "0.1.0", props: { http: "$.interface.http" },
  run(e) {
    console.log("got", e.body.n);
    console.warn("second line");
    if (e.body.emit) this.$emit({ n: e.body.n }, { summary: "n " + e.body.n });
  } };`;

describe("store round trips of an HTTP-triggered source run (PGlite)", () => {
  const counts: Counts = { exchanges: 0, transactions: 0, texts: [] };
  let db: PGlite;
  let store: Store;
  let hookline: Hookline;
  let handler: (request: Request) => Promise<Response>;
  let ws = "";
  let sourceId = "";
  let endpoint = "";

  beforeAll(async () => {
    db = await freshPglite();
    store = await createSqlStore(counting(pgliteClient(db), counts));
    // No delivery worker and no loops: only the request's own statements reach the database.
    hookline = createHookline({ store, secretsKey: "test", baseUrl: "http://127.0.0.1:1", worker: false });
    ws = (await hookline.workspaces.create({ name: "round trips" })).id;
    const source = await hookline.sources.deploy(ws, { code: { code: SOURCE } });
    sourceId = source.id;
    endpoint = source.endpointId as string;
    const webhook = await hookline.webhooks.create(ws, { url: "http://127.0.0.1:1/hook" });
    await hookline.subscriptions.create(ws, { emitterId: source.id, listenerId: webhook.id });
    handler = createHandler(hookline, { ingressRateLimit: false });
  });

  afterAll(async () => {
    await hookline?.close();
    await store?.close();
    await db?.close();
  });

  /** Sends one request to the source's endpoint and returns what reached the database meanwhile. */
  async function request(body: unknown): Promise<Counts> {
    counts.exchanges = 0;
    counts.transactions = 0;
    counts.texts = [];
    const response = await handler(
      new Request(`http://127.0.0.1:1/http/${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    expect(response.status).toBe(200);
    return { ...counts, texts: [...counts.texts] };
  }

  it("a run that logs and emits: one statement writes its lines, its event and its delivery", async () => {
    // The first request reads who listens at the endpoint (kept for a while): not the run's cost.
    await request({ n: 0, emit: true });
    const counted = await request({ n: 1, emit: true });
    expect(counted.transactions).toBe(0);
    expect(counted.exchanges).toBe(1);
    expect(counted.texts[0]).toMatch(
      /INSERT INTO events[\s\S]*INSERT INTO deliveries[\s\S]*INSERT INTO logs/,
    );

    const logs = (await store.logs.list(ws, sourceId, { limit: 100 })).items;
    expect(logs.map((line) => line.message)).toEqual(["got 0", "second line", "got 1", "second line"]);
    expect(logs.map((line) => line.level)).toEqual(["log", "warn", "log", "warn"]);
    const events = (await store.events.list(ws, sourceId, { order: "asc" })).items;
    expect(events.map((event) => event.body)).toEqual([{ n: 0 }, { n: 1 }]);
    const deliveries = await store.deliveries.list(ws, { limit: 100 });
    expect(deliveries.items.map((delivery) => delivery.eventId).sort()).toEqual(
      events.map((event) => event.id).sort(),
    );
  });

  it("a run that only logs: one statement", async () => {
    const counted = await request({ n: 2, emit: false });
    expect(counted.transactions).toBe(0);
    expect(counted.exchanges).toBe(1);
    expect(counted.texts[0]).toMatch(/INSERT INTO logs/);
    const logs = (await store.logs.list(ws, sourceId, { limit: 100 })).items;
    expect(logs.slice(-2).map((line) => line.message)).toEqual(["got 2", "second line"]);
  });
});
