/**
 * One Hookline node of the multi-node test, run as its own process:
 *
 *   node --conditions=@hookline/source --import tsx test/multinode/node.ts
 *
 * It opens the shared Postgres (its own `pg` Pool on the schema in `HOOKLINE_MN_SCHEMA`), creates the
 * engine on the SQL store with the delivery worker and the timer loop, starts it and obeys its
 * parent over IPC:
 *
 * - `{ emit: { endpointId, count, batch, offset } }`: POSTs `count` items `{ n }` (`n` from `offset`)
 *   through `hookline.ingress`, `batch` items per request; answers `{ emitted: count }`.
 * - `{ stop: true }`: closes the engine (drains the worker) and the pool, answers `{ stopped: true }`
 *   and exits.
 *
 * It announces `{ ready: true }` once started. Environment: `HOOKLINE_TEST_PG_URL`,
 * `HOOKLINE_MN_SCHEMA`, `HOOKLINE_MN_WORKER` (JSON worker options, or `false`),
 * `HOOKLINE_MN_LEASE_MS` (the workflow execution lease, default the engine's), `HOOKLINE_MN_NODE_ID`.
 */
import { createHookline, type EngineWorkerOptions } from "@hookline/engine";
import { createSqlStore, pgPoolClient } from "@hookline/store-sql";
import pg from "pg";

/** A message from the parent. */
export type NodeCommand =
  | { emit: { endpointId: string; count: number; batch: number; offset: number } }
  | { stop: true };

/** A message to the parent. */
export type NodeReport = { ready: true } | { emitted: number } | { stopped: true } | { error: string };

const url = process.env.HOOKLINE_TEST_PG_URL;
const schema = process.env.HOOKLINE_MN_SCHEMA;
if (!url || !schema || !process.send) {
  console.error("node.ts runs as a child process with HOOKLINE_TEST_PG_URL and HOOKLINE_MN_SCHEMA");
  process.exit(2);
}
const send = (report: NodeReport) => process.send?.(report);
const workerEnv = process.env.HOOKLINE_MN_WORKER;
const worker = workerEnv ? (JSON.parse(workerEnv) as EngineWorkerOptions | false) : {};

// synchronous_commit=off: commits do not wait for the WAL flush (a test box's disk is slow). It only
// matters if the Postgres server itself crashes; what one node commits is at once visible to the others.
const pool = new pg.Pool({
  connectionString: url,
  options: `-c search_path=${schema} -c synchronous_commit=off`,
  max: 12,
});
pool.on("error", () => undefined);
const store = await createSqlStore(pgPoolClient(pool), { skipMigrations: true });
const hookline = createHookline({
  store,
  secretsKey: "multinode",
  allowPrivateUrls: true,
  retention: { events: 1_000_000 },
  timerPollMs: 200,
  ...(process.env.HOOKLINE_MN_NODE_ID ? { nodeId: process.env.HOOKLINE_MN_NODE_ID } : {}),
  ...(process.env.HOOKLINE_MN_LEASE_MS ? { executionLeaseMs: Number(process.env.HOOKLINE_MN_LEASE_MS) } : {}),
  worker:
    worker === false
      ? false
      : { ...worker, onError: (error) => send({ error: String((error as Error)?.stack ?? error) }) },
});
hookline.start();

async function emit(endpointId: string, count: number, batch: number, offset: number): Promise<void> {
  for (let done = 0; done < count; done += batch) {
    const items = [];
    for (let i = done; i < Math.min(count, done + batch); i++) items.push({ n: offset + i });
    const response = await hookline.ingress(endpointId, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ items }),
    });
    if (response.status >= 300) throw new Error(`ingress answered ${response.status}`);
  }
}

process.on("message", (message: NodeCommand) => {
  if ("emit" in message) {
    const { endpointId, count, batch, offset } = message.emit;
    emit(endpointId, count, batch, offset).then(
      () => send({ emitted: count }),
      (error: unknown) => send({ error: String((error as Error)?.stack ?? error) }),
    );
  } else if ("stop" in message) {
    hookline
      .close()
      .then(() => pool.end())
      .finally(() => {
        send({ stopped: true });
        process.exit(0);
      });
  }
});
process.on("disconnect", () => process.exit(0));
send({ ready: true });
