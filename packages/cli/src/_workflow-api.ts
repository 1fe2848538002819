/** Workflows and executions as the REST API returns them, and finding a workflow by id or name. */

import { type ApiClient, listAll } from "./_api.js";
import { CliError, out, style } from "./_output.js";
import { _didYouMean } from "./_suggest.js";

/** A workflow as `GET /v1/workflows/{id}` returns it. */
export interface WorkflowJson {
  id: string;
  name: string;
  active: boolean;
  trigger: { type: string; endpoint_url?: string; [key: string]: unknown };
  steps: Array<{ name: string; component_id?: string; component_key?: string }>;
  created_at: number;
  updated_at: number;
}

/** A log line of a step. */
export interface StepLogJson {
  level?: string;
  message?: string;
  ts?: number;
}

/** One step of an execution. */
export interface StepJson {
  name: string;
  status: string;
  return_value?: unknown;
  exports?: Record<string, unknown>;
  summary?: string | null;
  logs?: StepLogJson[];
  error?: { name?: string; message?: string; code?: string } | null;
  started_at?: number | null;
  started_at_ms?: number | null;
  duration_ms?: number | null;
  attempts?: number;
}

/** An execution `exe_...`. */
export interface ExecutionJson {
  id: string;
  workflow_id: string;
  status: string;
  event?: unknown;
  steps: StepJson[];
  exit_reason?: string | null;
  error?: { name?: string; message?: string; code?: string } | null;
  started_at?: number | null;
  started_at_ms?: number | null;
  finished_at?: number | null;
  finished_at_ms?: number | null;
  /** When a queued (retry), delayed or suspended run is due. */
  run_at_ms?: number | null;
}

/** Whether `ref` is a workflow id. @internal */
export const _isWorkflowId = (ref: string): boolean => /^p_[0-9A-Za-z]+$/.test(ref);

/**
 * Finds a workflow by id (`p_...`) or exact name; a name two workflows share is `ambiguous_name`.
 * @example
 * ```ts
 * const { id } = await resolveWorkflow(client, "orders");
 * ```
 */
export async function resolveWorkflow(client: ApiClient, ref: string): Promise<WorkflowJson> {
  if (_isWorkflowId(ref))
    return client.request<WorkflowJson>("GET", `/v1/workflows/${encodeURIComponent(ref)}`);
  const all = await listAll<WorkflowJson>(client, "/v1/workflows");
  const named = all.filter((w) => w.name === ref);
  const [only, ...others] = named;
  if (only && others.length === 0) return only;
  if (only) {
    throw new CliError(
      "ambiguous_name",
      `${named.length} workflows are named "${ref}": ${named.map((w) => w.id).join(", ")}; name one by its id`,
    );
  }
  const guess = _didYouMean(
    ref,
    all.map((w) => w.name),
  );
  throw new CliError("not_found", `No workflow ${ref} in this workspace${guess}`);
}

/** Epoch milliseconds of an API time (seconds or milliseconds). @internal */
export const _ms = (t: number): number => (t < 1e12 ? t * 1000 : t);

/** An ISO time, or `-`. @internal */
export const _iso = (t: number | null | undefined): string =>
  t === null || t === undefined ? "-" : new Date(_ms(t)).toISOString();

const statusStyle = (status: string): string =>
  status === "succeeded"
    ? style.green(status)
    : status === "failed"
      ? style.red(status)
      : status === "exited"
        ? style.yellow(status)
        : status;

const short = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? "undefined" : text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** Prints an execution: its status, then each step with timing, summary, return value, exports, logs and error. @internal */
export function _printExecution(exe: ExecutionJson): void {
  const took =
    typeof exe.started_at_ms === "number" && typeof exe.finished_at_ms === "number"
      ? ` in ${Math.round(exe.finished_at_ms - exe.started_at_ms)} ms`
      : "";
  out(
    `${style.bold(exe.id)} ${statusStyle(exe.status)}${took} ${style.dim(_iso(exe.started_at_ms ?? exe.started_at))}`,
  );
  if (exe.exit_reason) out(`  exit reason: ${exe.exit_reason}`);
  if (typeof exe.run_at_ms === "number") {
    const what =
      exe.status === "suspended"
        ? "waits for its resume URL until"
        : exe.status === "delayed"
          ? "resumes at"
          : "next try at";
    out(`  ${what} ${_iso(exe.run_at_ms)}`);
  }
  for (const step of exe.steps) {
    const ms =
      step.duration_ms === null || step.duration_ms === undefined
        ? ""
        : ` ${Math.round(step.duration_ms)} ms`;
    const tries = (step.attempts ?? 0) > 1 ? ` (try ${step.attempts})` : "";
    out(
      `  ${style.bold(step.name)} ${statusStyle(step.status)}${tries}${ms}${step.summary ? ` — ${step.summary}` : ""}`,
    );
    for (const log of step.logs ?? []) {
      const time = log.ts !== undefined ? `${style.dim(_iso(log.ts))} ` : "";
      out(`    ${time}${(log.level ?? "log").padEnd(5)} ${log.message ?? ""}`);
    }
    if (step.return_value !== undefined && step.return_value !== null)
      out(`    return: ${short(step.return_value)}`);
    for (const [name, value] of Object.entries(step.exports ?? {}))
      out(`    export ${name}: ${short(value)}`);
    if (step.error)
      out(`    ${style.red("error")}: ${step.error.name ?? "Error"}: ${step.error.message ?? ""}`);
  }
}
