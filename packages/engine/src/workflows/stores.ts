/** The workflow sub-stores of the engine's store, or a clear error when the adapter has none. */
import { HooklineError } from "@hookline/core";
import type { EnvStore, ExecutionQueue, ExecutionStore, Store, WorkflowStore } from "@hookline/store";

/** The store's workflow parts, all present. @internal */
export interface WorkflowStores {
  workflows: WorkflowStore;
  executions: ExecutionStore;
  env: EnvStore;
  queue: ExecutionQueue;
}

/** The store's workflow parts; `internal_error` naming the gap when the adapter has none. @internal */
export function wfStores(store: Store): WorkflowStores {
  const { workflows, executions, env } = store;
  const queue = store.queue.executions;
  if (!workflows || !executions || !env || !queue) {
    throw new HooklineError(
      "internal_error",
      "This store has no workflows (store.workflows, store.executions, store.env and store.queue.executions)",
    );
  }
  return { workflows, executions, env, queue };
}
