/**
 * The state a workflow run carries from step to step (runner.ts): what its caller wants to hear, and
 * the explicit context the runner's functions share.
 */
import type { Execution, ExecutionError, ExecutionPatch, ExecutionStep, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import type { IngressResponse } from "../types.js";
import type { runBudget } from "./run-size.js";
import type { StepCache } from "./steps.js";

/** What the caller of a run wants to hear. @internal */
export interface RunHooks {
  /** The HTTP trigger's answer (called at most once, when the trigger waits for `$.respond`). */
  onRespond?(reply: IngressResponse): void;
  /** The lease of a running execution (default `EXECUTION_LEASE_MS`, runner.ts). */
  leaseMs?: number;
  /**
   * Where this run's prepared steps and sandboxes are cached instead of under the workflow's id:
   * a test run of an unsaved draft (test-run.ts), whose steps differ from the stored ones.
   */
  cacheId?: string;
}

/** What `$.context.run` holds: the runs of this step so far (1 on its first), and a rerun's context. */
export interface RunInfo {
  runs: number;
  context?: unknown;
  callback_request?: unknown;
}

/**
 * One run of an execution, shared by the functions below that each own one part of it: the pause
 * it resumes from, a step's invocation, what a step's end or throw does to the run.
 */
export interface Run {
  ctx: EngineContext;
  cache: StepCache;
  wf: Workflow;
  exe: Execution;
  /** Where prepared steps and sandboxes are cached (the workflow's id, or a draft's). */
  cacheId: string;
  /** The stored records of every step, updated as the run goes. */
  records: ExecutionStep[];
  /** `$` as steps see it: the trigger and each finished step's exports. */
  steps: Record<string, unknown>;
  /** The first step this run starts (those before it finished earlier). */
  start: number;
  /** One past the last step to run (a test run's `stop_after` ends earlier). */
  end: number;
  /** The run's size cap (run-size.ts). */
  budget: ReturnType<typeof runBudget>;
  /** `$.context.run` of the step this run starts at when it reruns (`$.flow.rerun`). */
  rerun: RunInfo | undefined;
  /** `succeeded` while steps go on; anything else ends the loop. */
  status: Execution["status"];
  exitReason: string | undefined;
  failure: ExecutionError | undefined;
  /** What the execution's last write adds: when it is due again. */
  patch: ExecutionPatch;
  /** The first `$.respond` that did not ask to answer at once. */
  pendingReply: IngressResponse | undefined;
  responded: boolean;
  /** Answers the HTTP trigger (once). */
  answer(reply: IngressResponse): void;
}
