// Two Hookline nodes share one store (Postgres when HOOKLINE_TEST_PG_URL is set; one memory store
// always): a source runs on both at once with an expired OAuth token, and the provider sees ONE
// refresh (the store's refresh lease), both runs getting the new token. The provider rotates refresh
// tokens and refuses a used one (revoking the grant), so a second refresh would break the account.
import { randomBytes } from "node:crypto";
import { createFakeClock, createHookline, type Hookline } from "@hookline/engine";
import { createMemoryStore, type Store } from "@hookline/store";
import { createSqlStore, pgPoolClient } from "@hookline/store-sql";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPg } from "../packages/store-sql/test/load-pg.js";
import { apiCaller, authorizeAs, startProvider, type TestProvider } from "./oauth/_provider.js";

const url = process.env.HOOKLINE_TEST_PG_URL;
const BASE = "http://hookline.test";
const CALLBACK = `${BASE}/oauth/callback`;

/** Two stores over the same data, and how to drop them. */
type Pair = { stores: [Store, Store]; close(): Promise<void> };

async function memoryPair(): Promise<Pair> {
  const store = createMemoryStore();
  return { stores: [store, store], close: async () => undefined };
}

async function postgresPair(): Promise<Pair> {
  const pg = loadPg();
  const schema = `hl_oauth_${randomBytes(6).toString("hex")}`;
  const admin: Pool = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pools = [0, 1].map(
    () => new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 3 }),
  );
  const first = await createSqlStore(pgPoolClient(pools[0] as Pool));
  const second = await createSqlStore(pgPoolClient(pools[1] as Pool));
  return {
    stores: [first, second],
    async close() {
      await Promise.all(pools.map((p) => p.end()));
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

const kinds: [string, () => Promise<Pair>, boolean][] = [
  ["one memory store", memoryPair, true],
  ["one Postgres", postgresPair, url !== undefined],
];

describe.each(kinds)("two nodes on %s", (_name, makePair, enabled) => {
  let provider: TestProvider;
  let pair: Pair;
  let nodes: Hookline[] = [];
  const clock = createFakeClock(Date.now());

  beforeAll(async () => {
    if (!enabled) return;
    provider = await startProvider([CALLBACK]);
    pair = await makePair();
    nodes = pair.stores.map((store, i) =>
      createHookline({
        store,
        clock,
        baseUrl: BASE,
        allowPrivateUrls: true,
        worker: false,
        secretsKey: "two-nodes",
        nodeId: `node-${i}`,
      }),
    );
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await pair?.close();
    await provider?.close();
  });

  it.skipIf(!enabled)(
    "refresh an expired token once between them, and both runs use the new one",
    async () => {
      const [a, b] = nodes as [Hookline, Hookline];
      const ws = await a.workspaces.create({ name: "two nodes" });
      await a.oauthClients.put(ws.id, "acme", provider.client);
      const started = await a.connect.start(ws.id, { app: "acme" });
      const back = new URL(await authorizeAs(started.authorizeUrl, "ada", CALLBACK));
      const done = await b.connect.finish(back.searchParams);
      if (!done.ok) throw done.error;
      const deployed = await a.sources.deploy(ws.id, {
        code: { code: apiCaller(`${provider.api}/me`) },
        props: { acme: { authProvisionId: done.account.id } },
      });
      // Both nodes run it once: each keeps a sandbox with the first token.
      for (const node of nodes)
        expect((await node.sources.run(ws.id, deployed.id)).emitted[0]?.body).toMatchObject({
          me: { sub: "ada" },
        });

      provider.expireAccessTokens();
      clock.advance(3_600_000);
      const before = { ...provider.counts };
      const runs = await Promise.all([a.sources.run(ws.id, deployed.id), b.sources.run(ws.id, deployed.id)]);
      expect(runs.map((r) => r.error?.message)).toEqual([undefined, undefined]);
      expect(runs.map((r) => (r.emitted[0]?.body as { me?: unknown } | undefined)?.me)).toEqual([
        { sub: "ada" },
        { sub: "ada" },
      ]);
      expect(provider.counts.refresh_token - before.refresh_token).toBe(1);
      expect(provider.counts.refreshed - before.refreshed).toBe(1);
      expect((await b.accounts.get(ws.id, done.account.id)).status).toBe("active");
    },
  );
});
