/** `/v1/subscriptions`: which webhook (listener) gets which source's (emitter's) events. */
import { HooklineError } from "@hookline/core";
import { REPLAY_BATCH } from "@hookline/engine";
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { subscriptionJson } from "../_json.js";
import { paginate } from "./_paginate.js";
import { Deleted, ListParams, ReplayData, SubscriptionData } from "./_schemas.js";
import { FilterParam, WindowParams, windowOf } from "./_window.js";

const Match = {
  emitter_id: Type.String({ description: "The source (dc_...)" }),
  listener_id: Type.String({ description: "The webhook (wh_...)" }),
  event_name: Type.Optional(Type.String({ description: "A channel; without it, the default channel" })),
};

/** The subscription routes. */
export const subscriptionRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/subscriptions",
    tag: "Subscriptions",
    summary: "Subscribe a listener to an emitter; creating an existing subscription returns it",
    params: Type.Object({ ...Match, filter: FilterParam }),
    data: SubscriptionData,
    async handler({ hookline, workspaceId, params }) {
      const sub = await hookline.subscriptions.create(workspaceId, {
        emitterId: params.emitter_id,
        listenerId: params.listener_id,
        eventName: params.event_name ?? null,
        ...(params.filter === undefined ? {} : { filter: params.filter }),
      });
      return { data: subscriptionJson(sub) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/subscriptions",
    tag: "Subscriptions",
    summary: "List subscriptions, optionally by emitter or listener",
    params: Type.Object({
      emitter_id: Type.Optional(Type.String()),
      listener_id: Type.Optional(Type.String()),
      ...ListParams,
    }),
    data: SubscriptionData,
    list: true,
    async handler({ hookline, workspaceId, params }) {
      const subs = await hookline.subscriptions.list(workspaceId, {
        ...(params.emitter_id ? { emitterId: params.emitter_id } : {}),
        ...(params.listener_id ? { listenerId: params.listener_id } : {}),
      });
      const page = paginate(subs, (s) => s.id, params);
      return { list: page.list.map(subscriptionJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/subscriptions",
    tag: "Subscriptions",
    summary: "Delete the subscription of a listener to an emitter (and channel)",
    params: Type.Object(Match),
    data: Deleted,
    async handler({ hookline, workspaceId, params }) {
      const count = await hookline.subscriptions.delete(workspaceId, {
        emitterId: params.emitter_id,
        listenerId: params.listener_id,
        eventName: params.event_name ?? null,
      });
      if (count === 0) throw new HooklineError("not_found", "No such subscription in this workspace");
      return { data: { deleted: true } };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/subscriptions/{id}",
    tag: "Subscriptions",
    summary: "Delete a subscription by id",
    data: Deleted,
    async handler({ hookline, workspaceId, path }) {
      await hookline.subscriptions.deleteById(workspaceId, path.id as string);
      return { data: { deleted: true } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/subscriptions/{id}/replay",
    tag: "Subscriptions",
    summary:
      "Send the stored events of a window to the subscription's webhook again (same webhook-id), oldest first, in resumable batches",
    params: Type.Object({
      ...WindowParams,
      filter: FilterParam,
      after: Type.Optional(
        Type.String({ pattern: "^\\d{1,16}$", description: "The cursor of the previous call" }),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: REPLAY_BATCH.max,
          description: "Events in this call (default 1000)",
        }),
      ),
    }),
    data: ReplayData,
    async handler({ hookline, workspaceId, path, params }) {
      const result = await hookline.subscriptions.replay(workspaceId, path.id as string, {
        ...windowOf(params),
        ...(params.filter === undefined ? {} : { filter: params.filter }),
        ...(params.after === undefined ? {} : { after: params.after }),
        ...(params.limit === undefined ? {} : { limit: params.limit }),
      });
      return {
        data: {
          subscription_id: result.subscriptionId,
          webhook_id: result.webhookId,
          replayed: result.replayed,
          cursor: result.cursor,
          done: result.done,
        },
      };
    },
  }),
];
