// Two Hookline nodes (two engines, two HTTP servers, a pool each) on one Postgres, sent the same
// event ids at once to one source under each dedupe strategy: each id is stored and delivered once,
// as the store decides dedupe inside the emit commit under the lock of the source's dedupe row.
// Runs only when HOOKLINE_TEST_PG_URL points at a Postgres database:
// HOOKLINE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx vitest run --project e2e multinode-dedupe
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DedupeStrategy } from "@hookline/core";
import { createHookline, type Hookline } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import { toNodeListener } from "@hookline/http/node";
import { createSqlStore, pgPoolClient } from "@hookline/store-sql";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPg } from "../packages/store-sql/test/load-pg.js";

const url = process.env.HOOKLINE_TEST_PG_URL;
const IDS = [1, 2, 3, 4, 5, 6, 7, 8];

const source = (strategy: DedupeStrategy) => `export default { name: "Ids", version: "0.1.0",
  dedupe: "${strategy}", props: { http: "$.interface.http" },
  run(e) { for (const id of e.body.ids) this.$emit({ id }, { id }); } };`;

/** A node: an engine over its own pool, served on loopback. */
interface Node {
  hookline: Hookline;
  base: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe.skipIf(!url)("two nodes on one Postgres, the same ids at once", () => {
  const schema = `hl_dd_${randomBytes(6).toString("hex")}`;
  const pg = url ? loadPg() : undefined;
  let admin: Pool | undefined;
  const nodes: Node[] = [];
  const pools: Pool[] = [];
  /** The ids each webhook path received, in arrival order. */
  const received = new Map<string, number[]>();
  let receiver: Server | undefined;
  let receiverBase = "";

  async function startNode(): Promise<Node> {
    const pool = new (pg as NonNullable<typeof pg>).Pool({
      connectionString: url,
      options: `-c search_path=${schema}`,
      max: 4,
    });
    pools.push(pool);
    const store = await createSqlStore(pgPoolClient(pool));
    const hookline = createHookline({
      store,
      secretsKey: "multinode-dedupe",
      allowPrivateUrls: true,
      worker: { pollIntervalMs: 50 },
    });
    hookline.start();
    const server = createServer(toNodeListener(createHandler(hookline, { onError: () => undefined })));
    const base = await listen(server);
    return {
      hookline,
      base,
      close: async () => {
        await closeServer(server);
        await hookline.close();
      },
    };
  }

  beforeAll(async () => {
    admin = new (pg as NonNullable<typeof pg>).Pool({ connectionString: url, max: 1 });
    await admin.query(`CREATE SCHEMA ${schema}`);
    receiver = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        const ids = received.get(req.url as string) ?? [];
        ids.push((JSON.parse(body) as { id: number }).id);
        received.set(req.url as string, ids);
        res.writeHead(200).end();
      });
    });
    receiverBase = await listen(receiver);
    // One node first (it migrates the schema), then the second.
    nodes.push(await startNode());
    nodes.push(await startNode());
  });

  afterAll(async () => {
    await Promise.all(nodes.splice(0).map((node) => node.close()));
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
    if (receiver) await closeServer(receiver);
    if (admin) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  for (const strategy of ["unique", "greatest", "last"] as const) {
    it(`${strategy}: each id is stored and delivered once`, async () => {
      const [a, b] = nodes as [Node, Node];
      const ws = (await a.hookline.workspaces.create({ name: strategy })).id;
      const deployed = await a.hookline.sources.deploy(ws, { code: { code: source(strategy) } });
      const webhook = await a.hookline.webhooks.create(ws, { url: `${receiverBase}/${strategy}` });
      await a.hookline.subscriptions.create(ws, { emitterId: deployed.id, listenerId: webhook.id });
      // Ten requests per node, all at once, each emitting the ids 1..8 in order.
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${(i % 2 ? b : a).base}/http/${deployed.endpointId}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ids: IDS }),
          }),
        ),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
      const events = await b.hookline.sources.events(ws, deployed.id, { limit: 100 });
      expect(events.items.map((e) => (e.body as { id: number }).id).sort((x, y) => x - y)).toEqual(IDS);
      // Every delivery is done once its events are stored; none is left to come.
      await expect
        .poll(() => received.get(`/${strategy}`)?.length ?? 0, { timeout: 20_000, interval: 50 })
        .toBe(IDS.length);
      const deliveries = await a.hookline.webhooks.deliveries(ws, webhook.id, { limit: 100 });
      expect(deliveries.items).toHaveLength(IDS.length);
      expect([...(received.get(`/${strategy}`) ?? [])].sort((x, y) => x - y)).toEqual(IDS);
    });
  }
});
