/**
 * Row builders of workflows and executions, the same in every adapter (as rows.ts for the others):
 * ids, defaults, optional fields omitted when unset, deep values copied.
 */
import { newId } from "@hookline/core";
import type { CreateExecutionInput, CreateWorkflowInput, Execution, Workflow } from "../types/index.js";

/**
 * The workflow `create` stores.
 *
 * @example
 * ```ts
 * newWorkflow({ workspaceId, name: "w", trigger: { type: "manual" }, steps: [], active: true }, Date.now()).id; // "p_..."
 * ```
 */
export function newWorkflow(input: CreateWorkflowInput, now: number): Workflow {
  const row: Workflow = {
    id: input.id ?? newId("p", now),
    workspaceId: input.workspaceId,
    name: input.name,
    trigger: structuredClone(input.trigger),
    steps: structuredClone(input.steps),
    active: input.active,
    createdAt: now,
    updatedAt: now,
  };
  if (input.endpointId !== undefined) row.endpointId = input.endpointId;
  if (input.sourceId !== undefined) row.sourceId = input.sourceId;
  if (input.settings !== undefined) row.settings = structuredClone(input.settings);
  if (input.limits !== undefined) row.limits = { ...input.limits };
  return row;
}

/**
 * The execution `create` stores (the lease and `startedAt` only for a `running` one).
 *
 * @example
 * ```ts
 * newExecution({ workspaceId, workflowId, trigger: "manual", event: {}, status: "queued", steps: [] }, Date.now()).id; // "exe_..."
 * ```
 */
export function newExecution(input: CreateExecutionInput, now: number): Execution {
  const row: Execution = {
    id: input.id ?? newId("exe", now),
    workspaceId: input.workspaceId,
    workflowId: input.workflowId,
    status: input.status,
    trigger: input.trigger,
    event: structuredClone(input.event),
    steps: structuredClone(input.steps),
    createdAt: now,
    updatedAt: now,
  };
  if (input.context !== undefined) row.context = structuredClone(input.context);
  if (input.status === "queued" && input.runAt !== undefined) row.runAt = input.runAt;
  if (input.status === "running") {
    if (input.leaseOwner !== undefined) row.leaseOwner = input.leaseOwner;
    if (input.leaseExpiresAt !== undefined) row.leaseExpiresAt = input.leaseExpiresAt;
    row.startedAt = input.startedAt ?? now;
  }
  return row;
}

/**
 * Whether an execution is claimable at `now`: queued and due (`runAt` unset or past), or delayed or
 * suspended with a `runAt` that is past (a pause without a due time waits for its resume URL).
 *
 * @example
 * ```ts
 * isDue({ status: "delayed", runAt: 1000 }, 2000); // true
 * ```
 */
export function isDue(exe: Pick<Execution, "status" | "runAt">, now: number): boolean {
  if (exe.status === "queued") return exe.runAt === undefined || exe.runAt <= now;
  const paused = exe.status === "delayed" || exe.status === "suspended";
  return paused && exe.runAt !== undefined && exe.runAt <= now;
}

/** Whether an execution status is final (`succeeded`, `failed`, `exited`): its lease is dropped. */
export function isFinalStatus(status: string): boolean {
  return status === "succeeded" || status === "failed" || status === "exited";
}
