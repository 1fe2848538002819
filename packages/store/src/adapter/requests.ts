/**
 * Workflow requests (`$.send.http`) in the delivery queue: the row `enqueue` stores and what a claim
 * of one returns, the same in every adapter.
 */
import { newId } from "@hookline/core";
import type { ClaimedDelivery, Delivery, DeliveryRequest, EnqueueRequestInput } from "../types/index.js";

/**
 * The delivery row of a workflow request, due at `now`: `webhookId` and `emitterId` are the
 * workflow, `eventId` the execution, `channel` the step.
 *
 * @example
 * ```ts
 * newRequestDelivery({ workspaceId, workflowId: "p_1", executionId: "exe_1", stepName: "notify",
 *   request: { url: "https://example.com", method: "POST", headers: {} } }, Date.now()).state; // "pending"
 * ```
 */
export function newRequestDelivery(input: EnqueueRequestInput, now: number): Delivery {
  const request: DeliveryRequest = {
    url: input.request.url,
    method: input.request.method,
    headers: { ...input.request.headers },
  };
  if (input.request.body !== undefined) request.body = input.request.body;
  if (input.request.secrets !== undefined && input.request.secrets.length > 0)
    request.secrets = [...input.request.secrets];
  return {
    id: newId("dlv", now),
    workspaceId: input.workspaceId,
    webhookId: input.workflowId,
    eventId: input.executionId,
    emitterId: input.workflowId,
    channel: input.stepName,
    state: "pending",
    attempts: 0,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
    request,
  };
}

/**
 * What a claim returns for a leased request row (see `ClaimedDelivery`): its target as a webhook
 * (the workflow's id, the request's URL and secrets, active) and its execution as an event.
 *
 * @example
 * ```ts
 * requestClaim(row).webhook.url === row.request?.url; // true
 * ```
 */
export function requestClaim(row: Delivery): ClaimedDelivery {
  const request = row.request as DeliveryRequest;
  return {
    ...row,
    event: {
      id: row.eventId,
      seq: 0,
      workspaceId: row.workspaceId,
      emitterId: row.emitterId,
      channel: row.channel,
      ts: row.createdAt,
      body: undefined,
      createdAt: row.createdAt,
    },
    webhook: {
      id: row.webhookId,
      workspaceId: row.workspaceId,
      url: request.url,
      active: true,
      secrets: (request.secrets ?? []).map((value) => ({ value, createdAt: row.createdAt })),
      createdAt: row.createdAt,
      updatedAt: row.createdAt,
    },
  };
}
