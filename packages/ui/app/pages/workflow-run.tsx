/**
 * The run view: an execution's status, its trigger event, and each step with its status, timing,
 * summary, return value, exports, logs and error; replay (see workflow-replay.tsx).
 */
import { Fragment } from "preact";
import { api, seg } from "../api";
import { useLoad, usePoll } from "../hooks";
import { runDuration, toMs } from "../triggers";
import type { Execution, ExecutionStep } from "../types";
import { ErrorNote, Loading, Time } from "../widgets";
import { Replay } from "./workflow-replay";

const RUNNING = new Set(["queued", "running", "delayed", "suspended"]);

/** A status as a badge (succeeded green, failed red, running amber). */
export function StatusBadge({ status }: { status: string }) {
  const tone =
    status === "succeeded"
      ? "succeeded"
      : status === "failed"
        ? "failed"
        : RUNNING.has(status)
          ? "pending"
          : "";
  return <span class={`badge${tone ? ` status-${tone}` : ""}`}>{status}</span>;
}

const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? "undefined";

/** One step of the run (also the workflow editor's inline result, with its own id prefix). */
export function Step({
  step,
  index,
  idPrefix = "step",
}: {
  step: ExecutionStep;
  index: number;
  idPrefix?: string;
}) {
  const id = `${idPrefix}-${index}`;
  // `$summary` is an export too: it is shown as the summary.
  const exports = Object.entries(step.exports ?? {}).filter(([name]) => name !== "$summary");
  return (
    <section class="card step" aria-labelledby={id} data-status={step.status}>
      <h3 id={id}>
        <span class="mono">{step.name}</span> <StatusBadge status={step.status} />
      </h3>
      <p class="muted small-text">
        {step.started_at ? (
          <>
            Started <Time ms={step.started_at_ms ?? toMs(step.started_at)} />
          </>
        ) : (
          "Not started"
        )}
        {typeof step.duration_ms === "number" ? ` · ${Math.round(step.duration_ms)} ms` : ""}
        {step.attempts && step.attempts > 1 ? ` · ${step.attempts} attempts` : ""}
      </p>
      {step.summary ? <p>{step.summary}</p> : null}
      {step.error ? (
        <p class="error" role="alert">
          {step.error.name ?? "Error"}: {step.error.message}
          {step.error.code ? <code class="code-tag">{step.error.code}</code> : null}
        </p>
      ) : null}
      {step.return_value !== undefined && step.return_value !== null ? (
        <div>
          <h4>Return value</h4>
          <pre class="json">{pretty(step.return_value)}</pre>
        </div>
      ) : null}
      {exports.length > 0 ? (
        <div>
          <h4>Exports</h4>
          <dl class="meta">
            {exports.map(([name, value]) => (
              <Fragment key={name}>
                <dt class="mono">{name}</dt>
                <dd>
                  <pre class="json">{pretty(value)}</pre>
                </dd>
              </Fragment>
            ))}
          </dl>
        </div>
      ) : null}
      {step.logs && step.logs.length > 0 ? (
        <div>
          <h4>Logs</h4>
          <ul class="logs" aria-label={`Logs of ${step.name}`}>
            {step.logs.map((log, i) => (
              <li key={i} class={`log log-${log.level ?? "info"}`}>
                <span class="muted">{log.ts ? new Date(toMs(log.ts)).toLocaleTimeString() : ""}</span>
                <span class="log-level">{log.level ?? "log"}</span>
                <span class="log-message">{log.message}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}

/** An execution with its steps; polled while it runs. */
export function RunView({
  workflowId,
  executionId,
  changes,
  onReplay,
}: {
  workflowId: string;
  executionId: string;
  /** Counts the stream's status changes of this execution: each one reloads it. */
  changes: number;
  onReplay: (exe: Execution) => Promise<void>;
}) {
  const exe = useLoad(
    () => api<Execution>("GET", `/v1/workflows/${seg(workflowId)}/executions/${seg(executionId)}`),
    [workflowId, executionId, changes],
  );
  usePoll(exe.reload, 1000, exe.data !== undefined && RUNNING.has(exe.data.status));
  const e = exe.data;
  return (
    <section class="card run" aria-labelledby="run-title">
      <h2 id="run-title">
        Run <span class="mono">{executionId}</span> {e ? <StatusBadge status={e.status} /> : null}
      </h2>
      <ErrorNote error={exe.error} label="Could not load the run" />
      {exe.loading && !e ? <Loading what="the run" /> : null}
      {e ? (
        <>
          <p class="muted small-text">
            {e.started_at ? (
              <>
                Started <Time ms={e.started_at_ms ?? toMs(e.started_at)} />
              </>
            ) : (
              "Queued"
            )}
            {runDuration(e) === undefined ? "" : ` · ${Math.round(runDuration(e) as number)} ms`}
          </p>
          {e.exit_reason ? <p>Exited early: {e.exit_reason}</p> : null}
          <details>
            <summary>Trigger event</summary>
            <pre class="json">{pretty(e.event)}</pre>
          </details>
          <Replay workflowId={workflowId} execution={e} onReplay={onReplay} />
          {e.steps.map((s, i) => (
            <Step key={s.name} step={s} index={i} />
          ))}
        </>
      ) : null}
    </section>
  );
}
