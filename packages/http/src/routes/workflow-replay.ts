/**
 * Replaying workflow executions: `POST /v1/workflows/{id}/executions/{execution_id}/replay` (one,
 * with the original event or an edited one, from the first step or from `from_step`) and
 * `POST /v1/workflows/{id}/replay` (the failed executions of a time window, bounded per call).
 */
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { executionJson } from "../_workflow-json.js";
import { WindowParams, windowOf } from "./_window.js";
import { ExecutionData } from "./workflows.js";

const BulkReplayData = Type.Object({
  queued: Type.Integer({ description: "How many replays were queued" }),
  executions: Type.Array(
    Type.Object({
      id: Type.String({ description: "The new execution (queued)" }),
      replay_of: Type.String({ description: "The execution it replays" }),
    }),
  ),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: "More executions of the window remain: pass it as `after` to continue",
  }),
});

/** The replay routes. */
export const workflowReplayRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/workflows/{id}/executions/{execution_id}/replay",
    tag: "Workflows",
    summary:
      "Replay an execution (queued): the original event or `event`, from the first step or from `from_step` with the earlier steps' recorded results",
    params: Type.Object({
      event: Type.Optional(Type.Unknown({ description: "An edited event (default: the original one)" })),
      from_step: Type.Optional(
        Type.String({ description: "Run from this step; the earlier ones keep their recorded results" }),
      ),
    }),
    data: ExecutionData,
    async handler({ hookline, workspaceId, path, params }) {
      const exe = await hookline.workflows.replay(
        workspaceId,
        path.id as string,
        path.execution_id as string,
        {
          ...(params.event !== undefined ? { event: params.event } : {}),
          ...(params.from_step !== undefined ? { fromStep: params.from_step } : {}),
        },
      );
      return { data: executionJson(exe) };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/workflows/{id}/replay",
    tag: "Workflows",
    summary:
      "Bulk replay: queue a replay of each failed execution (or `status`) created in the window, newest first, at most `limit` per call",
    params: Type.Object({
      status: Type.Optional(
        Type.Union(
          ["failed", "succeeded", "exited"].map((s) => Type.Literal(s)),
          {
            description: "Which executions (default failed)",
          },
        ),
      ),
      ...WindowParams,
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 100, description: "At most this many (default 50)" }),
      ),
      after: Type.Optional(Type.String({ description: "The `next_cursor` of the previous call" })),
    }),
    data: BulkReplayData,
    async handler({ hookline, workspaceId, path, params }) {
      const got = await hookline.workflows.replayMany(workspaceId, path.id as string, {
        ...windowOf(params),
        ...(params.status ? { status: params.status } : {}),
        ...(params.limit !== undefined ? { limit: params.limit } : {}),
        ...(params.after ? { after: params.after } : {}),
      });
      return {
        data: {
          queued: got.queued,
          executions: got.executions.map((e) => ({ id: e.id, replay_of: e.replayOf })),
          next_cursor: got.nextCursor ?? null,
        },
      };
    },
  }),
];
