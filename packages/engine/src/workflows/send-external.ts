/**
 * The external sends of a workflow step: `$.send.http` (through the delivery engine), `$.send.email`
 * and `$.send.s3` (through `@hookline/delivery`'s destinations). The runner calls
 * {@link sendExternal} once per such send, after the step ran; a throw fails the step with the
 * thrown error.
 */
import { HooklineError } from "@hookline/core";
import type { EngineContext } from "../context.js";

/**
 * Sends one `$.send.http`, `$.send.email` or `$.send.s3` of a step. Until destinations are wired,
 * every kind fails with `destination_not_configured`.
 *
 * @param ctx - The engine context.
 * @param at - The workflow, execution and step the send belongs to.
 * @param send - The send's kind and payload, as the step passed it.
 * @internal
 */
export async function sendExternal(
  ctx: EngineContext,
  at: { workspaceId: string; workflowId: string; executionId: string; step: string },
  send: { kind: "http" | "email" | "s3"; payload: unknown },
): Promise<void> {
  void ctx;
  void at;
  throw new HooklineError(
    "destination_not_configured",
    `$.send.${send.kind} has no destination configured on this server`,
    { destination: send.kind },
  );
}
