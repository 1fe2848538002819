/**
 * Columns and row mappers of workflows, executions and environment variables in SQL (as rows.ts for
 * the other tables). JSON values (trigger, steps, event, context, error, each step record) are kept
 * as JSON text, so they come back exactly as written.
 */
import type {
  EnvVar,
  Execution,
  ExecutionStatus,
  ExecutionTrigger,
  Workflow,
  WorkflowLimits,
} from "@hookline/store";
import type { SqlRow } from "../clients.js";
import { fromJson, optStr, str } from "./rows.js";

const isNull = (value: unknown): value is null | undefined => value === null || value === undefined;
const optNum = (value: unknown): number | undefined => (isNull(value) ? undefined : Number(value));

export const WORKFLOW = [
  "id",
  "workspace_id",
  "name",
  "trigger",
  "steps",
  "active",
  "endpoint_id",
  "source_id",
  "settings",
  "max_running",
  "throttle_limit",
  "throttle_interval_ms",
  "queue_size",
  "created_at",
  "updated_at",
] as const;

export const EXECUTION = [
  "id",
  "workspace_id",
  "workflow_id",
  "status",
  "trigger",
  "event",
  "context",
  "exit_reason",
  "error",
  "started_at",
  "finished_at",
  "lease_owner",
  "lease_expires_at",
  "run_at",
  "resume_data",
  "created_at",
  "updated_at",
] as const;

/** The limit columns of a workflow, in {@link WorkflowLimits} order, as SQL parameters. */
export const limitParams = (limits: WorkflowLimits | null | undefined): (number | null)[] => [
  limits?.maxRunning ?? null,
  limits?.throttleLimit ?? null,
  limits?.throttleIntervalMs ?? null,
  limits?.queueSize ?? null,
];

/** The select-list item of an execution's step records (an array of JSON texts), joined by commas. */
export const STEPS_OF = (alias: string): string => `array_to_string(${alias}.steps, ',') AS steps`;

export function toWorkflow(row: SqlRow): Workflow {
  const workflow: Workflow = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    name: str(row.name),
    trigger: fromJson(row.trigger) as Record<string, unknown>,
    steps: fromJson(row.steps) as Record<string, unknown>[],
    active: row.active === true || row.active === "t" || row.active === "true",
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  const endpointId = optStr(row.endpoint_id);
  if (endpointId !== undefined) workflow.endpointId = endpointId;
  const sourceId = optStr(row.source_id);
  if (sourceId !== undefined) workflow.sourceId = sourceId;
  const settings = fromJson(row.settings) as Record<string, unknown> | undefined;
  if (settings !== undefined) workflow.settings = settings;
  const limits: WorkflowLimits = {};
  const set = (key: keyof WorkflowLimits, value: unknown) => {
    if (!isNull(value)) limits[key] = Number(value);
  };
  set("maxRunning", row.max_running);
  set("throttleLimit", row.throttle_limit);
  set("throttleIntervalMs", row.throttle_interval_ms);
  set("queueSize", row.queue_size);
  if (Object.keys(limits).length > 0) workflow.limits = limits;
  return workflow;
}

export function toExecution(row: SqlRow): Execution {
  const execution: Execution = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    workflowId: str(row.workflow_id),
    status: str(row.status) as ExecutionStatus,
    trigger: str(row.trigger) as ExecutionTrigger,
    event: fromJson(row.event),
    // Step records are JSON texts (never encoded: JSON text holds no NUL or lone surrogate).
    steps: isNull(row.steps) ? [] : JSON.parse(`[${String(row.steps)}]`),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  const context = fromJson(row.context) as Record<string, unknown> | undefined;
  if (context !== undefined) execution.context = context;
  const exitReason = optStr(row.exit_reason);
  if (exitReason !== undefined) execution.exitReason = exitReason;
  const error = fromJson(row.error) as Execution["error"];
  if (error !== undefined) execution.error = error;
  const resumeData = fromJson(row.resume_data);
  if (resumeData !== undefined) execution.resumeData = resumeData;
  const optional = {
    startedAt: optNum(row.started_at),
    finishedAt: optNum(row.finished_at),
    leaseOwner: optStr(row.lease_owner),
    leaseExpiresAt: optNum(row.lease_expires_at),
    runAt: optNum(row.run_at),
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) (execution as unknown as Record<string, unknown>)[key] = value;
  }
  return execution;
}

export const toEnvVar = (row: SqlRow): EnvVar => ({
  workspaceId: str(row.workspace_id),
  name: str(row.name),
  value: str(row.value),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});
