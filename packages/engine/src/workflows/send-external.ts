/**
 * The external sends of a workflow step: `$.send.http` (through the delivery engine), `$.send.email`
 * and `$.send.s3` (through `@hookline/delivery`'s destinations). The runner calls
 * {@link sendExternal} once per such send, after the step ran; a throw fails the step with the
 * thrown error.
 */
import { sendToDestination } from "@hookline/delivery";
import type { EngineContext } from "../context.js";
import { parseHttpSend } from "./http-send.js";

/**
 * Sends one `$.send.http`, `$.send.email` or `$.send.s3` of a step.
 *
 * - `http`: checked ({@link parseHttpSend}), then queued as a delivery of the workflow
 *   (`queue.deliveries.enqueue`, signing secrets sealed) that the delivery worker sends through the
 *   SSRF guard and retries on the webhook schedule; the step does not wait for the answer.
 * - `email` and `s3`: handed to the server's destinations (`sendToDestination`), awaited; a server
 *   without that destination fails the step with `destination_not_configured` (501).
 *
 * @param ctx - The engine context.
 * @param at - The workflow, execution and step the send belongs to.
 * @param send - The send's kind and payload, as the step passed it.
 * @throws `invalid_send` or `payload_too_large` for a bad payload; a `DestinationError` for an
 *   email or S3 send that did not go out.
 * @internal
 */
export async function sendExternal(
  ctx: EngineContext,
  at: { workspaceId: string; workflowId: string; executionId: string; step: string },
  send: { kind: "http" | "email" | "s3"; payload: unknown },
): Promise<void> {
  if (send.kind === "http") {
    const { request, secrets } = parseHttpSend(send.payload);
    await ctx.store.queue.deliveries.enqueue({
      workspaceId: at.workspaceId,
      workflowId: at.workflowId,
      executionId: at.executionId,
      stepName: at.step,
      request: secrets.length > 0 ? { ...request, secrets: secrets.map((s) => ctx.box.seal(s)) } : request,
      now: ctx.clock.now(),
    });
    ctx.wakeWorker();
    return;
  }
  await sendToDestination(ctx.destinations, send.kind, send.payload, {
    workspaceId: at.workspaceId,
    workflowId: at.workflowId,
    executionId: at.executionId,
    stepName: at.step,
  });
}
