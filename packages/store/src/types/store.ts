/** The Store: every record Hookline persists, and the Queue. */
import type { DedupeStore, DeployedComponentStore, KvStore, SavedComponentStore } from "./components.js";
import type { EmitStore, EventStore, LogStore } from "./events.js";
import type { StoreNotifications } from "./notifications.js";
import type { DeliveryStore, Queue, TimerStore } from "./queue.js";
import type { AccountStore, ApiKeyStore, SettingsStore, WorkspaceStore } from "./tenants.js";
import type { SubscriptionStore, WebhookStore } from "./webhooks.js";

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
  /** Saved components. */
  savedComponents: SavedComponentStore;
  /** Deployed components. */
  deployedComponents: DeployedComponentStore;
  /** Dedupe state (written by `emits.commit`). */
  dedupe: DedupeStore;
  /** The component db service. */
  kv: KvStore;
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
  /** Settings shared by the nodes using the store. */
  settings: SettingsStore;
  /** What nodes claim: due deliveries and timer ticks. */
  queue: Queue;
  /** Change notifications, when the implementation has them (see {@link StoreNotifications}). */
  notifications?: StoreNotifications;
  /** Releases resources; the store must not be used afterwards (calls fail with `closed`). */
  close(): Promise<void>;
}
