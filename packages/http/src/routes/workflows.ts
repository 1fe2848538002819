/**
 * `/v1/workflows`: create, list, read, update (`active` activates and deactivates), delete and run
 * workflows; their executions and events. And `/v1/env`: the workspace's environment variables.
 */
import { EventSummarySchema, type WorkflowDefinition } from "@hookline/core";
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { envJson, executionJson, workflowJson } from "../_workflow-json.js";
import { EventSummaryParams, eventSearchOf, eventSummaryList } from "./_event-summaries.js";
import { Deleted, ListParams } from "./_schemas.js";

/** An execution's status. */
export const ExecutionStatus = Type.Union(
  ["queued", "running", "succeeded", "failed", "exited", "delayed", "suspended"].map((s) => Type.Literal(s)),
);

/** A workflow. */
export const WorkflowData = Type.Object({
  id: Type.String({ pattern: "^p_" }),
  name: Type.String(),
  trigger: Type.Record(Type.String(), Type.Unknown(), {
    description: "http (with endpoint_url), timer, source or manual",
  }),
  steps: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  active: Type.Boolean(),
  next_run_at: Type.Union([Type.Integer(), Type.Null()], {
    description: "When an active timer workflow runs next (epoch seconds); null otherwise",
  }),
  retry: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: "The retry policy" })),
  concurrency: Type.Optional(Type.Object({ max: Type.Integer() })),
  throttle: Type.Optional(Type.Object({ limit: Type.Integer(), interval_ms: Type.Integer() })),
  queue_size: Type.Optional(Type.Integer()),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

/** An execution. */
export const ExecutionData = Type.Object({
  id: Type.String({ pattern: "^exe_" }),
  workflow_id: Type.String(),
  status: ExecutionStatus,
  trigger: Type.String(),
  event: Type.Unknown(),
  context: Type.Unknown(),
  replay_of: Type.Union([Type.String(), Type.Null()], { description: "The execution this one replays" }),
  steps: Type.Array(
    Type.Object({
      name: Type.String(),
      status: Type.String(),
      return_value: Type.Unknown(),
      exports: Type.Record(Type.String(), Type.Unknown()),
      summary: Type.Union([Type.String(), Type.Null()]),
      logs: Type.Array(Type.Unknown()),
      error: Type.Unknown(),
      started_at: Type.Union([Type.Integer(), Type.Null()]),
      started_at_ms: Type.Union([Type.Number(), Type.Null()]),
      duration_ms: Type.Union([Type.Number(), Type.Null()]),
      attempts: Type.Integer(),
      attempt_errors: Type.Array(Type.Unknown(), { description: "The error of each failed try" }),
      resume_data: Type.Optional(Type.Unknown({ description: "The resume URL's request body" })),
      pause: Type.Optional(Type.Unknown({ description: "The $.flow pause this step asked for" })),
      replayed_from: Type.Union([Type.String(), Type.Null()], {
        description: "A replay's copy of this step's record from that execution (the step did not run again)",
      }),
    }),
  ),
  exit_reason: Type.Union([Type.String(), Type.Null()]),
  error: Type.Unknown(),
  created_at: Type.Integer(),
  started_at: Type.Union([Type.Integer(), Type.Null()]),
  started_at_ms: Type.Union([Type.Number(), Type.Null()]),
  finished_at: Type.Union([Type.Integer(), Type.Null()]),
  finished_at_ms: Type.Union([Type.Number(), Type.Null()]),
  run_at_ms: Type.Union([Type.Number(), Type.Null()], {
    description: "When a queued (retry), delayed or suspended run is due",
  }),
});

const EnvData = Type.Object({ name: Type.String(), created_at: Type.Integer(), updated_at: Type.Integer() });

/** Definition fields: checked by core's `validateWorkflow` (422 `invalid_workflow` naming the field). */
const Definition = {
  name: Type.Optional(Type.Unknown({ description: "The workflow's name" })),
  trigger: Type.Optional(Type.Unknown({ description: "{type: http|timer|source|manual, ...}" })),
  steps: Type.Optional(
    Type.Unknown({ description: "[{name, component_id|component_key|component_code, configured_props?}]" }),
  ),
  active: Type.Optional(Type.Boolean()),
  retry: Type.Optional(
    Type.Unknown({ description: "{count, initial_ms, factor, max_ms, jitter}: every step's retry policy" }),
  ),
  concurrency: Type.Optional(Type.Unknown({ description: "{max}: at most this many runs at once" })),
  throttle: Type.Optional(
    Type.Unknown({ description: "{limit, interval_ms}: at most this many starts per interval" }),
  ),
  queue_size: Type.Optional(Type.Unknown({ description: "At most this many runs waiting (429 beyond)" })),
};

/** The definition fields of a request. */
export type DefinitionParams = Partial<Record<(typeof DEFINITION_KEYS)[number], unknown>>;

const DEFINITION_KEYS = [
  "name",
  "trigger",
  "steps",
  "active",
  "retry",
  "concurrency",
  "throttle",
  "queue_size",
] as const;

export function definitionOf(params: DefinitionParams): Partial<WorkflowDefinition> {
  const out: Record<string, unknown> = {};
  for (const key of DEFINITION_KEYS) {
    if (params[key] !== undefined) out[key] = params[key];
  }
  return out as Partial<WorkflowDefinition>;
}

const page = <T>(items: T[], nextCursor: string | undefined, idOf: (t: T) => string) => ({
  cursor: (index: number) => idOf(items[index] as T),
  pageInfo: {
    count: items.length,
    start_cursor: items[0] ? idOf(items[0]) : null,
    end_cursor: nextCursor ?? null,
  },
});

/** The workflow and environment variable routes. */
export const workflowRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/workflows",
    tag: "Workflows",
    summary: "Create a workflow: a name, a trigger and ordered steps",
    params: Type.Object(Definition),
    data: WorkflowData,
    async handler({ hookline, workspaceId, params }) {
      const def = definitionOf(params) as WorkflowDefinition;
      return { data: workflowJson(await hookline.workflows.create(workspaceId, def)) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/workflows",
    tag: "Workflows",
    summary: "List workflows, newest first",
    params: Type.Object(ListParams),
    data: WorkflowData,
    list: true,
    async handler({ hookline, workspaceId, params }) {
      const got = await hookline.workflows.list(workspaceId, {
        limit: params.limit ?? 20,
        ...(params.after ? { before: params.after } : {}),
      });
      return { list: got.items.map(workflowJson), ...page(got.items, got.nextCursor, (w) => w.id) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/workflows/{id}",
    tag: "Workflows",
    summary: "Get a workflow",
    data: WorkflowData,
    async handler({ hookline, workspaceId, path }) {
      return { data: workflowJson(await hookline.workflows.get(workspaceId, path.id as string)) };
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/workflows/{id}",
    tag: "Workflows",
    summary: "Update a workflow: the fields given replace the stored ones (active activates or deactivates)",
    params: Type.Object(Definition),
    data: WorkflowData,
    async handler({ hookline, workspaceId, path, params }) {
      const wf = await hookline.workflows.update(workspaceId, path.id as string, definitionOf(params));
      return { data: workflowJson(wf) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/workflows/{id}",
    tag: "Workflows",
    summary: "Delete a workflow, its executions and its subscriptions",
    data: Deleted,
    async handler({ hookline, workspaceId, path }) {
      await hookline.workflows.delete(workspaceId, path.id as string);
      return { data: { deleted: true as const } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/workflows/{id}/run",
    tag: "Workflows",
    summary: "Run a workflow now: the finished execution, or with async=true the queued one at once",
    params: Type.Object({
      event: Type.Optional(Type.Unknown({ description: "steps.trigger.event" })),
      async: Type.Optional(Type.Boolean()),
    }),
    data: ExecutionData,
    async handler({ hookline, workspaceId, path, params }) {
      const exe = await hookline.workflows.run(workspaceId, path.id as string, {
        ...(params.event !== undefined ? { event: params.event } : {}),
        ...(params.async ? { async: true } : {}),
      });
      return { data: executionJson(exe) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/workflows/{id}/executions",
    tag: "Workflows",
    summary: "The workflow's executions, newest first",
    params: Type.Object({ ...ListParams, status: Type.Optional(ExecutionStatus) }),
    data: ExecutionData,
    list: true,
    async handler({ hookline, workspaceId, path, params }) {
      const got = await hookline.workflows.executions(workspaceId, path.id as string, {
        limit: params.limit ?? 20,
        ...(params.after ? { before: params.after } : {}),
        ...(params.status ? { status: params.status } : {}),
      });
      return { list: got.items.map(executionJson), ...page(got.items, got.nextCursor, (e) => e.id) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/workflows/{id}/executions/{execution_id}",
    tag: "Workflows",
    summary: "One execution: status, trigger event, each step's record",
    data: ExecutionData,
    async handler({ hookline, workspaceId, path }) {
      const exe = await hookline.workflows.execution(
        workspaceId,
        path.id as string,
        path.execution_id as string,
      );
      return { data: executionJson(exe) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/workflows/{id}/event_summaries",
    tag: "Events",
    summary: "What the workflow emitted ($.send.emit, and $errors), newest first",
    params: EventSummaryParams,
    data: EventSummarySchema,
    list: true,
    async handler({ hookline, workspaceId, path, params }) {
      const page = await hookline.workflows.events(workspaceId, path.id as string, eventSearchOf(params));
      return eventSummaryList(page, params);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/workflows/{id}/events",
    tag: "Events",
    summary: "Delete the workflow's events (all, or the given ids)",
    params: Type.Object({ ids: Type.Optional(Type.Array(Type.String())) }),
    data: Type.Object({ deleted: Type.Integer() }),
    async handler({ hookline, workspaceId, path, params }) {
      return {
        data: { deleted: await hookline.workflows.deleteEvents(workspaceId, path.id as string, params.ids) },
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/env",
    tag: "Environment",
    summary: "Set an environment variable (its value is encrypted and never returned)",
    params: Type.Object({ name: Type.String(), value: Type.String() }),
    data: EnvData,
    async handler({ hookline, workspaceId, params }) {
      return { data: envJson(await hookline.env.set(workspaceId, params.name, params.value)) };
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/env/{name}",
    tag: "Environment",
    summary: "Set an environment variable by name",
    params: Type.Object({ value: Type.String() }),
    data: EnvData,
    async handler({ hookline, workspaceId, path, params }) {
      return { data: envJson(await hookline.env.set(workspaceId, path.name as string, params.value)) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/env",
    tag: "Environment",
    summary: "List the environment variables' names (never their values)",
    data: EnvData,
    list: true,
    async handler({ hookline, workspaceId }) {
      const vars = await hookline.env.list(workspaceId);
      return {
        list: vars.map(envJson),
        cursor: (index: number) => vars[index]?.name ?? "",
        pageInfo: { total_count: vars.length, count: vars.length, start_cursor: null, end_cursor: null },
      };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/env/{name}",
    tag: "Environment",
    summary: "Delete an environment variable",
    data: Deleted,
    async handler({ hookline, workspaceId, path }) {
      await hookline.env.delete(workspaceId, path.name as string);
      return { data: { deleted: true as const } };
    },
  }),
];
