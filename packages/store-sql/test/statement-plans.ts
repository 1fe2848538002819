import { randomBytes } from "node:crypto";
import type { Pool } from "pg";
import { createSqlStore, type SqlClient } from "../src/index.js";
import { loadPg } from "./load-pg.js";
import { subscribedWebhook } from "./subscribed-webhook.js";

/** A statement as a store ran it. */
export interface RanStatement {
  text: string;
  params: unknown[];
}

/**
 * `raw` with every statement whose text `matches` recorded in `ran`, on its background lane and in
 * its transactions too (where the store sends claims and outcomes).
 *
 * @example
 * ```ts
 * const { client, ran } = watchStatements(raw, (text) => text.includes("WITH RECURSIVE hooks"));
 * ```
 */
export function watchStatements(raw: SqlClient, matches: (text: string) => boolean) {
  const ran: RanStatement[] = [];
  const watched = (lane: SqlClient): SqlClient => {
    const { transaction } = lane;
    return {
      ...lane,
      query: (text, params) => {
        if (matches(text)) ran.push({ text, params: params ?? [] });
        return lane.query(text, params);
      },
      ...(transaction && { transaction: (fn) => transaction((tx) => fn(watched(tx))) }),
    };
  };
  const client: SqlClient = {
    ...watched(raw),
    ...(raw.background && { background: watched(raw.background) }),
  };
  return { client, ran };
}

/**
 * The plans (EXPLAIN's JSON) of `statement` on `raw`: for the parameters it ran with (a statement's
 * first runs, and any run whose generic plan looks costlier), then its generic plan (a named
 * statement's after its first runs).
 */
export function statementPlans(raw: SqlClient, statement: RanStatement): Promise<unknown[]> {
  if (!raw.transaction) throw new Error("the client has no transaction");
  return raw.transaction(async (tx) => {
    const plan = (rows: Record<string, unknown>[]) => {
      const json = rows[0]?.["QUERY PLAN"];
      return typeof json === "string" ? JSON.parse(json) : json;
    };
    const custom = plan((await tx.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.params)).rows);
    await tx.query("SET LOCAL plan_cache_mode = force_generic_plan");
    await tx.query(`PREPARE planned AS ${statement.text}`);
    const nulls = statement.params.map(() => "NULL").join(", ");
    const generic = plan((await tx.query(`EXPLAIN (FORMAT JSON) EXECUTE planned(${nulls})`)).rows);
    await tx.query("DEALLOCATE planned");
    return [custom, generic];
  });
}

/**
 * A pool of at most `max` connections whose search path is a new schema (named `prefix` and random
 * hex) of the Postgres at `url`, and `close` that ends it and drops the schema.
 *
 * @example
 * ```ts
 * const { pool, close } = await schemaPool(url, "hl_plan");
 * ```
 */
export async function schemaPool(url: string, prefix: string, max = 4) {
  const pg = loadPg();
  const schema = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin: Pool = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool: Pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max });
  return {
    pool,
    async close() {
      await pool.end();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * A store on `client` (its own autovacuum off, closed through `closers`) with a webhook subscribed
 * to `emitterId` and a backlog of `hundreds` times 100 events emitted by it, 100 to a commit.
 *
 * @example
 * ```ts
 * const { store, ws } = await backlogStore(client, "dc_plan", 30, closers);
 * ```
 */
export async function backlogStore(
  client: SqlClient,
  emitterId: string,
  hundreds: number,
  closers: (() => Promise<void>)[],
) {
  const store = await createSqlStore(client, { autovacuum: false });
  closers.push(() => store.close());
  const { ws } = await subscribedWebhook(store, emitterId);
  for (let i = 0; i < hundreds; i++) {
    await store.emits.commit({
      workspaceId: ws.id,
      componentId: emitterId,
      events: Array.from({ length: 100 }, (_, n) => ({ channel: "default", ts: 1, body: { i, n } })),
    });
  }
  return { store, ws };
}
