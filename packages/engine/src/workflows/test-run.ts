/**
 * Test runs (the workflow editor's "Test"): a manual run marked `context.test`, run here at once
 * whatever the workflow's limits, never retried unless it asks (`auto_retry`, as Pipedream's
 * builder does), of the saved workflow or of an unsaved draft of it, from the first step or from a
 * step with an earlier execution's results, up to a step (`stop_after`: the later ones skipped).
 */
import { createHash } from "node:crypto";
import type { Execution, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { prepareWorkflow } from "./definition.js";
import type { Executor } from "./executor.js";
import { invalid, replaySteps } from "./replay.js";
import { checkEventSize } from "./run-size.js";
import { forgetWorkflow, type StepCache } from "./steps.js";
import { wfStores } from "./stores.js";
import type { TestRunOptions } from "./types.js";

/** The workflow a test runs: the stored one, or the draft checked as an update of it would be. */
async function testedWorkflow(
  ctx: EngineContext,
  cache: StepCache,
  stored: Workflow,
  draft: TestRunOptions["draft"],
): Promise<{ wf: Workflow; cacheId?: string }> {
  if (draft === undefined) return { wf: stored };
  const prepared = await prepareWorkflow(ctx, cache, stored.workspaceId, draft, stored);
  const wf: Workflow = {
    ...stored,
    ...prepared,
    trigger: prepared.trigger as Workflow["trigger"],
    steps: prepared.steps as Workflow["steps"],
  };
  // The draft's steps are prepared and mounted apart from the stored ones (and dropped after).
  const hash = createHash("sha256").update(JSON.stringify(prepared)).digest("hex").slice(0, 16);
  return { wf, cacheId: `${stored.id}~${hash}` };
}

/** Runs a test of `stored` (or of `options.draft`); resolves with the execution where it ended. @internal */
export async function testRun(
  ctx: EngineContext,
  cache: StepCache,
  executor: Executor,
  stored: Workflow,
  options: TestRunOptions = {},
): Promise<Execution> {
  const { wf, cacheId } = await testedWorkflow(ctx, cache, stored, options.draft);
  const names = wf.steps.map((s) => String(s.name));
  if (options.stopAfter !== undefined && !names.includes(options.stopAfter)) {
    throw invalid(
      "stop_after",
      `no step ${options.stopAfter} in the workflow (its steps: ${names.join(", ")})`,
    );
  }
  if (options.fromStep !== undefined && options.fromExecution === undefined) {
    throw invalid("from_execution", "from_step takes the execution whose earlier results to use");
  }
  let original: Execution | undefined;
  if (options.fromExecution !== undefined) {
    original = await wfStores(ctx.store).executions.get(wf.workspaceId, options.fromExecution);
    if (!original || original.workflowId !== wf.id) {
      throw invalid("from_execution", `no execution ${options.fromExecution} of workflow ${wf.id}`);
    }
  }
  const from = options.fromStep === undefined ? 0 : names.indexOf(options.fromStep);
  if (options.stopAfter !== undefined && from > names.indexOf(options.stopAfter)) {
    throw invalid("stop_after", `${options.stopAfter} comes before from_step ${options.fromStep}`);
  }
  const event = options.event !== undefined ? options.event : (original?.event ?? {});
  checkEventSize(ctx.limits.maxExecutionBytes, event);
  const context: Record<string, unknown> = { trigger: "manual", test: true };
  if (options.stopAfter !== undefined) context.stop_after = options.stopAfter;
  if (options.autoRetry) context.auto_retry = true;
  if (original) context.replay_of = original.id;
  try {
    return await executor.runTest(
      wf,
      {
        trigger: "manual",
        event,
        context,
        ...(original ? { steps: replaySteps(wf, original, options.fromStep) } : {}),
      },
      cacheId ? { cacheId } : {},
    );
  } finally {
    if (cacheId) forgetWorkflow(cache, cacheId);
  }
}
