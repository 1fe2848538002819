/** `/v1/subscriptions/{id}/replay(s)`: replay jobs, which send stored events to a webhook again. */
import { REPLAY_BATCH, type ReplayResult } from "@hookline/engine";
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { replayJson } from "../_json.js";
import { ListParams, ReplayBatchData, ReplayData } from "./_schemas.js";
import { FilterParam, WindowParams, windowOf } from "./_window.js";

const Limit = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: REPLAY_BATCH.max,
    description: `Events sent by this call at most (default ${REPLAY_BATCH.default})`,
  }),
);

const batchJson = (r: ReplayResult) => ({
  ...replayJson(r),
  batch: { replayed: r.batch.replayed, scanned: r.batch.scanned },
});

/** The replay routes. */
export const replayRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/subscriptions/{id}/replay",
    tag: "Subscriptions",
    summary:
      "Start a replay (rpl_): the stored events of a window sent to the subscription's webhook again (same webhook-id), oldest first; this call runs its first batch",
    params: Type.Object({ ...WindowParams, filter: FilterParam, limit: Limit }),
    data: ReplayBatchData,
    async handler({ hookline, workspaceId, path, params }) {
      const result = await hookline.subscriptions.replay(workspaceId, path.id as string, {
        ...windowOf(params),
        ...(params.filter === undefined ? {} : { filter: params.filter }),
        ...(params.limit === undefined ? {} : { limit: params.limit }),
      });
      return { data: batchJson(result) };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/subscriptions/{id}/replays/{replay_id}/continue",
    tag: "Subscriptions",
    summary:
      "Run the next batch of a running replay from its recorded cursor (409 if another call is running it)",
    params: Type.Object({ limit: Limit }),
    data: ReplayBatchData,
    async handler({ hookline, workspaceId, path, params }) {
      const result = await hookline.subscriptions.resumeReplay(
        workspaceId,
        path.id as string,
        path.replay_id as string,
        params.limit === undefined ? {} : { limit: params.limit },
      );
      return { data: batchJson(result) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/subscriptions/{id}/replays",
    tag: "Subscriptions",
    summary: "The subscription's replays with their progress, newest first",
    params: Type.Object({ ...ListParams }),
    data: ReplayData,
    list: true,
    async handler({ hookline, workspaceId, path, params }) {
      const replays = await hookline.subscriptions.replays(workspaceId, path.id as string);
      // Newest first (ids are time-ordered): a page starts after the cursor, at the older ids.
      const after = params.after;
      const older = after === undefined ? replays : replays.filter((r) => r.id < after);
      const list = older.slice(0, params.limit ?? 20).map(replayJson);
      const last = list[list.length - 1];
      return {
        list,
        cursor: (index) => list[index]?.id ?? "",
        pageInfo: {
          total_count: replays.length,
          count: list.length,
          start_cursor: list[0]?.id ?? null,
          end_cursor: last && older.length > list.length ? last.id : null,
        },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/subscriptions/{id}/replays/{replay_id}",
    tag: "Subscriptions",
    summary: "One replay and its progress",
    data: ReplayData,
    async handler({ hookline, workspaceId, path }) {
      return {
        data: replayJson(
          await hookline.subscriptions.getReplay(workspaceId, path.id as string, path.replay_id as string),
        ),
      };
    },
  }),
];
