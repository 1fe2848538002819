/**
 * Workflows (`p_...`), their executions (`exe_...`, with one record per step) and the workspace's
 * environment variables: the records, and the execution side of the Queue.
 *
 * The store keeps a workflow's `trigger` and `steps` as JSON it does not interpret (the engine and
 * `@hookline/core` own their rules); it only indexes what it must find rows by: the HTTP endpoint
 * (`endpointId`, unique across the store together with the deployed components' endpoints) and the
 * source a workflow listens to (`sourceId`).
 */
import type { Page } from "./errors.js";

/** A workflow: a trigger and ordered steps, active or not. */
export interface Workflow {
  /** `p_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** Display name. */
  name: string;
  /** The trigger, as the engine validated it (JSON; `{ type: "http" | "timer" | "source" | "manual", ... }`). */
  trigger: Record<string, unknown>;
  /** The steps, in order, as the engine validated them (JSON objects with at least a `name`). */
  steps: Record<string, unknown>[];
  /** Whether its trigger runs it (a manual run works either way). */
  active: boolean;
  /** `en_` id of its HTTP endpoint (HTTP trigger only; unique across the store). */
  endpointId?: string;
  /** The `dc_` source it listens to (source trigger only). */
  sourceId?: string;
  /**
   * Run settings as the engine validated them (JSON it does not interpret): `retry`, and what later
   * features add. Absent when none were given.
   */
  settings?: Record<string, unknown>;
  /** Limits on its runs that the execution queue's claim enforces. Absent: none. */
  limits?: WorkflowLimits;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** Input of {@link WorkflowStore.create}. */
export interface CreateWorkflowInput {
  /** Use this id instead of a new `p_` id. */
  id?: string;
  /** Owning workspace. */
  workspaceId: string;
  /** Display name. */
  name: string;
  /** The trigger (JSON). */
  trigger: Record<string, unknown>;
  /** The steps (JSON). */
  steps: Record<string, unknown>[];
  /** Whether its trigger runs it. */
  active: boolean;
  /** `en_` id of its HTTP endpoint. */
  endpointId?: string;
  /** The source it listens to. */
  sourceId?: string;
  /** Run settings (JSON). */
  settings?: Record<string, unknown>;
  /** Limits on its runs. */
  limits?: WorkflowLimits;
}

/**
 * Limits on a workflow's runs, enforced by {@link ExecutionQueue.claim}: at most `maxRunning`
 * executions `running` at once; at most `throttleLimit` first starts within any
 * `throttleIntervalMs`. (`queueSize` is the engine's: it refuses new runs beyond it.)
 */
export interface WorkflowLimits {
  maxRunning?: number;
  throttleLimit?: number;
  throttleIntervalMs?: number;
  queueSize?: number;
}

/** Fields of a workflow that {@link WorkflowStore.update} changes (`null` clears an optional field). */
export interface WorkflowPatch {
  /** New name. */
  name?: string;
  /** New trigger. */
  trigger?: Record<string, unknown>;
  /** New steps (replace the old ones). */
  steps?: Record<string, unknown>[];
  /** Activate or deactivate. */
  active?: boolean;
  /** New endpoint id, or null to remove it (throws `conflict` when taken). */
  endpointId?: string | null;
  /** New source, or null to remove it. */
  sourceId?: string | null;
  /** New run settings, or null to remove them. */
  settings?: Record<string, unknown> | null;
  /** New limits, or null to remove them. */
  limits?: WorkflowLimits | null;
}

/** Options of {@link WorkflowStore.list}. */
export interface ListWorkflowsOptions {
  /** Page size: 50 by default, at most 100. */
  limit?: number;
  /** Only workflows older than this cursor (a `nextCursor`: a `p_` id; anything else is `invalid`). */
  before?: string;
}

/** Workflow records. */
export interface WorkflowStore {
  /** Stores a workflow; throws `conflict` when `id` or `endpointId` is taken. */
  create(input: CreateWorkflowInput): Promise<Workflow>;
  /** The workflow, or undefined. */
  get(workspaceId: string, id: string): Promise<Workflow | undefined>;
  /** The workflow owning this endpoint, in any workspace (the ingress has no key). */
  getByEndpoint(endpointId: string): Promise<Workflow | undefined>;
  /** The workspace's workflows, newest first; `nextCursor` pages to older ones. */
  list(workspaceId: string, options?: ListWorkflowsOptions): Promise<Page<Workflow>>;
  /** The workspace's ACTIVE workflows whose `sourceId` is `sourceId`, oldest first. */
  listBySource(workspaceId: string, sourceId: string): Promise<Workflow[]>;
  /** Updates a workflow; undefined when not found; throws `conflict` on a taken endpoint. */
  update(workspaceId: string, id: string, patch: WorkflowPatch): Promise<Workflow | undefined>;
  /**
   * Deletes a workflow and, in the same step, its executions (and their steps), its timer and the
   * subscriptions where it is the emitter or the listener; its unfinished `$.send.http` requests
   * fail (`lastError` `workflow_deleted`). Its events stay until retention or `events.delete`
   * removes them. False when not found.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/**
 * Where an execution is: `queued` (accepted or waiting for its next try, claimable once `runAt`
 * is due), `running`, `succeeded`, `failed` (a step threw on its last try), `exited`
 * (`$.flow.exit`, or cancelled through its cancel URL), `delayed` (`$.flow.delay`/`$.flow.rerun`:
 * claimable once `runAt` is due) and `suspended` (`$.flow.suspend`: waits for its resume URL, or
 * `runAt`, its timeout).
 */
export type ExecutionStatus =
  | "queued"
  | "running"
  | "succeeded"
  | "failed"
  | "exited"
  | "delayed"
  | "suspended";

/** Where one step of an execution is. `skipped`: an earlier step exited or failed. */
export type ExecutionStepStatus = "pending" | "running" | "succeeded" | "failed" | "exited" | "skipped";

/** An error recorded on a step or an execution. */
export interface ExecutionError {
  /** A stable code (`error`, `timeout`, `configuration_error`, `expression_error`...). */
  code: string;
  /** The error's name, such as `TypeError`. */
  name?: string;
  /** The message. */
  message: string;
  /** The stack, with the component's own file names. */
  stack?: string;
}

/** One log line of a step. */
export interface ExecutionLog {
  /** `log`, `info`, `warn`, `error`, `debug`. */
  level: string;
  /** The text. */
  message: string;
  /** When it was logged. */
  ts: number;
}

/** The record of one step of an execution. */
export interface ExecutionStep {
  /** The step's name (unique in the workflow). */
  name: string;
  /** Where it is. */
  status: ExecutionStepStatus;
  /** What `run` returned (JSON). */
  returnValue?: unknown;
  /** What `$.export` exported, by name (`$summary` included). */
  exports?: Record<string, unknown>;
  /** The `$summary` export, as text. */
  summary?: string;
  /** The step's console output. */
  logs: ExecutionLog[];
  /** Why it failed. */
  error?: ExecutionError;
  /** When it started. */
  startedAt?: number;
  /** How long it ran. */
  durationMs?: number;
  /** How many times it was started (a try that failed, or whose node died, counts). */
  attempts: number;
  /** The error of each earlier try that failed, oldest first (retries). */
  attemptErrors?: ExecutionError[];
  /** What the resume URL's request body carried, after `$.flow.suspend`/`$.flow.delay` (`$resume_data`). */
  resumeData?: unknown;
  /** The pause this step asked for when it ended (`$.flow.delay`, `suspend` or `rerun`). */
  pause?: ExecutionPause;
  /**
   * A replay's copy of an earlier execution's record (`exe_...`): the step did not run again in this
   * execution, its result is the recorded one.
   */
  replayedFrom?: string;
}

/** A pause a step asked for: the run waits after it (or, for `rerun`, runs it again). */
export interface ExecutionPause {
  /** `delay`, `suspend` or `rerun`. */
  kind: "delay" | "suspend" | "rerun";
  /** When the wait ends (a suspend's timeout). */
  until?: number;
  /** For `rerun`: how many runs of the step so far, the context it passed, the most allowed. */
  runs?: number;
  context?: unknown;
  maxReruns?: number;
  /** How the pause ended: resumed through its URL, or due (a delay passed, a suspend timed out). */
  outcome?: "resumed" | "due" | "timeout";
}

/** What started an execution. */
export type ExecutionTrigger = "http" | "timer" | "source" | "manual";

/** One run of a workflow. */
export interface Execution {
  /** `exe_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The workflow. */
  workflowId: string;
  /** Where it is. */
  status: ExecutionStatus;
  /** What started it. */
  trigger: ExecutionTrigger;
  /** The trigger event (`steps.trigger.event`). */
  event: unknown;
  /** The trigger context (`steps.trigger.context`), JSON. */
  context?: Record<string, unknown>;
  /** One record per step of the workflow, in order (`pending` until reached). */
  steps: ExecutionStep[];
  /** The reason given to `$.flow.exit`, when it exited. */
  exitReason?: string;
  /** Why it failed (the failing step's error, or the engine's). */
  error?: ExecutionError;
  /** When it started running. */
  startedAt?: number;
  /** When it ended. */
  finishedAt?: number;
  /** The node running it (while `running`). */
  leaseOwner?: string;
  /** When that node's claim expires (while `running`). */
  leaseExpiresAt?: number;
  /** When it is due (`queued`, `delayed`, `suspended`): no node claims it before. */
  runAt?: number;
  /** The body a resume URL received, until the run takes it up. */
  resumeData?: unknown;
  /** When it was accepted. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** Input of {@link ExecutionStore.create}. */
export interface CreateExecutionInput {
  /** Use this id instead of a new `exe_` id. */
  id?: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The workflow (throws `not_found` when it is not a workflow of the workspace). */
  workflowId: string;
  /** What started it. */
  trigger: ExecutionTrigger;
  /** The trigger event. */
  event: unknown;
  /** The trigger context. */
  context?: Record<string, unknown>;
  /** `queued` (claimed later through {@link ExecutionQueue.claim}) or `running` (leased to `leaseOwner`). */
  status: "queued" | "running";
  /** The step records to start with (usually every step `pending`). */
  steps: ExecutionStep[];
  /** For `running`: the node running it. */
  leaseOwner?: string;
  /** For `running`: when that claim expires. */
  leaseExpiresAt?: number;
  /** For `running`: when it started. */
  startedAt?: number;
  /** For `queued`: when it is due (now when absent). */
  runAt?: number;
}

/** Fields of an execution that {@link ExecutionStore.update} changes. */
export interface ExecutionPatch {
  /** New status. A final one (`succeeded`, `failed`, `exited`) drops the lease. */
  status?: ExecutionStatus;
  /** The exit reason. */
  exitReason?: string;
  /** The execution's error. */
  error?: ExecutionError;
  /** When it started. */
  startedAt?: number;
  /** When it ended. */
  finishedAt?: number;
  /** Extends the claim of the running node. */
  leaseExpiresAt?: number;
  /** When it is due (`queued`, `delayed`, `suspended`); null clears it. */
  runAt?: number | null;
  /**
   * The SHA-256 hex hashes of the paused step's resume and cancel tokens (null clears them); see
   * {@link ExecutionStore.useToken}.
   */
  tokens?: { resume: string; cancel: string } | null;
  /** Clears the resume data once the run took it up. */
  clearResumeData?: boolean;
  /**
   * Applies the patch only if no resume data is stored (a resume URL called while the step ran):
   * `update` then answers undefined and changes nothing.
   */
  ifNoResumeData?: boolean;
  /**
   * Every step's record, replacing the stored ones (the same count as the workflow's steps; the
   * engine writes them with the execution's end, and one by one with `putStep` for long runs).
   */
  steps?: ExecutionStep[];
}

/** Options of {@link ExecutionStore.list}. */
export interface ListExecutionsOptions {
  /** Page size: 50 by default, at most 100. */
  limit?: number;
  /** Only executions older than this cursor (a `nextCursor`: an `exe_` id; anything else is `invalid`). */
  before?: string;
  /** Only executions in this status. */
  status?: ExecutionStatus;
}

/** Execution records: an execution row plus one record per step. */
export interface ExecutionStore {
  /** Stores an execution; throws `not_found` when the workflow is not the workspace's. */
  create(input: CreateExecutionInput): Promise<Execution>;
  /** The execution with its steps, or undefined. */
  get(workspaceId: string, id: string): Promise<Execution | undefined>;
  /** The workflow's executions with their steps, newest first; `nextCursor` pages to older ones. */
  list(workspaceId: string, workflowId: string, options?: ListExecutionsOptions): Promise<Page<Execution>>;
  /** Updates an execution's own fields; undefined when not found. */
  update(workspaceId: string, id: string, patch: ExecutionPatch): Promise<Execution | undefined>;
  /**
   * Writes the record of step `index` (0-based, in workflow order), replacing what was there;
   * false when the execution is not found or has no step at `index`.
   */
  putStep(workspaceId: string, id: string, index: number, step: ExecutionStep): Promise<boolean>;
  /**
   * Writes several step records in one statement (the engine writes a step's end together with the
   * next step's start); false, and nothing written, when the execution is not found or an index
   * is out of range. With `tokens`, the same statement stores the starting step's token hashes
   * (its resume URL works while it runs) and clears any resume data.
   */
  putSteps(
    workspaceId: string,
    id: string,
    steps: { index: number; step: ExecutionStep }[],
    tokens?: { resume: string; cancel: string },
  ): Promise<boolean>;
  /**
   * Uses a paused (`delayed` or `suspended`) execution's resume or cancel token, by its hash, once:
   * both tokens are cleared in the same statement. Resume: the execution becomes `queued`, due
   * `now`, with `resumeData` = `data` (`null` when absent). Cancel: it becomes `exited` (exit
   * reason `cancelled`, `finishedAt` = `now`). A resume token of a `running` execution (its step
   * has not ended yet) stores `resumeData` and leaves the status. Undefined when no such execution
   * `id` has this `kind` of token with this hash.
   */
  useToken(
    id: string,
    kind: "resume" | "cancel",
    hash: string,
    now: number,
    data?: unknown,
  ): Promise<Execution | undefined>;
  /** How many of the workflow's executions are `queued` (accepted or waiting for a retry). */
  countQueued(workflowId: string): Promise<number>;
  /**
   * Retention: deletes the workflow's executions beyond the newest `keep` (by id), but only those
   * that ended (`succeeded`, `failed`, `exited`); returns the number deleted.
   */
  trim(workflowId: string, keep: number): Promise<number>;
}

/** Options of {@link ExecutionQueue.claim}. */
export interface ClaimExecutionsOptions {
  /** The claiming node. */
  owner: string;
  /** The current time. */
  now: number;
  /** How long the claim lasts. */
  leaseMs: number;
  /** At most this many executions. */
  limit: number;
}

/** The execution side of the Queue: queued executions, each run by exactly one node. */
export interface ExecutionQueue {
  /**
   * Leases up to `limit` due executions (`queued`, `delayed` or `suspended` with `runAt` unset or
   * `<= now`), oldest first, to `owner`: they become `running` with `leaseOwner`,
   * `leaseExpiresAt = now + leaseMs`, `runAt` cleared and `startedAt` (when unset) `now`. An
   * execution is never returned to two concurrent claimers. A `suspended` one is due at its timeout.
   * A workflow's {@link WorkflowLimits} hold across concurrent claimers: no claim makes more than
   * `maxRunning` of its executions `running` (under a live lease), nor starts (first claims, when
   * `startedAt` was unset) more than `throttleLimit` of them within `throttleIntervalMs` before `now`.
   */
  claim(options: ClaimExecutionsOptions): Promise<Execution[]>;
  /** Returns `running` executions whose lease expired (`leaseExpiresAt <= now`) to `queued`; the count. */
  sweep(now: number): Promise<number>;
}

/** An environment variable of a workspace. */
export interface EnvVar {
  /** Owning workspace. */
  workspaceId: string;
  /** The name (`^[A-Za-z_][A-Za-z0-9_]*$`, unique per workspace). */
  name: string;
  /** The value, encrypted by the caller (the engine's secret box). */
  value: string;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** The workspace's environment variables (values encrypted by the caller). */
export interface EnvStore {
  /** Creates or replaces a variable. */
  set(workspaceId: string, name: string, value: string): Promise<EnvVar>;
  /** The variable, or undefined. */
  get(workspaceId: string, name: string): Promise<EnvVar | undefined>;
  /** The workspace's variables, sorted by name. */
  list(workspaceId: string): Promise<EnvVar[]>;
  /** Deletes a variable; false when absent. */
  delete(workspaceId: string, name: string): Promise<boolean>;
}
