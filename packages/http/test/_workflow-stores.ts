import { createMemoryStore, type Store } from "@hookline/store";
import { createSqlStore, pgliteClient } from "@hookline/store-sql";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";

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
      const db = await freshPglite();
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
