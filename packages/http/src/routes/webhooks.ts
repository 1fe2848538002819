/** `/v1/webhooks`: create, list, read, change and delete webhooks; secrets, deliveries, retries. */
import type { Problem } from "@hookline/core";
import type { Hookline, WebhookResult } from "@hookline/engine";
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { deliveryJson, webhookJson } from "../_json.js";
import { paginate } from "./_paginate.js";
import { Deleted, DeliveryData, DeliveryStatus, ListParams, MetricsData, WebhookData } from "./_schemas.js";
import { toMs, WindowParams, windowOf } from "./_window.js";

const WebhookFields = {
  name: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  active: Type.Optional(Type.Boolean()),
};

/** A created or changed webhook, with the engine's warnings (an address the SSRF guard refuses). */
function withWarnings(
  webhook: WebhookResult,
  hookline: Pick<Hookline, "worker">,
): { data: unknown; warnings?: Problem[] } {
  return {
    data: webhookJson(webhook, hookline),
    ...(webhook.warnings ? { warnings: webhook.warnings } : {}),
  };
}

/** The webhook routes. */
export const webhookRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/webhooks",
    tag: "Webhooks",
    summary: "Create a webhook (url required: http or https with a host)",
    params: Type.Object({ url: Type.String({ description: "Where events are POSTed" }), ...WebhookFields }),
    data: WebhookData,
    warnings: true,
    async handler({ hookline, workspaceId, params }) {
      return withWarnings(await hookline.webhooks.create(workspaceId, params), hookline);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/webhooks",
    tag: "Webhooks",
    summary: "List webhooks",
    params: Type.Object(ListParams),
    data: WebhookData,
    list: true,
    async handler({ hookline, workspaceId, params }) {
      const page = paginate(await hookline.webhooks.list(workspaceId), (w) => w.id, params);
      return {
        list: page.list.map((w) => webhookJson(w, hookline)),
        pageInfo: page.pageInfo,
        cursor: page.cursor,
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/webhooks/{id}",
    tag: "Webhooks",
    summary: "Get a webhook",
    data: WebhookData,
    async handler({ hookline, workspaceId, path }) {
      return { data: webhookJson(await hookline.webhooks.get(workspaceId, path.id as string), hookline) };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/v1/webhooks/{id}",
    tag: "Webhooks",
    summary: "Change a webhook's url, name, description or active flag",
    params: Type.Object({ url: Type.Optional(Type.String()), ...WebhookFields }),
    data: WebhookData,
    warnings: true,
    async handler({ hookline, workspaceId, path, params }) {
      return withWarnings(await hookline.webhooks.update(workspaceId, path.id as string, params), hookline);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/webhooks/{id}",
    tag: "Webhooks",
    summary: "Delete a webhook, its subscriptions and pending deliveries",
    data: Deleted,
    async handler({ hookline, workspaceId, path }) {
      await hookline.webhooks.delete(workspaceId, path.id as string);
      return { data: { deleted: true } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/webhooks/{id}/secret",
    tag: "Webhooks",
    summary: "The webhook's signing secret (whsec_...)",
    data: Type.Object({ secret: Type.String({ pattern: "^whsec_" }) }),
    async handler({ hookline, workspaceId, path }) {
      return { data: { secret: await hookline.webhooks.secret(workspaceId, path.id as string) } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/webhooks/{id}/secret/rotate",
    tag: "Webhooks",
    summary: "Rotate the secret; the previous one stays valid for 24 hours",
    data: Type.Object({ secret: Type.String({ pattern: "^whsec_" }) }),
    async handler({ hookline, workspaceId, path }) {
      return { data: { secret: await hookline.webhooks.rotateSecret(workspaceId, path.id as string) } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/webhooks/{id}/deliveries",
    tag: "Webhooks",
    summary: "Deliveries of this webhook with their attempts, newest first",
    params: Type.Object({
      status: Type.Optional(DeliveryStatus),
      ...ListParams,
    }),
    data: DeliveryData,
    list: true,
    async handler({ hookline, workspaceId, path, params }) {
      const page = await hookline.webhooks.deliveries(workspaceId, path.id as string, {
        ...(params.status ? { state: params.status } : {}),
        limit: params.limit ?? 20,
        ...(params.after ? { before: params.after } : {}),
      });
      const list = page.items.map(deliveryJson);
      return {
        list,
        cursor: (index) => list[index]?.id as string,
        pageInfo: {
          count: list.length,
          start_cursor: list[0]?.id ?? null,
          end_cursor: page.nextCursor ?? null,
        },
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/webhooks/{id}/deliveries/{delivery_id}/retry",
    tag: "Webhooks",
    summary: "Send one delivery again now",
    data: Type.Object({ retried: Type.Literal(true) }),
    async handler({ hookline, workspaceId, path }) {
      await hookline.webhooks.retryDelivery(workspaceId, path.id as string, path.delivery_id as string);
      return { data: { retried: true } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/webhooks/{id}/deliveries/purge",
    tag: "Webhooks",
    summary: "Drop the deliveries waiting for this webhook (paused or pending, not in flight) for good",
    data: Type.Object({ purged: Type.Integer() }),
    async handler({ hookline, workspaceId, path }) {
      return { data: { purged: await hookline.webhooks.purgeDeliveries(workspaceId, path.id as string) } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/webhooks/{id}/recover",
    tag: "Webhooks",
    summary: "Send again every delivery that failed between since and until (epoch seconds or ISO dates)",
    params: Type.Object({
      since: Type.Union([Type.Integer(), Type.String()]),
      until: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    }),
    data: Type.Object({ recovered: Type.Integer() }),
    async handler({ hookline, workspaceId, path, params }) {
      const since = toMs("since", params.since);
      const until = params.until === undefined ? undefined : toMs("until", params.until);
      const recovered = await hookline.webhooks.recover(workspaceId, path.id as string, {
        since,
        ...(until !== undefined ? { until } : {}),
      });
      return { data: { recovered } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/webhooks/{id}/test",
    tag: "Webhooks",
    summary:
      "Send a test event now, signed as a delivery is, and answer what the receiver did (nothing stored or retried)",
    data: Type.Object({
      ok: Type.Boolean({ description: "The receiver answered 2xx" }),
      event_id: Type.String({ description: "The test event's id, sent as webhook-id" }),
      status: Type.Union([Type.Integer(), Type.Null()]),
      duration_ms: Type.Integer(),
      response: Type.Union([Type.String(), Type.Null()], { description: "The start of the answer" }),
      error: Type.Union([Type.String(), Type.Null()], {
        description: "http_<status>, ssrf_blocked, timeout, secret_undecryptable or the network error",
      }),
    }),
    async handler({ hookline, workspaceId, path }) {
      const r = await hookline.webhooks.test(workspaceId, path.id as string);
      return {
        data: {
          ok: r.ok,
          event_id: r.eventId,
          status: r.status ?? null,
          duration_ms: r.durationMs,
          response: r.response ?? null,
          error: r.error ?? null,
        },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/webhooks/{id}/metrics",
    tag: "Webhooks",
    summary: "Delivery health over a window (the last 24 hours by default), from the attempt log",
    params: Type.Object(WindowParams),
    data: MetricsData,
    async handler({ hookline, workspaceId, path, params }) {
      const m = await hookline.webhooks.metrics(workspaceId, path.id as string, windowOf(params));
      return {
        data: {
          webhook_id: path.id as string,
          since: Math.floor(m.since / 1000),
          until: Math.floor(m.until / 1000),
          attempts: m.attempts,
          succeeded: m.succeeded,
          failed: m.failed,
          success_rate: m.attempts === 0 ? null : m.succeeded / m.attempts,
          status_classes: m.statusClasses,
          latency_ms: m.latencyMs,
        },
      };
    },
  }),
];
