/**
 * The HTTP request of a workflow's `$.send.http`, as the delivery worker sends it: a delivery row
 * with its own `request` (URL, method, headers, body) instead of an event for a webhook. It is
 * claimed, retried and recorded like any delivery; these are its headers.
 */
import type { DeliveryRequest } from "@hookline/store";
import { signPayload } from "./signature.js";

/** The `user-agent` of workflow requests that do not set their own. */
export const REQUEST_USER_AGENT = "Hookline-Workflows/1";

/** What the worker sends for a workflow request. */
export interface OutgoingRequest {
  /** The method. */
  method: string;
  /** The headers: the step's, then Hookline's. */
  headers: Record<string, string>;
  /** The body, when there is one. */
  body?: string;
}

/**
 * Builds the request the worker sends for a workflow request row: the step's method, headers and
 * body, a `user-agent` unless the step set one, `x-hookline-workflow-id` and
 * `x-hookline-execution-id`; and, when the request has signing secrets, the Standard Webhooks
 * headers (`webhook-id` the delivery's id, stable across retries, `webhook-timestamp`,
 * `webhook-signature` over the body, empty when there is none).
 *
 * @param delivery - The row: its id, workflow (`emitterId`) and execution (`eventId`).
 * @param request - Its request.
 * @param secrets - The decrypted `whsec_` secrets (none: unsigned).
 * @param timestamp - Seconds since the epoch, at attempt time.
 * @example
 * ```ts
 * outgoingRequest({ id: "dlv_1", emitterId: "p_1", eventId: "exe_1" },
 *   { url: "https://example.com", method: "POST", headers: {}, body: "{}" }, [], 1700000000).headers["user-agent"];
 * // "Hookline-Workflows/1"
 * ```
 */
export function outgoingRequest(
  delivery: { id: string; emitterId: string; eventId: string },
  request: DeliveryRequest,
  secrets: string[],
  timestamp: number,
): OutgoingRequest {
  const headers: Record<string, string> = { "user-agent": REQUEST_USER_AGENT, ...request.headers };
  headers["x-hookline-workflow-id"] = delivery.emitterId;
  headers["x-hookline-execution-id"] = delivery.eventId;
  if (secrets.length > 0) {
    headers["webhook-id"] = delivery.id;
    headers["webhook-timestamp"] = String(timestamp);
    headers["webhook-signature"] = signPayload(secrets, delivery.id, timestamp, request.body ?? "");
  }
  const out: OutgoingRequest = { method: request.method, headers };
  if (request.body !== undefined) out.body = request.body;
  return out;
}
