// Keys and tenants over the API, on two nodes sharing one store (two engines and handlers, as two
// servers on one database): an operator key manages workspaces and keys, a workspace key cannot,
// and a revocation holds on the other node at once. Idempotency keys answer a retry on either node
// with the first answer. Memory (one store shared by both), PGlite (two SQL stores over one
// database) and Postgres when HOOKLINE_TEST_PG_URL is set.
import { randomBytes } from "node:crypto";
import { createHookline, type Hookline } from "@hookline/engine";
import { createMemoryStore, type Store } from "@hookline/store";
import { createSqlStore, pgliteClient, pgPoolClient } from "@hookline/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";
import { loadPg } from "../../store-sql/test/load-pg.js";
import { createHandler } from "../src/index.js";
import { eventually } from "./_harness.js";

type Pair = { stores: [Store, Store]; close(): Promise<void> };

const PAIRS: [string, () => Promise<Pair>][] = [
  [
    "memory",
    async () => {
      const store = createMemoryStore();
      return { stores: [store, store], close: () => store.close() };
    },
  ],
  [
    "PGlite",
    async () => {
      const db = await freshPglite();
      const stores: [Store, Store] = [
        await createSqlStore(pgliteClient(db)),
        await createSqlStore(pgliteClient(db)),
      ];
      return {
        stores,
        async close() {
          for (const store of stores) await store.close();
          await db.close();
        },
      };
    },
  ],
];
const pgUrl = process.env.HOOKLINE_TEST_PG_URL;
if (pgUrl) {
  PAIRS.push([
    "Postgres",
    async () => {
      const pg = loadPg();
      const schema = `hl_tenants_${randomBytes(6).toString("hex")}`;
      const admin = new pg.Pool({ connectionString: pgUrl, max: 1 });
      await admin.query(`CREATE SCHEMA ${schema}`);
      const pools = [0, 1].map(
        () => new pg.Pool({ connectionString: pgUrl, options: `-c search_path=${schema}` }),
      );
      const stores: [Store, Store] = [
        await createSqlStore(pgPoolClient(pools[0] as InstanceType<typeof pg.Pool>)),
        await createSqlStore(pgPoolClient(pools[1] as InstanceType<typeof pg.Pool>)),
      ];
      return {
        stores,
        async close() {
          for (const store of stores) await store.close();
          for (const pool of pools) await pool.end();
          await admin.query(`DROP SCHEMA ${schema} CASCADE`);
          await admin.end();
        },
      };
    },
  ]);
}

interface Node {
  hookline: Hookline;
  call(
    method: string,
    path: string,
    key: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

function node(store: Store): Node {
  const hookline = createHookline({ store, secretsKey: "tenants-test", worker: false });
  const handler = createHandler(hookline, { onError: () => undefined });
  return {
    hookline,
    async call(method, path, key, body, headers = {}) {
      const res = await handler(
        new Request(`http://hookline.test${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
  };
}

describe.each(PAIRS)("keys and tenants on two nodes: %s", (_name, open) => {
  let pair: Pair;
  let a: Node;
  let b: Node;
  let operator: string;

  beforeAll(async () => {
    pair = await open();
    a = node(pair.stores[0]);
    b = node(pair.stores[1]);
    const home = await a.hookline.workspaces.create({ name: "default" });
    operator = (await a.hookline.apiKeys.create(home.id, { name: "operator", role: "operator" })).key;
  });
  afterAll(async () => {
    await a.hookline.close();
    await b.hookline.close();
    await pair.close();
  });

  it("an operator key creates a workspace and a key; the key works, is revoked, and fails on the other node at once", async () => {
    const ws = await a.call("POST", "/v1/workspaces", operator, { name: "acme" });
    expect(ws.status).toBe(200);
    expect(ws.body.data).toMatchObject({ name: "acme", revoked_at: null });
    const made = await a.call("POST", "/v1/api_keys", operator, {
      workspace_id: ws.body.data.id,
      name: "ci",
    });
    expect(made.status).toBe(200);
    const { key, ...shown } = made.body.data;
    expect(key).toMatch(/^hl_/);
    expect(shown).toMatchObject({
      workspace_id: ws.body.data.id,
      name: "ci",
      role: "workspace",
      prefix: key.slice(0, 7),
      last_used_at: null,
      revoked_at: null,
    });

    // The key works on both nodes, in its own workspace.
    const hook = await a.call("POST", "/v1/webhooks", key, { url: "https://example.com/acme" });
    expect(hook.status).toBe(200);
    const listed = await b.call("GET", "/v1/webhooks", key);
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([hook.body.data.id]);
    // A workspace key cannot manage keys or workspaces.
    for (const [method, path] of [
      ["GET", "/v1/workspaces"],
      ["POST", "/v1/api_keys"],
      ["DELETE", `/v1/api_keys/${shown.id}`],
    ] as const) {
      const refused = await b.call(method, path, key, method === "POST" ? {} : undefined);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.code).toBe("operator_key_required");
    }

    // Listed by prefix, never whole, with its last use once it was used.
    await eventually(async () => {
      const keys = await b.call("GET", `/v1/api_keys?workspace_id=${ws.body.data.id}`, operator);
      expect(keys.body.data).toHaveLength(1);
      expect(keys.body.data[0]).toMatchObject({ id: shown.id, prefix: shown.prefix });
      expect(keys.body.data[0].key).toBeUndefined();
      expect(keys.body.data[0].last_used_at).toBeGreaterThanOrEqual(shown.created_at);
    });

    const revoked = await a.call("DELETE", `/v1/api_keys/${shown.id}`, operator);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).toBeGreaterThanOrEqual(shown.created_at);
    const other = await b.call("GET", "/v1/webhooks", key);
    expect(other.status).toBe(401);
    expect(other.body.error.code).toBe("unauthorized");
    expect((await a.call("GET", "/v1/webhooks", key)).status).toBe(401);
  });

  it("revoking a workspace refuses its keys on the other node at once; the operator's own is refused", async () => {
    const ws = (await a.call("POST", "/v1/workspaces", operator, { name: "gone" })).body.data;
    const { key } = (await a.call("POST", "/v1/api_keys", operator, { workspace_id: ws.id })).body.data;
    expect((await b.call("GET", "/v1/webhooks", key)).status).toBe(200);
    const revoked = await a.call("DELETE", `/v1/workspaces/${ws.id}`, operator);
    expect(revoked.body.data.revoked_at).not.toBeNull();
    expect((await b.call("GET", "/v1/webhooks", key)).status).toBe(401);
    const again = await b.call("POST", "/v1/api_keys", operator, { workspace_id: ws.id });
    expect(again.status).toBe(409);
    const all = await b.call("GET", "/v1/workspaces", operator);
    expect(all.body.data.find((w: { id: string }) => w.id === ws.id)?.revoked_at).not.toBeNull();

    const me = await a.hookline.apiKeys.authenticate(operator);
    const own = await a.call("DELETE", `/v1/workspaces/${me?.workspace.id}`, operator);
    expect(own.status).toBe(409);
    const self = await a.call("DELETE", `/v1/api_keys/${me?.apiKey.id}`, operator);
    expect(self.status).toBe(409);
    expect((await a.call("GET", "/v1/workspaces", operator)).status).toBe(200);
  });

  it("a second operator key made over the API can revoke the first", async () => {
    const second = await a.call("POST", "/v1/api_keys", operator, { name: "op2", role: "operator" });
    expect(second.body.data.role).toBe("operator");
    const home = await b.call("GET", "/v1/workspaces", second.body.data.key);
    expect(home.status).toBe(200);
    const bad = await a.call("POST", "/v1/api_keys", operator, { role: "admin" });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.error)).toContain("role");
  });

  it("the same Idempotency-Key twice creates one webhook, on either node; another body is 409", async () => {
    const ws = (await a.call("POST", "/v1/workspaces", operator, { name: "idem" })).body.data;
    const { key } = (await a.call("POST", "/v1/api_keys", operator, { workspace_id: ws.id })).body.data;
    const headers = { "idempotency-key": "create-hook-1" };
    const body = { url: "https://example.com/once", name: "once" };
    const first = await a.call("POST", "/v1/webhooks", key, body, headers);
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // The same fields in another order are the same request.
    const retry = await b.call(
      "POST",
      "/v1/webhooks",
      key,
      { name: "once", url: "https://example.com/once" },
      headers,
    );
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    const list = await a.call("GET", "/v1/webhooks", key);
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([first.body.data.id]);

    const other = await b.call("POST", "/v1/webhooks", key, { ...body, name: "twice" }, headers);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("idempotency_conflict");
    const rotate = `/v1/webhooks/${first.body.data.id}/secret/rotate`;
    const elsewhere = await a.call("POST", rotate, key, undefined, headers);
    expect(elsewhere.body.error.code).toBe("idempotency_conflict");
    expect((await a.call("GET", "/v1/webhooks", key)).body.data).toHaveLength(1);

    // Keys are per workspace: the operator's workspace makes its own webhook with the same key.
    const mine = await a.call("POST", "/v1/webhooks", operator, body, headers);
    expect(mine.body.data.id).not.toBe(first.body.data.id);
  });

  it("a failed request frees its key; concurrent requests with one key create one webhook", async () => {
    const bad = await a.call(
      "POST",
      "/v1/webhooks",
      operator,
      { url: "ftp://nope" },
      { "idempotency-key": "k2" },
    );
    expect(bad.status).toBe(422);
    const good = await b.call(
      "POST",
      "/v1/webhooks",
      operator,
      { url: "https://example.com/k2" },
      { "idempotency-key": "k2" },
    );
    expect(good.status).toBe(200);

    const ws = (await a.call("POST", "/v1/workspaces", operator, { name: "race" })).body.data;
    const { key } = (await a.call("POST", "/v1/api_keys", operator, { workspace_id: ws.id })).body.data;
    const answers = await Promise.all(
      [a, b, a, b].map((n) =>
        n.call(
          "POST",
          "/v1/webhooks",
          key,
          { url: "https://example.com/race" },
          { "idempotency-key": "race" },
        ),
      ),
    );
    const created = answers.filter((r) => r.status === 200).map((r) => r.body.data.id);
    expect(new Set(created).size).toBe(1);
    for (const r of answers.filter((r) => r.status !== 200))
      expect(r.body.error.code).toBe("idempotency_in_progress");
    expect((await a.call("GET", "/v1/webhooks", key)).body.data).toHaveLength(1);

    // An end user's idempotency key never answers another end user of the workspace.
    const token = async (user: string) =>
      (await a.call("POST", "/v1/connect/tokens", key, { external_user_id: user })).body.data.token as string;
    const account = { app: "github", name: "gh", auth: { token: "t" } };
    const ada = await a.call("POST", "/v1/accounts", await token("ada"), account, {
      "idempotency-key": "acct",
    });
    expect(ada.status).toBe(200);
    const bob = await b.call("POST", "/v1/accounts", await token("bob"), account, {
      "idempotency-key": "acct",
    });
    expect(bob.status).toBe(409);
    expect(bob.body.error.code).toBe("idempotency_conflict");

    const invalid = await a.call(
      "POST",
      "/v1/webhooks",
      key,
      { url: "https://example.com/x" },
      { "idempotency-key": "é".repeat(3) },
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("invalid_idempotency_key");
  });
});

describe("RateLimit headers", () => {
  it("on the API (per key) and on HTTP endpoints, counting down to the 429", async () => {
    const hookline = createHookline({ secretsKey: "tenants-test", worker: false });
    try {
      const ws = await hookline.workspaces.create({ name: "limited" });
      const { key } = await hookline.apiKeys.create(ws.id);
      const handler = createHandler(hookline, {
        rateLimit: { requests: 3, windowMs: 60_000 },
        ingressRateLimit: { perSecond: 0.001, burst: 2 },
      });
      const api = () =>
        handler(new Request("http://h.test/v1/webhooks", { headers: { authorization: `Bearer ${key}` } }));
      const seen: (string | null)[][] = [];
      for (let i = 0; i < 4; i++) {
        const res = await api();
        seen.push([
          String(res.status),
          res.headers.get("ratelimit-limit"),
          res.headers.get("ratelimit-remaining"),
        ]);
        const reset = Number(res.headers.get("ratelimit-reset"));
        expect(reset).toBeGreaterThan(0);
        expect(reset).toBeLessThanOrEqual(60);
      }
      expect(seen).toEqual([
        ["200", "3", "2"],
        ["200", "3", "1"],
        ["200", "3", "0"],
        ["429", "3", "0"],
      ]);
      const ingress: (string | null)[][] = [];
      for (let i = 0; i < 3; i++) {
        const res = await handler(new Request("http://h.test/http/en_missing", { method: "POST" }));
        ingress.push([
          String(res.status),
          res.headers.get("ratelimit-limit"),
          res.headers.get("ratelimit-remaining"),
        ]);
      }
      expect(ingress).toEqual([
        ["404", "2", "1"],
        ["404", "2", "0"],
        ["429", "2", "0"],
      ]);
    } finally {
      await hookline.close();
    }
  });
});
