/** `/v1/subscriptions`: which webhook (listener) gets which source's (emitter's) events. */
import { HooklineError } from "@hookline/core";
import type { Hookline } from "@hookline/engine";
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { subscriptionJson } from "../_json.js";
import { paginate } from "./_paginate.js";
import { Deleted, ListParams, SubscriptionData } from "./_schemas.js";
import { FilterParam } from "./_window.js";

const Match = {
  emitter_id: Type.String({ description: "The source (dc_...)" }),
  listener_id: Type.String({
    description:
      "The webhook (wh_...), or a source with a $.interface.apphook prop (dc_...) whose run gets each event",
  }),
  event_name: Type.Optional(Type.String({ description: "A channel; without it, the default channel" })),
};

/** The listener of a new subscription: `listener_id`, or the webhook of `listener_url` (made when absent). */
async function listenerOf(
  hookline: Hookline,
  workspaceId: string,
  params: { listener_id?: string; listener_url?: string },
): Promise<string> {
  if ((params.listener_id === undefined) === (params.listener_url === undefined)) {
    const message = "give one of listener_id (a webhook wh_...) or listener_url";
    throw new HooklineError("validation_failed", `Invalid parameters: ${message}`, {
      problems: [{ code: "required", path: "listener_id", message }],
    });
  }
  if (params.listener_id !== undefined) return params.listener_id;
  const url = params.listener_url as string;
  const same = (await hookline.webhooks.list(workspaceId)).find((w) => w.url === url);
  return same ? same.id : (await hookline.webhooks.create(workspaceId, { url })).id;
}

/** The subscription routes. */
export const subscriptionRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/subscriptions",
    tag: "Subscriptions",
    summary:
      "Subscribe a listener to an emitter (a source dc_... or a workflow p_...); creating an existing subscription returns it",
    params: Type.Object({
      ...Match,
      listener_id: Type.Optional(Match.listener_id),
      listener_url: Type.Optional(
        Type.String({
          description:
            "Instead of listener_id: a URL; the workspace's webhook with this URL is the listener (made when there is none)",
        }),
      ),
      filter: FilterParam,
    }),
    data: SubscriptionData,
    async handler({ hookline, workspaceId, params }) {
      const sub = await hookline.subscriptions.create(workspaceId, {
        emitterId: params.emitter_id,
        listenerId: await listenerOf(hookline, workspaceId, params),
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
];
