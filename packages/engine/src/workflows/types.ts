/**
 * The public types of the engine's workflows (`hookline.workflows`) and environment variables
 * (`hookline.env`). A leaf module: every workflow module imports its types from here.
 */
import type { WorkflowDefinition, WorkflowStep, WorkflowTrigger } from "@hookline/core";
import type { Execution, ExecutionStatus, Page, StoredEvent } from "@hookline/store";

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
  createdAt: number;
  updatedAt: number;
}

/** An execution (`exe_...`) as the engine returns it: status, trigger event, each step's record. */
export type ExecutionView = Omit<Execution, "leaseOwner" | "leaseExpiresAt">;

/** What `hookline.workflows.update` takes: the fields given replace the stored ones. */
export type WorkflowUpdate = Partial<WorkflowDefinition>;

/** Options of `hookline.workflows.run`. */
export interface RunWorkflowOptions {
  /** The trigger event (`steps.trigger.event`); `{}` when absent. */
  event?: unknown;
  /** Resolve at once with the `queued` execution instead of waiting for its end. */
  async?: boolean;
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
  /** The workflow's executions, newest first, optionally of one status. */
  executions(
    workspaceId: string,
    id: string,
    options?: ListOptions & { status?: ExecutionStatus },
  ): Promise<Page<ExecutionView>>;
  /** One execution of the workflow (404 when absent). */
  execution(workspaceId: string, id: string, executionId: string): Promise<ExecutionView>;
  /** What the workflow emitted (`$.send.emit`, and `$errors`), newest first, as a source's events. */
  events(
    workspaceId: string,
    id: string,
    options?: { limit?: number; before?: string; after?: string; channel?: string },
  ): Promise<Page<StoredEvent>>;
  /** Deletes the given events of the workflow, or all; returns how many. */
  deleteEvents(workspaceId: string, id: string, ids?: string[]): Promise<number>;
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
