/** The Store: every record Hookline persists, and the Queue. */

import type { DedupeStore, DeployedComponentStore, KvStore, SavedComponentStore } from "./components.js";
import type { DataStoreStore } from "./data-stores.js";
import type { EmitStore, EventStore, LogStore } from "./events.js";
import type { IdempotencyStore } from "./idempotency.js";
import type { StoreNotifications } from "./notifications.js";
import type { DeliveryStore, Queue, TimerStore } from "./queue.js";
import type { ReplayStore } from "./replays.js";
import type {
  AccountStore,
  ApiKeyStore,
  AuthTicketStore,
  OAuthClientStore,
  SettingsStore,
  WorkspaceStore,
} from "./tenants.js";
import type { SubscriptionStore, WebhookStore } from "./webhooks.js";
import type { EnvStore, ExecutionQueue, ExecutionStore, WorkflowStore } from "./workflows.js";

/**
 * Everything Hookline persists. Implementations: the memory store (`createMemoryStore`), PGlite and
 * Postgres (`createSqlStore` of `@hookline/store-sql`); each passes the conformance suite of
 * `@hookline/store/testing`.
 *
 * All methods are async. Every method that reads or writes a record belonging to a workspace takes
 * the `workspaceId` and never sees another workspace's rows. Times are epoch milliseconds. Returned
 * rows are copies. Every string is stored losslessly (NUL characters and lone surrogates included).
 * Errors a caller can act on are {@link StoreError}s.
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const ws = await store.workspaces.create({ name: "Acme" });
 * const hook = await store.webhooks.create({ workspaceId: ws.id, url: "https://example.com", active: true, secrets: [] });
 * ```
 */
export interface Store {
  /** Workspaces. */
  workspaces: WorkspaceStore;
  /** API keys. */
  apiKeys: ApiKeyStore;
  /** Connected accounts. */
  accounts: AccountStore;
  /** OAuth clients (the operator's OAuth apps), one per app slug and workspace. */
  oauthClients: OAuthClientStore;
  /** Short-lived secrets of managed auth: OAuth states, connect results, connect tokens. */
  authTickets: AuthTicketStore;
  /** Saved components. */
  savedComponents: SavedComponentStore;
  /** Deployed components. */
  deployedComponents: DeployedComponentStore;
  /** Dedupe state (written by `emits.commit`). */
  dedupe: DedupeStore;
  /** The component db service. */
  kv: KvStore;
  /** Named key-value stores of a workspace (`data_store` props, `/v1/data_stores`). */
  dataStores: DataStoreStore;
  /** The atomic emit: dedupe state, events and their deliveries in one step. */
  emits: EmitStore;
  /** Events. */
  events: EventStore;
  /** Component logs. */
  logs: LogStore;
  /** Webhooks. */
  webhooks: WebhookStore;
  /** Subscriptions. */
  subscriptions: SubscriptionStore;
  /** Timer schedules. */
  timers: TimerStore;
  /** Delivery records. */
  deliveries: DeliveryStore;
  /** Replay jobs (a subscription's stored events sent again). */
  replays: ReplayStore;
  /** Settings shared by the nodes using the store. */
  settings: SettingsStore;
  /** The answers of creating requests by their `Idempotency-Key`, kept a day. */
  idempotency: IdempotencyStore;
  /** What nodes claim: due deliveries, timer ticks and (with workflows) queued executions. */
  queue: Queue & {
    /** Queued workflow executions (present together with {@link Store.executions}). */
    executions?: ExecutionQueue;
  };
  /**
   * Workflows (`p_...`). Optional while an adapter does not have them yet (the conformance suite's
   * `workflows` capability); the engine's workflow API fails with `internal_error` naming the store
   * without them. `workflows`, `executions`, `env` and `queue.executions` come together.
   */
  workflows?: WorkflowStore;
  /** Workflow executions (`exe_...`) and their step records. */
  executions?: ExecutionStore;
  /** The workspace's environment variables (values encrypted by the caller). */
  env?: EnvStore;
  /** Change notifications, when the implementation has them (see {@link StoreNotifications}). */
  notifications?: StoreNotifications;
  /**
   * Whether the store answers and its schema is the one this code needs (what `GET /readyz`
   * reports): rejects when the store cannot be reached. Optional: a store without it counts as
   * reachable and current.
   */
  health?(): Promise<StoreHealth>;
  /** Releases resources; the store must not be used afterwards (calls fail with `closed`). */
  close(): Promise<void>;
}

/** What {@link Store.health} answers. */
export interface StoreHealth {
  /** The migrations this code knows that the store has not applied (empty when current). */
  pendingMigrations: number[];
}
