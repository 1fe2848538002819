/**
 * The HTTP-interface ingress (`/http/{endpointId}[/...]`, no API key): a request becomes SPEC's
 * HTTP event, the source runs, and the reply is `{"success":true}` or, with `customResponse`, what
 * the component passed to `respond()` (validated by core). The table of replies is in
 * docs/engine.md, "Triggers".
 */
import { HooklineError } from "@hookline/core";
import type { DeployedComponent } from "@hookline/store";
import type { EngineContext } from "./context.js";
import { errorReply, type IngressRequest, jsonReply, respondReply, toHttpEvent } from "./http-event.js";
import { runSource } from "./runs.js";
import { systemLog } from "./source-logs.js";
import type { IngressResponse } from "./types.js";

/** The reply of a `respond()` call, its warnings and errors written to the source's logs. */
async function respondOf(
  ctx: EngineContext,
  source: DeployedComponent,
  call: unknown,
): Promise<IngressResponse> {
  const { reply, logs } = respondReply(call, "respond()");
  for (const line of logs) await systemLog(ctx, source, line.level, line.message);
  return reply;
}

/**
 * Answers one request to a source's endpoint (`source`, as the endpoint registry resolved it;
 * undefined when nothing listens there). @internal
 */
export async function handleIngress(
  ctx: EngineContext,
  source: DeployedComponent | undefined,
  request: IngressRequest,
): Promise<IngressResponse> {
  if (!source?.active) {
    const why = source
      ? "This source is inactive: activate it to receive requests"
      : "No source listens at this endpoint";
    return errorReply(404, "not_found", why);
  }
  const target = { kind: "source", workspaceId: source.workspaceId, emitterId: source.id } as const;
  const reply = request.admit?.(target) ?? (await runIngress(ctx, source, request));
  reply.target = target;
  return reply;
}

/** Runs the source for one request and answers as it asks. */
async function runIngress(
  ctx: EngineContext,
  source: DeployedComponent,
  request: IngressRequest,
): Promise<IngressResponse> {
  let outcome: Awaited<ReturnType<typeof runSource>>;
  try {
    outcome = await runSource(ctx, source, toHttpEvent(request), "http");
  } catch (error) {
    // The source's queue is full: the caller should come back (webhook senders retry on 429).
    if (error instanceof HooklineError && error.code === "source_busy") return busyReply(error);
    throw error;
  }
  const { result } = outcome;
  if (!source.customResponse) return jsonReply(200, { success: true });
  const first = result.responds[0];
  if (!first) {
    return result.error
      ? errorReply(500, "run_failed", `The source failed before responding: ${result.error.message}`)
      : errorReply(502, "no_response", "The source finished without calling respond()");
  }
  return respondOf(ctx, source, first);
}

/** `429` with `Retry-After` for a refused invocation. */
function busyReply(error: HooklineError): IngressResponse {
  const retryAfter = (error.details as { retryAfter?: number } | undefined)?.retryAfter ?? 1;
  return errorReply(429, error.code, error.message, { headers: { "retry-after": String(retryAfter) } });
}
