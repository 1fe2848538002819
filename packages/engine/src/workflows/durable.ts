/**
 * What makes a run durable (issue 20): where a claimed execution resumes (the first step that has
 * not finished, `steps` rebuilt from the stored records), each step's `$.context`, the single-use
 * resume and cancel tokens of `$.flow.delay`/`suspend`/`rerun` (only their hashes are stored), and
 * the retry policy of a step.
 */
import { createHash, randomBytes } from "node:crypto";
import { NO_RETRY, type ResolvedRetryPolicy, type RetryPolicy, retryPolicy } from "@hookline/core";
import type { Execution, ExecutionError, ExecutionStep, Workflow } from "@hookline/store";

/** How long `$.flow.suspend()` waits without a timeout: one day. */
export const DEFAULT_SUSPEND_MS = 86_400_000;

/** The longest delay or suspend: one year. */
export const MAX_PAUSE_MS = 365 * 86_400_000;

/** How many times `$.flow.rerun` reruns a step when it gives no `maxReruns`. */
export const DEFAULT_MAX_RERUNS = 10;

/** How many tries of one step may end with their node dying before the run fails (`interrupted`). */
export const MAX_INTERRUPTED = 5;

/** The error recorded for a try whose node died (its lease expired and the run was swept back). */
export const INTERRUPTED: ExecutionError = {
  code: "interrupted",
  message: "The node running this try stopped before it ended; the step ran again",
};

/** A step invocation's tokens (given to the step inside its URLs) and their hashes (stored). @internal */
export interface FlowTokens {
  resume: string;
  cancel: string;
}

/** New tokens: 24 random bytes each, base64url. @internal */
export function newTokens(): FlowTokens {
  return { resume: randomBytes(24).toString("base64url"), cancel: randomBytes(24).toString("base64url") };
}

/** The stored form of a token: its SHA-256, hex. @internal */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The resume and cancel URLs of an execution's tokens. @internal */
export function flowUrls(baseUrl: string, exeId: string, tokens: FlowTokens) {
  const base = `${baseUrl.replace(/\/+$/, "")}/v1/flow/${encodeURIComponent(exeId)}`;
  return {
    resume_url: `${base}/resume?token=${tokens.resume}`,
    cancel_url: `${base}/cancel?token=${tokens.cancel}`,
  };
}

/** Statuses of a step that ran to its end (it never runs again). */
const FINISHED = new Set(["succeeded", "exited", "failed", "skipped"]);

/** What a step exposes to later ones: `steps.<name>`. @internal */
export function stepExports(record: ExecutionStep): Record<string, unknown> {
  const out: Record<string, unknown> = { ...record.exports, $return_value: record.returnValue };
  if (record.resumeData !== undefined) out.$resume_data = record.resumeData;
  return out;
}

/** Where a claimed execution resumes. @internal */
export interface ResumePoint {
  /** Every step's record (the stored ones, aligned with the workflow's steps by name). */
  records: ExecutionStep[];
  /** `steps`: the trigger and every finished step's exports. */
  steps: Record<string, unknown>;
  /** The first step that has not finished (`records.length` when all did). */
  start: number;
}

/**
 * The stored records, the rebuilt `steps` and the first step to run. A record of a step that did
 * not finish stays as stored (its `attempts` and `attemptErrors` continue). @internal
 */
export function resumePoint(wf: Workflow, exe: Execution): ResumePoint {
  const steps: Record<string, unknown> = { trigger: { event: exe.event, context: exe.context ?? {} } };
  const records = wf.steps.map((s, i): ExecutionStep => {
    const name = String(s.name);
    const stored = exe.steps[i];
    return stored && stored.name === name ? stored : { name, status: "pending", logs: [], attempts: 0 };
  });
  let start = 0;
  while (start < records.length && FINISHED.has((records[start] as ExecutionStep).status)) {
    const record = records[start] as ExecutionStep;
    if (record.status !== "succeeded") break;
    steps[record.name] = stepExports(record);
    start++;
  }
  return { records, steps, start };
}

/**
 * The retry policy of step `index` of `wf` in `exe`. A test run (`context.test`, see test-run.ts)
 * is never retried unless it asked (`context.auto_retry`), as on Pipedream. Otherwise the default
 * follows the workflow's trigger: none when it is an HTTP trigger that answers with `$.respond`
 * (`custom_response`), whatever started the run (a manual run behaves as a real one). @internal
 */
export function stepRetry(
  wf: Workflow,
  index: number,
  exe?: Pick<Execution, "context">,
): ResolvedRetryPolicy {
  if (exe?.context?.test === true && exe.context.auto_retry !== true) return NO_RETRY;
  const waits = wf.trigger.type === "http" && wf.trigger.custom_response === true;
  const step = (wf.steps[index] as { retry?: RetryPolicy }).retry;
  return retryPolicy(step, wf.settings?.retry as RetryPolicy | undefined, waits);
}

/** The failed tries of a record that count against its retry policy (not the interrupted ones). @internal */
export function failedTries(record: ExecutionStep): number {
  return (record.attemptErrors ?? []).filter((e) => e.code !== "interrupted").length;
}

/** The interrupted tries of a record. @internal */
export function interruptedTries(record: ExecutionStep): number {
  return (record.attemptErrors ?? []).filter((e) => e.code === "interrupted").length;
}

/**
 * The index of the last step `exe` runs: the step named by a test run's `context.stop_after`, else
 * the workflow's last step. @internal
 */
export function lastStep(wf: Workflow, exe: Pick<Execution, "context">): number {
  const stop = exe.context?.stop_after;
  const index = typeof stop === "string" ? wf.steps.findIndex((s) => s.name === stop) : -1;
  return index >= 0 ? index : wf.steps.length - 1;
}
