/**
 * The in-memory {@link Store}: plain Maps, for tests and embedding. Each sub-store lives in its own
 * file over one shared {@link MemoryState}; this factory composes them.
 */
import type { Store, StoreNotice } from "../types/index.js";
import { memoryAccounts } from "./accounts.js";
import { memoryApiKeys } from "./api-keys.js";
import { memoryDataStores } from "./data-stores.js";
import { memoryDedupe } from "./dedupe.js";
import { memoryDeliveries } from "./deliveries.js";
import { memoryDeployedComponents } from "./deployed-components.js";
import { memoryEmits } from "./emits.js";
import { memoryEvents } from "./events.js";
import { memoryIdempotency } from "./idempotency.js";
import { memoryKv } from "./kv.js";
import { memoryLogs } from "./logs.js";
import { memoryAuthTickets, memoryOAuthClients } from "./oauth.js";
import { memoryQueue } from "./queue.js";
import { memoryReplays } from "./replays.js";
import { memorySavedComponents } from "./saved-components.js";
import { memorySettings } from "./settings.js";
import { createMemoryState, type MemoryStoreOptions } from "./state.js";
import { memorySubscriptions } from "./subscriptions.js";
import { memoryTimers } from "./timers.js";
import { memoryWebhooks } from "./webhooks.js";
import { memoryEnv, memoryExecutionQueue, memoryExecutions, memoryWorkflows } from "./workflows.js";
import { memoryWorkspaces } from "./workspaces.js";

export type { MemoryStoreOptions } from "./state.js";

/**
 * Creates an in-memory {@link Store}: plain Maps, for tests and embedding. Every operation runs
 * synchronously inside its promise, so each one is atomic (a commit that fails midway undoes what it
 * wrote). Returned rows are copies. Its `notifications` announce its own changes, in-process and
 * synchronously (every notice is `local`).
 *
 * @param options - Optional clock (and, for tests, a fault hook).
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const ws = await store.workspaces.create({ name: "Acme" });
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const s = createMemoryState(options);
  const deliveries = memoryDeliveries(s);
  return {
    workspaces: memoryWorkspaces(s),
    apiKeys: memoryApiKeys(s),
    accounts: memoryAccounts(s),
    oauthClients: memoryOAuthClients(s),
    authTickets: memoryAuthTickets(s),
    savedComponents: memorySavedComponents(s),
    deployedComponents: memoryDeployedComponents(s),
    dedupe: memoryDedupe(s),
    kv: memoryKv(s),
    dataStores: memoryDataStores(s),
    emits: memoryEmits(s),
    events: memoryEvents(s),
    logs: memoryLogs(s),
    webhooks: memoryWebhooks(s),
    subscriptions: memorySubscriptions(s),
    timers: memoryTimers(s),
    deliveries,
    replays: memoryReplays(s, deliveries),
    settings: memorySettings(s),
    idempotency: memoryIdempotency(s),
    queue: { ...memoryQueue(s), executions: memoryExecutionQueue(s) },
    workflows: memoryWorkflows(s),
    executions: memoryExecutions(s),
    env: memoryEnv(s),
    notifications: {
      subscribe(listener) {
        const own = (notice: StoreNotice) => listener(notice);
        s.listeners.add(own);
        return () => {
          s.listeners.delete(own);
        };
      },
    },
    async health() {
      s.open();
      return { pendingMigrations: [] };
    },
    async close() {
      s.close();
    },
  };
}
