// The stores the workflow tests run on: memory, and PGlite once store-sql has workflows (the
// `workflows` capability of the Store; until then the PGlite runs show as skipped).
import { PGlite } from "@electric-sql/pglite";
import { createMemoryStore, type Store } from "@hookline/store";
import { createSqlStore, pgliteClient } from "@hookline/store-sql";

export interface OpenedStore {
  store: Store;
  close(): Promise<void>;
}

export interface WorkflowStoreCase {
  name: string;
  /** False when the store has no workflows yet: its tests are skipped. */
  supported: boolean;
  open(): Promise<OpenedStore>;
}

async function openPglite(): Promise<OpenedStore> {
  const db = await PGlite.create();
  const store = await createSqlStore(pgliteClient(db));
  return {
    store,
    async close() {
      await store.close();
      await db.close();
    },
  };
}

/** Whether store-sql implements workflows (checked once, on a throwaway PGlite). */
async function sqlHasWorkflows(): Promise<boolean> {
  const opened = await openPglite();
  try {
    return opened.store.workflows !== undefined && opened.store.queue.executions !== undefined;
  } finally {
    await opened.close();
  }
}

/** The store cases, memory first. */
export async function workflowStores(): Promise<WorkflowStoreCase[]> {
  return [
    {
      name: "memory",
      supported: true,
      open: async () => ({ store: createMemoryStore(), close: async () => undefined }),
    },
    { name: "PGlite", supported: await sqlHasWorkflows(), open: openPglite },
  ];
}
