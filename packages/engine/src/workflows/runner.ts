/**
 * Running one execution, durably: it resumes at the first step that has not finished (`steps`
 * rebuilt from the stored records, a finished step never runs again); each step's record is
 * written as it starts (its attempt number) and as it ends, before the next step starts. A step
 * runs in its sandbox with `$` over `steps`; `$.flow.exit` ends the run (`exited`); a throw is
 * tried again later by the step's retry policy (the run goes back to the queue, due after the
 * backoff), and fails the run on its last try (`failed`, later steps `skipped`, a `$errors` event
 * emitted); `$.flow.delay`/`suspend`/`rerun` pause the run after the step (`delayed`,
 * `suspended`); `$.send.*` is carried out after the step; `$.respond` answers the HTTP trigger.
 */
import { HooklineError, retryDelay } from "@hookline/core";
import type { FlowPause, InvocationResult } from "@hookline/runtime";
import type { Execution, ExecutionError, ExecutionStep, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { errorReply, jsonReply } from "../http-event.js";
import { runtimeProps } from "../mounts.js";
import {
  DEFAULT_MAX_RERUNS,
  DEFAULT_SUSPEND_MS,
  failedTries,
  flowUrls,
  hashToken,
  INTERRUPTED,
  interruptedTries,
  lastStep,
  MAX_INTERRUPTED,
  MAX_PAUSE_MS,
  newTokens,
  resumePoint,
  stepExports,
  stepRetry,
} from "./durable.js";
import { readEnv } from "./env.js";
import { errorsEvent } from "./errors-event.js";
import { EXECUTION_LEASE_MS, keepLease } from "./lease.js";
import { runBudget } from "./run-size.js";
import type { Run, RunHooks, RunInfo } from "./run-state.js";
import { carryOutSends, emitFromWorkflow, replyFor } from "./step-effects.js";
import { type PreparedStep, prepareStep, type StepCache, stepSandbox } from "./steps.js";
import { wfStores } from "./stores.js";

export type { RunHooks } from "./run-state.js";

export { emitFromWorkflow } from "./step-effects.js";

export { EXECUTION_LEASE_MS };

/** A step record before it ran. @internal */
export function pendingStep(name: string): ExecutionStep {
  return { name, status: "pending", logs: [], attempts: 0 };
}

function errorOf(e: unknown): ExecutionError {
  if (e instanceof HooklineError) return { code: e.code, name: e.name, message: e.message };
  const err = e as Error;
  return { code: "error", name: err?.name ?? "Error", message: err?.message ?? String(e) };
}

/** A prepared step, cached per workflow version (or per draft: `cacheId`). */
async function prepared(
  ctx: EngineContext,
  cache: StepCache,
  wf: Workflow,
  index: number,
  cacheId: string,
): Promise<PreparedStep> {
  const key = `${cacheId}/${index}/${wf.updatedAt}`;
  const hit = cache.prepared.get(key);
  if (hit) return hit;
  const step = wf.steps[index] as Record<string, unknown>;
  const out = await prepareStep(ctx, cache, wf.workspaceId, step, index);
  cache.prepared.set(key, out);
  return out;
}

/**
 * The record of a step's try as it starts: its attempt number one more than the stored record's
 * (a `running` one is a try whose node died: recorded as interrupted).
 */
function startRecord(ctx: EngineContext, before: ExecutionStep): ExecutionStep {
  const attemptErrors = [...(before.attemptErrors ?? [])];
  if (before.status === "running") attemptErrors.push({ ...INTERRUPTED });
  return {
    name: before.name,
    status: "running",
    logs: [],
    startedAt: ctx.clock.now(),
    attempts: before.attempts + 1,
    ...(attemptErrors.length > 0 ? { attemptErrors } : {}),
    // A rerun keeps its count and context, should its node die while it runs.
    ...(before.pause?.kind === "rerun" ? { pause: before.pause } : {}),
  };
}

/**
 * Runs `exe` (claimed: `running` and leased to this node) until it ends or pauses, and returns
 * its record. Never throws for a step's failure: that is a retry or the `failed` status. @internal
 */
export async function runExecution(
  ctx: EngineContext,
  cache: StepCache,
  wf: Workflow,
  exe: Execution,
  hooks: RunHooks = {},
): Promise<Execution> {
  const run = openRun(ctx, cache, wf, exe, hooks);
  const heartbeat = keepLease(ctx, exe, hooks.leaseMs ?? EXECUTION_LEASE_MS);
  try {
    await settlePause(run);
    await runSteps(run);
  } finally {
    heartbeat.stop();
  }
  const final = await finishRun(run);
  if (final) return final;
  // The resume URL was called before the step that paused ended: go on with the next step now.
  const fresh = await wfStores(ctx.store).executions.get(wf.workspaceId, exe.id);
  return fresh ? runExecution(ctx, cache, wf, fresh, hooks) : { ...exe, status: run.status };
}

/** A run of `exe` from where its records stand, before anything is written. */
function openRun(ctx: EngineContext, cache: StepCache, wf: Workflow, exe: Execution, hooks: RunHooks): Run {
  const { records, steps, start } = resumePoint(wf, exe);
  // The run's size cap (run-size.ts): the event, and every finished step's record (a replay's copies
  // and an earlier try's steps are counted, never refused: a throw there would strand the run).
  const budget = runBudget(ctx.limits.maxExecutionBytes, exe.event);
  for (let i = 0; i < start; i++) budget.add(records[i] as ExecutionStep);
  const run: Run = {
    ctx,
    cache,
    wf,
    exe,
    cacheId: hooks.cacheId ?? wf.id,
    records,
    steps,
    start,
    // A test run may stop after a step (`stop_after`): the later ones are skipped.
    end: lastStep(wf, exe) + 1,
    budget,
    rerun: undefined,
    status: "succeeded",
    exitReason: undefined,
    failure: undefined,
    patch: {},
    pendingReply: undefined,
    responded: false,
    answer(reply) {
      if (run.responded) return;
      run.responded = true;
      hooks.onRespond?.(reply);
    },
  };
  return run;
}

/**
 * Settles the pause the run resumes from: a rerun's count and context for its step, or the
 * outcome of a delay or a suspend of the step before (`resumed`, `timeout`: the run fails, or `due`).
 */
async function settlePause(run: Run): Promise<void> {
  const { ctx, exe, records, start } = run;
  const ws = run.wf.workspaceId;
  const { executions } = wfStores(ctx.store);
  // A pause that ended: the step before `start` asked for a delay or a suspend.
  const paused = records[start - 1]?.pause;
  const atStart = records[start];
  if (atStart?.pause?.kind === "rerun") {
    const rerun: RunInfo = { runs: atStart.pause.runs ?? 1 };
    if (atStart.pause.context !== undefined) rerun.context = atStart.pause.context;
    if (exe.resumeData !== undefined) rerun.callback_request = exe.resumeData;
    run.rerun = rerun;
  } else if (paused && !paused.outcome) {
    const record = records[start - 1] as ExecutionStep;
    if (exe.resumeData !== undefined) {
      paused.outcome = "resumed";
      record.resumeData = exe.resumeData;
      run.steps[record.name] = stepExports(record);
    } else if (paused.kind === "suspend") {
      paused.outcome = "timeout";
      run.status = "failed";
      run.failure = {
        code: "suspend_timeout",
        message: `No resume URL was called before the timeout of ${record.name}`,
      };
    } else paused.outcome = "due";
    await executions.putStep(ws, exe.id, start - 1, record);
  }
  if (exe.resumeData !== undefined) await executions.update(ws, exe.id, { clearResumeData: true });
}

/**
 * Runs the steps from `start` while the run goes on, each one's record durable as it starts and
 * as it ends (with the next one's start, in one write).
 */
async function runSteps(run: Run): Promise<void> {
  const { ctx, exe, records } = run;
  const ws = run.wf.workspaceId;
  const { executions } = wfStores(ctx.store);
  // The start of step `start` is written on its own; each later one with the end of the step before.
  let written = -1;
  // Each step invocation's tokens: their hashes are stored with its start, so its resume URL works
  // from then on (a callback may arrive before the step ends).
  let tokens = newTokens();
  const hashes = () => ({ resume: hashToken(tokens.resume), cancel: hashToken(tokens.cancel) });
  for (let i = run.start; i < run.end && run.status === "succeeded"; i++) {
    const record =
      written === i ? (records[i] as ExecutionStep) : startRecord(ctx, records[i] as ExecutionStep);
    records[i] = record;
    const log = (level: string, message: string) => record.logs.push({ level, message, ts: ctx.clock.now() });
    if (interruptedTries(record) >= MAX_INTERRUPTED) {
      record.status = "failed";
      record.error = { ...INTERRUPTED, message: `${MAX_INTERRUPTED} tries of this step never ended` };
      run.status = "failed";
      run.failure = { ...record.error };
      break;
    }
    // Durable before it runs: a node that dies now leaves a `running` record, the next try's sign.
    if (written !== i) await executions.putSteps(ws, exe.id, [{ index: i, step: record }], hashes());
    const started = performance.now();
    try {
      const result = await invokeStep(run, i, record, tokens, log);
      await stepEnded(run, record, result, log);
    } catch (error) {
      stepThrew(run, i, record, error, log);
    }
    run.rerun = undefined; // a rerun's count and context are its step's: the next step runs afresh
    record.durationMs = performance.now() - started;
    // Durable before the next step starts: its end and the next one's start in one write. (The
    // last step's end, a pause, a retry or a failure are written with the execution, below.)
    if (run.status === "succeeded" && i + 1 < run.end) {
      const next = startRecord(ctx, records[i + 1] as ExecutionStep);
      records[i + 1] = next;
      written = i + 1;
      tokens = newTokens();
      await executions.putSteps(
        ws,
        exe.id,
        [
          { index: i, step: record },
          { index: i + 1, step: next },
        ],
        hashes(),
      );
    }
  }
}

/** A step's log line, kept in its record. */
type StepLog = (level: string, message: string) => void;

/** Runs step `i` in its sandbox with `$` over the finished steps; its logs go in `record`. */
async function invokeStep(
  run: Run,
  i: number,
  record: ExecutionStep,
  tokens: ReturnType<typeof newTokens>,
  log: StepLog,
): Promise<InvocationResult> {
  const { ctx, cache, wf, exe, cacheId } = run;
  const ws = wf.workspaceId;
  const step = await prepared(ctx, cache, wf, i, cacheId);
  const mounted = await stepSandbox(ctx, cache, cacheId, i, step);
  const props = await runtimeProps(ctx, ws, step.description.props, step.staticProps, undefined, {
    log,
  });
  const env = await readEnv(ctx, ws, step.envNames);
  const context = {
    id: exe.id,
    execution_id: exe.id,
    workflow_id: wf.id,
    step: record.name,
    attempt: record.attempts,
    trigger: exe.trigger,
    ts: ctx.clock.now(),
    run: run.rerun ?? { runs: 1 },
  };
  const result = await mounted.runAction(run.steps, {
    props,
    exprs: step.exprs,
    env,
    context,
    flow: flowUrls(ctx.baseUrl, exe.id, tokens),
  });
  record.logs.push(...result.logs);
  return result;
}

/**
 * What a step's invocation did: its record filled, `$.respond` answered or kept, its sends carried
 * out, and the run exited or paused. Throws (to {@link stepThrew}) for the step's own error, a run
 * over its size cap, or a rerun past its limit.
 */
async function stepEnded(
  run: Run,
  record: ExecutionStep,
  result: InvocationResult,
  log: StepLog,
): Promise<void> {
  const { ctx, wf, exe } = run;
  const name = record.name;
  if (result.returnValue !== undefined) record.returnValue = result.returnValue;
  if (Object.keys(result.exports).length > 0) record.exports = result.exports;
  const summary = result.exports.$summary;
  if (summary !== undefined) record.summary = typeof summary === "string" ? summary : JSON.stringify(summary);
  for (const call of result.responds) {
    const reply = replyFor(call, log);
    if ((call as { immediate?: unknown } | null)?.immediate === true) run.answer(reply);
    else run.pendingReply ??= reply;
  }
  if (result.error) throw Object.assign(new Error(result.error.message), { recorded: result.error });
  run.budget.charge(record); // over the cap: execution_too_large
  await carryOutSends(ctx, wf, exe, name, result.sends, log);
  run.steps[name] = stepExports(record);
  record.status = "succeeded";
  delete record.pause; // a rerun's, carried while it ran
  if (result.flowExit) {
    record.status = "exited";
    run.status = "exited";
    run.exitReason = result.flowExit.reason;
  } else if (result.pause) pauseAfter(run, record, result.pause, log);
}

/**
 * The run pauses after the step that asked (`$.flow.delay`, `suspend`, `rerun`): the step's record
 * says until when, and the execution is due then. A rerun past its most reruns throws.
 */
function pauseAfter(run: Run, record: ExecutionStep, p: FlowPause, log: StepLog): void {
  const now = run.ctx.clock.now();
  const ms = Math.min(MAX_PAUSE_MS, p.ms ?? DEFAULT_SUSPEND_MS);
  if (p.kind === "rerun") {
    const runs = run.rerun?.runs ?? 1;
    const max = p.maxReruns ?? DEFAULT_MAX_RERUNS;
    if (runs > max) {
      const message = `$.flow.rerun(): this step already reran ${max} times`;
      log("error", `rerun_limit: ${message}`);
      throw Object.assign(new Error(message), {
        recorded: { code: "rerun_limit", name: "Error", message },
      });
    }
    record.status = "pending";
    record.attempts = 0;
    delete record.attemptErrors;
    record.pause = { kind: "rerun", runs: runs + 1, maxReruns: max, until: now + ms };
    if (p.context !== undefined) record.pause.context = p.context;
  } else record.pause = { kind: p.kind, until: now + ms };
  run.status = p.kind === "suspend" ? "suspended" : "delayed";
  run.patch.runAt = now + ms;
}

/**
 * A step's try failed: the run goes back to the queue when the step's retry policy allows another
 * try, else the step and the run fail.
 */
function stepThrew(run: Run, i: number, record: ExecutionStep, error: unknown, log: StepLog): void {
  const { ctx } = run;
  const recorded = (error as { recorded?: ExecutionError }).recorded;
  record.error = recorded ? { ...recorded } : errorOf(error);
  if (!recorded) log("error", `${record.error.code}: ${record.error.message}`);
  record.attemptErrors = [...(record.attemptErrors ?? []), { ...record.error }];
  const policy = stepRetry(run.wf, i, run.exe);
  const tries = failedTries(record);
  if (tries <= policy.count && record.error.code !== "rerun_limit") {
    record.status = "pending";
    run.status = "queued";
    run.patch.runAt = ctx.clock.now() + retryDelay(policy, tries);
    log(
      "warn",
      `try ${record.attempts} failed; the step runs again in ${run.patch.runAt - ctx.clock.now()} ms`,
    );
  } else {
    record.status = "failed";
    delete record.pause;
    run.status = "failed";
    run.failure = { ...record.error };
  }
}
/**
 * Writes where the run is (ended, paused or waiting for a retry), answers the trigger, emits
 * `$errors`. Undefined when the run was to pause but its resume URL was called while its step ran
 * (the step's record is written; the caller goes on).
 */
async function finishRun(end: Run): Promise<Execution | undefined> {
  const { ctx, wf, exe, records, status, failure } = end;
  const ws = wf.workspaceId;
  const { executions } = wfStores(ctx.store);
  const ended = status === "succeeded" || status === "failed" || status === "exited";
  const paused = status === "delayed" || status === "suspended";
  // Steps a run never reached (after a failure, an exit, or a test run's `stop_after`) are skipped.
  if (ended) {
    for (const r of records) if (r.status === "pending") r.status = "skipped";
  }
  const final = await executions.update(ws, exe.id, {
    status,
    steps: records,
    ...(ended ? { finishedAt: ctx.clock.now(), tokens: null } : end.patch),
    ...(paused ? { ifNoResumeData: true } : {}),
    ...(end.exitReason !== undefined ? { exitReason: end.exitReason } : {}),
    ...(failure ? { error: failure } : {}),
  });
  if (paused && !final && (await executions.get(ws, exe.id))?.resumeData !== undefined) {
    await executions.update(ws, exe.id, { steps: records });
    return undefined;
  }
  if (!end.responded) {
    end.answer(
      end.pendingReply ??
        (ended
          ? errorReply(
              500,
              "no_response",
              status === "failed"
                ? `The workflow failed before calling $.respond(): ${failure?.message ?? "error"}`
                : "The workflow finished without calling $.respond()",
            )
          : jsonReply(202, { success: true, execution_id: exe.id, status })),
    );
  }
  if (status === "failed") {
    // Pipedream's $errors shape (errors-event.ts).
    await emitFromWorkflow(ctx, wf, [errorsEvent(wf, final ?? { ...exe, steps: records }, failure)]).catch(
      () => undefined,
    );
  }
  if (ended) ctx.retention.touch(wf.id); // old executions trimmed later, off this path
  ctx.notify("execution", {
    workspaceId: ws,
    workflowId: wf.id,
    executionId: exe.id,
    status,
    steps: records
      .slice(end.start)
      .filter((r) => r.durationMs !== undefined)
      .map((r) => ({ name: r.name, status: r.status, durationMs: r.durationMs as number })),
  });
  return final ?? { ...exe, status };
}
