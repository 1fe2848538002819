/**
 * The SQL {@link Store} for PGlite and Postgres: each sub-store lives in its own file under `sql/`,
 * over one explicit {@link SqlContext}; this factory composes them.
 */
import type { Store } from "@hookline/store";
import { channelFor, createNotifier, type NotifyOptions, type SqlNotifier } from "./_notify.js";
import type { SqlClient } from "./clients.js";
import { migrate } from "./migrations.js";
import { sqlAccounts } from "./sql/accounts.js";
import { sqlApiKeys } from "./sql/api-keys.js";
import { type AutovacuumOptions, startAutovacuum } from "./sql/autovacuum.js";
import { sqlDataStores } from "./sql/data-stores.js";
import { sqlDedupe } from "./sql/dedupe.js";
import { sqlDeliveries } from "./sql/deliveries.js";
import { sqlDeployedComponents } from "./sql/deployed-components.js";
import { sqlEmits } from "./sql/emits.js";
import { sqlEnv } from "./sql/env.js";
import { sqlEvents } from "./sql/events.js";
import { sqlExecutionQueue, sqlExecutions } from "./sql/executions.js";
import { sqlIdempotency } from "./sql/idempotency.js";
import { sqlKv } from "./sql/kv.js";
import { sqlLogs } from "./sql/logs.js";
import { sqlAuthTickets, sqlOAuthClients } from "./sql/oauth.js";
import { sqlHealth, sqlQueueDepth } from "./sql/ops.js";
import { sqlQueue } from "./sql/queue.js";
import { sqlReplays } from "./sql/replays.js";
import { sqlSavedComponents } from "./sql/saved-components.js";
import { sqlSettings } from "./sql/settings.js";
import { createSqlContext, type SqlContext } from "./sql/sql-context.js";
import { sqlSubscriptions } from "./sql/subscriptions.js";
import { sqlTimers } from "./sql/timers.js";
import { sqlWebhooks } from "./sql/webhooks.js";
import { sqlWorkflows } from "./sql/workflows.js";
import { sqlWorkspaces } from "./sql/workspaces.js";

export type { NotifyOptions } from "./_notify.js";
export type { AutovacuumOptions } from "./sql/autovacuum.js";
export type { SqlContext } from "./sql/sql-context.js";

/** Options of {@link createSqlStore}. */
export interface SqlStoreOptions {
  /** The clock used for `createdAt`/`updatedAt` (defaults to `Date.now`). */
  now?: () => number;
  /** Skip running {@link migrate} (when the schema is migrated by hand or by another process). */
  skipMigrations?: boolean;
  /**
   * Change notifications over `LISTEN`/`NOTIFY` (see {@link NotifyOptions}): on by default, on the
   * channel `hookline_<schema>`. Writes that make deliveries due, and appends of events and log lines,
   * send a `NOTIFY` in their transaction; `store.notifications` (present when the client can
   * `listen`) passes them to subscribers, such as idle delivery workers and the SSE fan-out.
   * `false` sends and listens to nothing (workers then only poll).
   */
  notifications?: NotifyOptions | false;
  /**
   * Vacuums and analyzes the tables as Postgres's autovacuum would (see {@link AutovacuumOptions}),
   * every 10 s by default. On by default where nothing else does it: on a client of one connection
   * (PGlite, whose single-user Postgres has no autovacuum) and on a Postgres server whose
   * `autovacuum` setting is off. Options turn it on for any client; `false` turns it off.
   */
  autovacuum?: AutovacuumOptions | false;
}

/**
 * Whether the store vacuums and analyzes its own tables: when asked to, else where nothing else
 * does. Without statistics that follow the tables, the prepared statements keep the plans made when
 * the tables were empty (sequential scans, decision 0426), and without VACUUM the queue's partial
 * indexes keep an entry for every row that ever left them.
 */
export async function vacuumsItself(
  client: SqlClient,
  option: SqlStoreOptions["autovacuum"],
): Promise<boolean> {
  if (option === false) return false;
  if (option !== undefined || client.singleConnection) return true;
  const { rows } = await client.query("SELECT current_setting('autovacuum') AS autovacuum");
  return rows[0]?.autovacuum === "off";
}

/**
 * Creates a {@link Store} over a SQL client (PGlite or Postgres), after applying any pending
 * migrations. Semantics match the memory store of `@hookline/store` (both pass its conformance
 * suite): returned rows are copies, optional fields are omitted when unset, multi-row writes are
 * atomic, every string is stored losslessly (NUL characters and lone surrogates are escaped at the
 * boundary, JSON values are kept as their JSON text), and delivery and timer claims use
 * `FOR UPDATE SKIP LOCKED` so that concurrent workers never receive the same row.
 *
 * `close()` only marks the store closed: the caller owns the client (PGlite instance or pool) and
 * closes it afterwards.
 *
 * @param client - The SQL client (see {@link pgliteClient} and {@link pgPoolClient}).
 * @param options - Optional clock; `skipMigrations` to not run {@link migrate}; notifications.
 * @example
 * ```ts
 * import { createSqlStore, openPglite, pgliteClient } from "@hookline/store-sql";
 *
 * const db = await openPglite();
 * const store = await createSqlStore(pgliteClient(db));
 * const ws = await store.workspaces.create({ name: "Acme" });
 * ```
 */
export async function createSqlStore(client: SqlClient, options: SqlStoreOptions = {}): Promise<Store> {
  if (!options.skipMigrations) await migrate(client);
  let closed = false;
  let notifier: SqlNotifier | undefined;
  if (options.notifications !== false) {
    let channel = options.notifications?.channel;
    if (channel === undefined) {
      const { rows } = await client.query("SELECT current_schema() AS schema");
      channel = channelFor(String(rows[0]?.schema ?? "public"));
    }
    notifier = createNotifier(client, channel, options.notifications || {});
  }
  const c: SqlContext = createSqlContext(client, options.now ?? Date.now, notifier, () => closed);
  const autovacuum = (await vacuumsItself(client, options.autovacuum))
    ? startAutovacuum(c, options.autovacuum || undefined)
    : undefined;
  const queue = { ...sqlQueue(c), executions: sqlExecutionQueue(c) };
  const store: Store = {
    workspaces: sqlWorkspaces(c),
    apiKeys: sqlApiKeys(c),
    accounts: sqlAccounts(c),
    oauthClients: sqlOAuthClients(c),
    authTickets: sqlAuthTickets(c),
    savedComponents: sqlSavedComponents(c),
    deployedComponents: sqlDeployedComponents(c),
    dedupe: sqlDedupe(c),
    kv: sqlKv(c),
    dataStores: sqlDataStores(c),
    emits: sqlEmits(c),
    events: sqlEvents(c),
    logs: sqlLogs(c),
    webhooks: sqlWebhooks(c),
    subscriptions: sqlSubscriptions(c),
    replays: sqlReplays(c),
    timers: sqlTimers(c),
    deliveries: sqlDeliveries(c),
    settings: sqlSettings(c),
    idempotency: sqlIdempotency(c),
    queue: { ...queue, deliveries: { ...queue.deliveries, depth: sqlQueueDepth(c) } },
    workflows: sqlWorkflows(c),
    executions: sqlExecutions(c),
    env: sqlEnv(c),
    health: sqlHealth(c),
    async close() {
      closed = true;
      autovacuum?.stop();
      await notifier?.close();
    },
  };
  // Subscribers get notices only when the client can LISTEN; writers send them either way.
  if (notifier && client.listen) {
    const listening = notifier;
    store.notifications = { subscribe: (fn) => listening.subscribe(fn) };
  }
  return store;
}
