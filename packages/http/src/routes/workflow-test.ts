/**
 * Test runs of a workflow: `POST /v1/workflows/{id}/test`, what the workflow editor's "Test"
 * calls. A test is a manual run marked `context.test`, run at once, never retried unless
 * `auto_retry` asks, of the saved workflow or of an unsaved draft (`workflow`), from a step with an
 * earlier execution's results (`from_execution` + `from_step`) and up to a step (`stop_after`).
 */
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { executionJson } from "../_workflow-json.js";
import { type DefinitionParams, definitionOf, ExecutionData } from "./workflows.js";

/** The test route. */
export const workflowTestRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/workflows/{id}/test",
    tag: "Workflows",
    summary:
      "Test a workflow (or an unsaved draft of it) now: a run marked context.test that never retries unless auto_retry; answers where it ended",
    params: Type.Object({
      event: Type.Optional(
        Type.Unknown({ description: "steps.trigger.event (default: from_execution's, else {})" }),
      ),
      workflow: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            "An unsaved version to run instead of the saved one: {name?, trigger?, steps?, retry?, ...}, checked as an update; nothing is saved",
        }),
      ),
      stop_after: Type.Optional(Type.String({ description: "Run up to this step; later steps are skipped" })),
      from_execution: Type.Optional(
        Type.String({ description: "An execution whose results the steps before from_step keep" }),
      ),
      from_step: Type.Optional(Type.String({ description: "Run from this step (with from_execution)" })),
      auto_retry: Type.Optional(
        Type.Boolean({ description: "Retry failing steps by the workflow's policy (default: never)" }),
      ),
    }),
    data: ExecutionData,
    async handler({ hookline, workspaceId, path, params }) {
      const exe = await hookline.workflows.test(workspaceId, path.id as string, {
        ...(params.event !== undefined ? { event: params.event } : {}),
        ...(params.workflow !== undefined
          ? { draft: definitionOf(params.workflow as DefinitionParams) }
          : {}),
        ...(params.stop_after !== undefined ? { stopAfter: params.stop_after } : {}),
        ...(params.from_execution !== undefined ? { fromExecution: params.from_execution } : {}),
        ...(params.from_step !== undefined ? { fromStep: params.from_step } : {}),
        ...(params.auto_retry ? { autoRetry: true } : {}),
      });
      return { data: executionJson(exe) };
    },
  }),
];
