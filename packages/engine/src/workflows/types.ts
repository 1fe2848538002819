/**
 * The public types of the engine's workflows (`hookline.workflows`) and environment variables
 * (`hookline.env`). A leaf module: every workflow module imports its types from here.
 */
import type {
  ConcurrencyLimit,
  RetryPolicy,
  ThrottleLimit,
  WorkflowDefinition,
  WorkflowStep,
  WorkflowTrigger,
} from "@hookline/core";
import type { EventPage, Execution, ExecutionStatus, Page } from "@hookline/store";
import type { EventSearchOptions } from "../event-search.js";

/** A workflow's trigger as the engine returns it: an HTTP trigger also has its endpoint. */
export type WorkflowTriggerView = WorkflowTrigger & {
  /** HTTP trigger: the endpoint's id (`en_...`). */
  endpoint_id?: string;
  /** HTTP trigger: the public URL, `<baseUrl>/http/<endpoint_id>`. */
  endpoint_url?: string;
};

/** A workflow (`p_...`) as the engine returns it. */
export interface WorkflowView {
  id: string;
  workspaceId: string;
  name: string;
  trigger: WorkflowTriggerView;
  steps: WorkflowStep[];
  active: boolean;
  /** The workflow's retry policy, when it has one. */
  retry?: RetryPolicy;
  /** At most this many runs at once. */
  concurrency?: ConcurrencyLimit;
  /** At most this many starts per interval. */
  throttle?: ThrottleLimit;
  /** At most this many runs waiting. */
  queue_size?: number;
  createdAt: number;
  updatedAt: number;
  /** When its timer trigger fires next (epoch ms): an active timer workflow; from the store's schedule. */
  nextRunAt?: number;
}

/** An execution (`exe_...`) as the engine returns it: status, trigger event, each step's record. */
export type ExecutionView = Omit<Execution, "leaseOwner" | "leaseExpiresAt" | "resumeData">;

/** The run settings of a workflow, each removable with `null` on an update. */
export type SettingKey = "retry" | "concurrency" | "throttle" | "queue_size";

/** What `hookline.workflows.update` takes: the fields given replace the stored ones (`null` removes a setting). */
export type WorkflowUpdate = Partial<Omit<WorkflowDefinition, SettingKey>> & {
  [K in SettingKey]?: WorkflowDefinition[K] | null;
};

/** Options of `hookline.workflows.run`. */
export interface RunWorkflowOptions {
  /** The trigger event (`steps.trigger.event`); `{}` when absent. */
  event?: unknown;
  /** Resolve at once with the `queued` execution instead of waiting for its end. */
  async?: boolean;
}

/** Options of `hookline.workflows.test`. */
export interface TestRunOptions {
  /** The trigger event (`steps.trigger.event`); default the `fromExecution`'s event, else `{}`. */
  event?: unknown;
  /**
   * An unsaved version of the workflow to run instead of the stored one (the fields given replace
   * the stored ones, checked as an update is: 422 `invalid_workflow`); nothing is saved. A run that
   * waits (a retry asked with `autoRetry`, `$.flow.delay`) continues with the saved workflow.
   */
  draft?: WorkflowUpdate;
  /** Run up to this step and skip the later ones. */
  stopAfter?: string;
  /** An execution of this workflow whose results the steps before `fromStep` keep (with `fromStep`). */
  fromExecution?: string;
  /** Run from this step; the earlier ones are copied from `fromExecution`, where they must have succeeded. */
  fromStep?: string;
  /** Retry failing steps by the workflow's retry policy (default: a test run never retries). */
  autoRetry?: boolean;
}

/** Options of `hookline.workflows.replay`. */
export interface ExecutionReplayOptions {
  /** The event to run with instead of the original one (`steps.trigger.event`). */
  event?: unknown;
  /**
   * Run from this step: the earlier steps are not run again, their recorded results (return value,
   * exports, logs) are copied from the original execution, which must have them `succeeded`.
   */
  fromStep?: string;
}

/** Options of `hookline.workflows.replayMany`. */
export interface BulkReplayOptions {
  /** Replay the executions in this status: `failed` (the default), `succeeded` or `exited`. */
  status?: ExecutionStatus;
  /** Only executions created at or after this time (epoch ms). */
  since?: number;
  /** Only executions created before this time (epoch ms). */
  until?: number;
  /** At most this many (50 by default, at most 100); `nextCursor` continues. */
  limit?: number;
  /** The `nextCursor` of the previous call: continue with older executions. */
  after?: string;
}

/** What `hookline.workflows.replayMany` queued. */
export interface BulkReplayResult {
  /** How many replays were queued. */
  queued: number;
  /** Each new execution (`queued`) and the one it replays, newest original first. */
  executions: { id: string; replayOf: string }[];
  /** Present when more executions of the window remain: pass it as `after`. */
  nextCursor?: string;
}

/** Paging of workflow and execution lists: newest first, `before` a `nextCursor`. */
export interface ListOptions {
  /** Page size (50 by default, at most 100). */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  before?: string;
}

/** The workflows API: `hookline.workflows`. Another workspace's workflow is `not_found` (404). */
export interface WorkflowsApi {
  /**
   * Creates a workflow: the definition checked (`invalid_workflow`, 422, `details.problems` naming
   * each field such as `steps[1].name`), every step's component found and loaded, an HTTP trigger
   * given its endpoint, a timer trigger scheduled.
   *
   * @example
   * ```ts
   * const wf = await hookline.workflows.create(ws.id, {
   *   name: "greet",
   *   trigger: { type: "http", custom_response: true },
   *   steps: [
   *     { name: "hello", component_code: `export default defineComponent({ async run({ steps }) {
   *         return { hi: steps.trigger.event.body.name } } })` },
   *     { name: "reply", component_code: `export default defineComponent({ props: { text: { type: "string" } },
   *         async run({ $ }) { await $.respond({ status: 200, body: this.text }) } })`,
   *       configured_props: { text: "Hello {{steps.hello.$return_value.hi}}" } },
   *   ],
   * });
   * console.log(wf.trigger.endpoint_url);
   * ```
   */
  create(workspaceId: string, definition: WorkflowDefinition): Promise<WorkflowView>;
  /** A workflow (404 `not_found` when absent). */
  get(workspaceId: string, id: string): Promise<WorkflowView>;
  /** The workspace's workflows, newest first. */
  list(workspaceId: string, options?: ListOptions): Promise<Page<WorkflowView>>;
  /** Replaces the given fields (name, trigger, steps, active), checked as on create. */
  update(workspaceId: string, id: string, update: WorkflowUpdate): Promise<WorkflowView>;
  /** Deletes a workflow, its executions, its timer and its subscriptions. */
  delete(workspaceId: string, id: string): Promise<void>;
  /**
   * Runs a workflow now with `event` (any trigger type, active or not). Resolves with the finished
   * execution, or at once with the `queued` one when `async`.
   *
   * @example
   * ```ts
   * const exe = await hookline.workflows.run(ws.id, wf.id, { event: { body: { name: "Ada" } } });
   * console.log(exe.status, exe.steps.map((s) => [s.name, s.returnValue, s.summary]));
   * ```
   */
  run(workspaceId: string, id: string, options?: RunWorkflowOptions): Promise<ExecutionView>;
  /**
   * A test run, as the workflow editor's "Test" does: a manual run marked `context.test: true`,
   * run at once whatever the workflow's limits, that fails at a failing step's first try unless
   * `autoRetry` asks for the retry policy. It runs the saved workflow or an unsaved `draft`, from
   * the first step or from `fromStep` (the earlier steps' results copied from `fromExecution`),
   * up to `stopAfter`. A `stop_after`, `from_step` or `from_execution` that does not fit is 422
   * `validation_failed` naming it.
   *
   * @example
   * ```ts
   * const first = await hookline.workflows.test(ws.id, wf.id, { event: { body: { n: 1 } }, stopAfter: "load" });
   * // Then run only the next step, with load's recorded result:
   * const next = await hookline.workflows.test(ws.id, wf.id, {
   *   fromExecution: first.id, fromStep: "total", stopAfter: "total",
   * });
   * console.log(next.context?.test, next.steps.map((s) => s.status)); // true ["succeeded", "succeeded", "skipped"]
   * ```
   */
  test(workspaceId: string, id: string, options?: TestRunOptions): Promise<ExecutionView>;
  /** The workflow's executions, newest first, optionally of one status. */
  executions(
    workspaceId: string,
    id: string,
    options?: ListOptions & { status?: ExecutionStatus },
  ): Promise<Page<ExecutionView>>;
  /** One execution of the workflow (404 when absent). */
  execution(workspaceId: string, id: string, executionId: string): Promise<ExecutionView>;
  /**
   * What the workflow emitted (`$.send.emit`, and `$errors`), newest first, searched as a source's
   * events are (`filter`, `since`/`until`, the `scan` budget).
   *
   * @example
   * ```ts
   * const refunds = await hookline.workflows.events(ws.id, wf.id, { filter: { "event.kind": "refund" } });
   * ```
   */
  events(workspaceId: string, id: string, options?: EventSearchOptions): Promise<EventPage>;
  /** Deletes the given events of the workflow, or all; returns how many. */
  deleteEvents(workspaceId: string, id: string, ids?: string[]): Promise<number>;
  /**
   * Uses the single-use token of a paused run's resume or cancel URL (what `$.flow.delay`,
   * `$.flow.suspend` and `$.flow.rerun` return). The token is the credential: no workspace is
   * needed. Resume: the run continues now, `data` becoming the paused step's `$resume_data`
   * (`$.context.run.callback_request` after a rerun). Cancel: the run ends `exited` (exit reason
   * `cancelled`), later steps `skipped`. 404 `not_found` when the run is not paused or the token
   * is wrong or used.
   *
   * @example
   * ```ts
   * const url = new URL(resumeUrl); // from steps.wait.$return_value.resume_url
   * const [, , , exeId] = url.pathname.split("/");
   * await hookline.workflows.flow("resume", exeId, url.searchParams.get("token") ?? "", { approved: true });
   * ```
   */
  flow(kind: "resume" | "cancel", executionId: string, token: string, data?: unknown): Promise<ExecutionView>;
  /**
   * Replays an execution: a new one (queued, run by any node) of the workflow's current version,
   * with the original event or `event`, from the first step or from `fromStep` with the earlier
   * steps' recorded results. Its context is the original's with `replay_of`. A `fromStep` the
   * workflow lacks, or whose earlier steps did not all succeed, is 422 `validation_failed` naming
   * `from_step`; an event over the run's size cap is 413 `execution_too_large`.
   *
   * @example
   * ```ts
   * const failed = (await hookline.workflows.executions(ws.id, wf.id, { status: "failed" })).items[0];
   * const again = await hookline.workflows.replay(ws.id, wf.id, failed.id, {
   *   fromStep: "charge",
   *   event: { ...(failed.event as object), amount: 10 },
   * });
   * console.log(again.status, again.context?.replay_of); // "queued", failed.id
   * ```
   */
  replay(
    workspaceId: string,
    id: string,
    executionId: string,
    options?: ExecutionReplayOptions,
  ): Promise<ExecutionView>;
  /**
   * Bulk replay: replays the workflow's executions in `status` (default `failed`) created in a
   * window, newest first, at most `limit` per call; `nextCursor` continues with older ones.
   *
   * @example
   * ```ts
   * let after: string | undefined;
   * do {
   *   const got = await hookline.workflows.replayMany(ws.id, wf.id, { since: Date.now() - 3_600_000, after });
   *   console.log(`${got.queued} replays queued`);
   *   after = got.nextCursor;
   * } while (after);
   * ```
   */
  replayMany(workspaceId: string, id: string, options?: BulkReplayOptions): Promise<BulkReplayResult>;
}

/** An environment variable as the engine returns it: never its value. */
export interface EnvVarView {
  name: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * The workspace's environment variables: `hookline.env`. Values are encrypted at rest and never
 * returned; workflow expressions read them as `{{process.env.NAME}}`.
 */
export interface EnvApi {
  /**
   * Sets a variable. `name` matches `^[A-Za-z_][A-Za-z0-9_]*$` (422 `validation_failed`), `value`
   * is a string of at most 64KB.
   *
   * @example
   * ```ts
   * await hookline.env.set(ws.id, "API_BASE", "https://api.example.com");
   * (await hookline.env.list(ws.id)).map((v) => v.name); // ["API_BASE"]
   * ```
   */
  set(workspaceId: string, name: string, value: string): Promise<EnvVarView>;
  /** The variables' names (sorted), never their values. */
  list(workspaceId: string): Promise<EnvVarView[]>;
  /** Deletes a variable (404 `not_found` when absent). */
  delete(workspaceId: string, name: string): Promise<void>;
}
