/**
 * The HTTP-interface ingress (`/http/{endpointId}[/...]`, no API key): a request becomes SPEC's
 * HTTP event, the source runs, and the reply is `{"success":true}` or, with `customResponse`, what
 * the component passed to `respond()` (validated by core). The table of replies is in
 * docs/engine.md, "Triggers".
 */
import { HooklineError, validateRespond } from "@hookline/core";
import type { DeployedComponent } from "@hookline/store";
import type { EngineContext } from "./context.js";
import { type IngressRequest, replyOf, toHttpEvent } from "./http-event.js";
import { runSource } from "./runs.js";
import { systemLog } from "./source-logs.js";
import type { IngressResponse } from "./types.js";

/** A JSON reply. */
function json(status: number, body: unknown, headers: Record<string, string> = {}): IngressResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}

/**
 * The reply a component's `respond()` call asks for (objects as JSON, `{ $bytes }` as bytes), as
 * core's `validateRespond` cleans it: headers it leaves out are logged as warnings; an invalid call
 * is logged and answered 502 `invalid_respond`.
 */
async function respondReply(
  ctx: EngineContext,
  source: { id: string; workspaceId: string },
  call: unknown,
): Promise<IngressResponse> {
  const { value, problems, warnings } = validateRespond(call);
  for (const warning of warnings) await systemLog(ctx, source, "warn", warning);
  if (!value) {
    const message = `respond(): ${problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ")}`;
    await systemLog(ctx, source, "error", `invalid_respond: ${message}`);
    return json(502, { error: { code: "invalid_respond", message } });
  }
  return replyOf(value);
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
    return json(404, {
      error: {
        code: "not_found",
        message: source
          ? "This source is inactive: activate it to receive requests"
          : "No source listens at this endpoint",
      },
    });
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
  if (!source.customResponse) return json(200, { success: true });
  const first = result.responds[0];
  if (!first) {
    return json(result.error ? 500 : 502, {
      error: result.error
        ? { code: "run_failed", message: `The source failed before responding: ${result.error.message}` }
        : { code: "no_response", message: "The source finished without calling respond()" },
    });
  }
  return respondReply(ctx, source, first);
}

/** `429` with `Retry-After` for a refused invocation. */
function busyReply(error: HooklineError): IngressResponse {
  const retryAfter = (error.details as { retryAfter?: number } | undefined)?.retryAfter ?? 1;
  return json(
    429,
    { error: { code: error.code, message: error.message } },
    { "retry-after": String(retryAfter) },
  );
}
