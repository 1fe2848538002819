/**
 * Running one execution: each step in its sandbox with `$`, in order, over `steps` (the trigger's
 * event and context, and every earlier step's `$return_value` and exports); each step's record
 * written as it ends; `$.flow.exit` ends the run (`exited`), a throw fails it (`failed`, later
 * steps `skipped`, a `$errors` event emitted); `$.send.*` carried out after the step;
 * `$.respond` answered to the HTTP trigger (an `immediate` one when its step ends, the first
 * other one when the run ends).
 */
import { HooklineError, validateRespond } from "@hookline/core";
import type { InvocationResult } from "@hookline/runtime";
import type { Execution, ExecutionError, ExecutionStep, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { commitEmits, screenEmits } from "../emit-pipeline.js";
import { replyOf } from "../http-event.js";
import { runtimeProps } from "../mounts.js";
import type { IngressResponse } from "../types.js";
import { readEnv } from "./env.js";
import { sendExternal } from "./send-external.js";
import { type PreparedStep, prepareStep, type StepCache, stepSandbox } from "./steps.js";
import { wfStores } from "./stores.js";

/** How long a node holds a running execution before another may take it over (renewed per step). */
export const EXECUTION_LEASE_MS = 5 * 60_000;

/** How long a run goes before its step records are written one by one as they end. */
export const PROGRESS_AFTER_MS = 1_000;

/** The channel a failed run emits on. */
export const ERRORS_CHANNEL = "$errors";

/** What the caller of a run wants to hear. @internal */
export interface RunHooks {
  /** The HTTP trigger's answer (called at most once, when the trigger waits for `$.respond`). */
  onRespond?(reply: IngressResponse): void;
}

const json = (status: number, body: unknown): IngressResponse => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** A step record before it ran. @internal */
export function pendingStep(name: string): ExecutionStep {
  return { name, status: "pending", logs: [], attempts: 0 };
}

function errorOf(e: unknown): ExecutionError {
  if (e instanceof HooklineError) return { code: e.code, name: e.name, message: e.message };
  const err = e as Error;
  return { code: "error", name: err?.name ?? "Error", message: err?.message ?? String(e) };
}

/** A prepared step, cached per workflow version. */
async function prepared(
  ctx: EngineContext,
  cache: StepCache,
  wf: Workflow,
  index: number,
): Promise<PreparedStep> {
  const key = `${wf.id}/${index}/${wf.updatedAt}`;
  const hit = cache.prepared.get(key);
  if (hit) return hit;
  const step = wf.steps[index] as Record<string, unknown>;
  const out = await prepareStep(ctx, cache, wf.workspaceId, step, index);
  cache.prepared.set(key, out);
  return out;
}

/** Carries out a step's `$.send.*` calls; the first failing external send throws. */
async function carryOutSends(
  ctx: EngineContext,
  wf: Workflow,
  exe: Execution,
  step: string,
  sends: InvocationResult["sends"],
  log: (level: string, message: string) => void,
): Promise<void> {
  const emits: { event: unknown; meta: Record<string, unknown> }[] = [];
  for (const send of sends) {
    if (send.kind === "emit") {
      const p = (send.payload ?? {}) as Record<string, unknown>;
      const event = p && typeof p === "object" && "raw_event" in p ? p.raw_event : p;
      const meta: Record<string, unknown> = {};
      if (typeof p.name === "string" && p.name !== "") meta.name = p.name;
      if (typeof p.summary === "string") meta.summary = p.summary;
      emits.push({ event, meta });
    } else if (send.kind === "sse") {
      ctx.notify("sse", {
        workspaceId: wf.workspaceId,
        workflowId: wf.id,
        executionId: exe.id,
        step,
        payload: send.payload,
        ts: ctx.clock.now(),
      });
    } else {
      await sendExternal(
        ctx,
        { workspaceId: wf.workspaceId, workflowId: wf.id, executionId: exe.id, step },
        { kind: send.kind, payload: send.payload },
      );
    }
  }
  if (emits.length === 0) return;
  const screened = screenEmits(ctx.limits, emits as never);
  for (const line of screened.lines) log("error", line);
  await emitFromWorkflow(ctx, wf, screened.accepted);
}

/** Stores events emitted by a workflow (with their deliveries, atomically) and tells observers. @internal */
export async function emitFromWorkflow(
  ctx: EngineContext,
  wf: { id: string; workspaceId: string },
  emits: Parameters<typeof commitEmits>[3],
): Promise<void> {
  if (emits.length === 0) return;
  const appended = await commitEmits(ctx, wf, undefined, emits);
  for (const { deliveryIds, ...event } of appended) {
    ctx.notify("emit", { workspaceId: wf.workspaceId, sourceId: wf.id, event, deliveryIds });
  }
  if (appended.some((e) => e.deliveryIds.length > 0)) ctx.wakeWorker();
}

/** The HTTP reply of a `$.respond()` call (`immediate` dropped), or 502 `invalid_respond`. */
function replyFor(call: unknown, log: (level: string, message: string) => void): IngressResponse {
  const { immediate: _i, ...rest } = (call ?? {}) as Record<string, unknown>;
  const { value, problems, warnings } = validateRespond(rest);
  for (const w of warnings) log("warn", w);
  if (!value) {
    const message = `$.respond(): ${problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ")}`;
    log("error", `invalid_respond: ${message}`);
    return json(502, { error: { code: "invalid_respond", message } });
  }
  return replyOf(value);
}

/**
 * Runs `exe` (already `running` and leased to this node) to its end and returns the final record.
 * Never throws for a step's failure: that is the execution's `failed` status. @internal
 */
export async function runExecution(
  ctx: EngineContext,
  cache: StepCache,
  wf: Workflow,
  exe: Execution,
  hooks: RunHooks = {},
): Promise<Execution> {
  const { executions } = wfStores(ctx.store);
  const ws = wf.workspaceId;
  const steps: Record<string, unknown> = { trigger: { event: exe.event, context: exe.context ?? {} } };
  let responded = false;
  let pendingReply: IngressResponse | undefined;
  const answer = (reply: IngressResponse) => {
    if (responded) return;
    responded = true;
    hooks.onRespond?.(reply);
  };
  let status: Execution["status"] = "succeeded";
  let exitReason: string | undefined;
  let failure: ExecutionError | undefined;
  let leaseUntil = exe.leaseExpiresAt ?? 0;
  // Step records are written with the execution's end; a run that lasts longer than
  // PROGRESS_AFTER_MS also writes each one as its step ends, so that readers see it progress.
  const records = wf.steps.map((s) => pendingStep(String(s.name)));
  const runStarted = performance.now();
  let written = 0;

  for (let i = 0; i < wf.steps.length; i++) {
    const name = String((wf.steps[i] as { name: unknown }).name);
    const record: ExecutionStep = {
      name,
      status: "running",
      logs: [],
      startedAt: ctx.clock.now(),
      attempts: 1,
    };
    const log = (level: string, message: string) => record.logs.push({ level, message, ts: ctx.clock.now() });
    const started = performance.now();
    try {
      const step = await prepared(ctx, cache, wf, i);
      const mounted = await stepSandbox(ctx, cache, wf.id, i, step);
      const props = await runtimeProps(ctx, ws, step.description.props, step.staticProps, undefined);
      const env = await readEnv(ctx, ws, step.envNames);
      const result = await mounted.runAction(steps, { props, exprs: step.exprs, env });
      record.logs.push(...result.logs);
      if (result.returnValue !== undefined) record.returnValue = result.returnValue;
      if (Object.keys(result.exports).length > 0) record.exports = result.exports;
      const summary = result.exports.$summary;
      if (summary !== undefined)
        record.summary = typeof summary === "string" ? summary : JSON.stringify(summary);
      for (const call of result.responds) {
        const reply = replyFor(call, log);
        if ((call as { immediate?: unknown } | null)?.immediate === true) answer(reply);
        else pendingReply ??= reply;
      }
      if (result.error) throw Object.assign(new Error(result.error.message), { recorded: result.error });
      await carryOutSends(ctx, wf, exe, name, result.sends, log);
      steps[name] = { ...result.exports, $return_value: result.returnValue };
      if (result.flowExit) {
        record.status = "exited";
        status = "exited";
        exitReason = result.flowExit.reason;
      } else record.status = "succeeded";
    } catch (error) {
      const recorded = (error as { recorded?: ExecutionError }).recorded;
      record.error = recorded ? { ...recorded } : errorOf(error);
      if (!recorded) log("error", `${record.error.code}: ${record.error.message}`);
      record.status = "failed";
      status = "failed";
      failure = { ...record.error };
    }
    record.durationMs = performance.now() - started;
    records[i] = record;
    if (status !== "succeeded") {
      for (let j = i + 1; j < records.length; j++) (records[j] as ExecutionStep).status = "skipped";
      break;
    }
    if (performance.now() - runStarted > PROGRESS_AFTER_MS) {
      for (; written <= i; written++)
        await executions.putStep(ws, exe.id, written, records[written] as ExecutionStep);
    }
    // Keep the claim while steps run.
    const now = ctx.clock.now();
    if (leaseUntil - now < EXECUTION_LEASE_MS / 2) {
      leaseUntil = now + EXECUTION_LEASE_MS;
      await executions.update(ws, exe.id, { leaseExpiresAt: leaseUntil });
    }
  }

  if (!responded) {
    answer(
      pendingReply ??
        json(500, {
          error: {
            code: "no_response",
            message:
              status === "failed"
                ? `The workflow failed before calling $.respond(): ${failure?.message ?? "error"}`
                : "The workflow finished without calling $.respond()",
          },
        }),
    );
  }
  const final = await executions.update(ws, exe.id, {
    status,
    steps: records,
    finishedAt: ctx.clock.now(),
    ...(exitReason !== undefined ? { exitReason } : {}),
    ...(failure ? { error: failure } : {}),
  });
  if (status === "failed") {
    const failed = final?.steps.find((s) => s.status === "failed");
    await emitFromWorkflow(ctx, wf, [
      {
        event: {
          workflow_id: wf.id,
          execution_id: exe.id,
          step: failed?.name,
          error: failure,
          event: exe.event,
        },
        meta: {
          name: ERRORS_CHANNEL,
          summary: `${failed?.name ?? "a step"} failed: ${failure?.message ?? ""}`,
        },
      },
    ]).catch(() => undefined);
  }
  ctx.retention.touch(wf.id); // old executions trimmed later, off this path
  ctx.notify("execution", { workspaceId: ws, workflowId: wf.id, executionId: exe.id, status });
  return final ?? { ...exe, status };
}
