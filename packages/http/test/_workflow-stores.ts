// The stores the workflow tests run on: memory and PGlite. Each must have workflows: a store
// without them fails its tests at open (never skipped).
import { PGlite } from "@electric-sql/pglite";
import { createMemoryStore, type Store } from "@hookline/store";
import { createSqlStore, pgliteClient } from "@hookline/store-sql";

export interface OpenedStore {
  store: Store;
  close(): Promise<void>;
}

export interface WorkflowStoreCase {
  name: string;
  open(): Promise<OpenedStore>;
}

/** Opens a store and checks that it has workflows. */
async function withWorkflows(name: string, opened: OpenedStore): Promise<OpenedStore> {
  if (opened.store.workflows === undefined || opened.store.queue.executions === undefined) {
    await opened.close();
    throw new Error(`the ${name} store has no workflows (store.workflows and store.queue.executions)`);
  }
  return opened;
}

/** The store cases, memory first. */
export const WORKFLOW_STORES: WorkflowStoreCase[] = [
  {
    name: "memory",
    open: () => withWorkflows("memory", { store: createMemoryStore(), close: async () => undefined }),
  },
  {
    name: "PGlite",
    async open() {
      const db = await PGlite.create();
      const store = await createSqlStore(pgliteClient(db));
      return withWorkflows("PGlite", {
        store,
        async close() {
          await store.close();
          await db.close();
        },
      });
    },
  },
];
