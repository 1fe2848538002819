/**
 * A workflow definition checked and made ready to store: core's rules (`validateWorkflow`), then
 * what only the engine can check (each step's component exists and is an action, its props fit,
 * the source of a source trigger exists), all problems at once as 422 `invalid_workflow`.
 */
import {
  HooklineError,
  newId,
  type Problem,
  validateWorkflow,
  type WorkflowDefinition,
} from "@hookline/core";
import type { CreateWorkflowInput, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { prepareStep, type StepCache, stepError } from "./steps.js";

/** What a create or update stores. @internal */
export type PreparedWorkflow = Omit<CreateWorkflowInput, "workspaceId" | "id">;

/**
 * Checks `definition` (merged over `previous` for an update) and returns what to store: steps with
 * the saved component each resolved to, the trigger without engine fields, the endpoint (kept
 * across updates of an HTTP trigger) and the listened source. @internal
 */
export async function prepareWorkflow(
  ctx: EngineContext,
  cache: StepCache,
  workspaceId: string,
  definition: Partial<WorkflowDefinition>,
  previous?: Workflow,
): Promise<PreparedWorkflow> {
  if (typeof definition !== "object" || definition === null || Array.isArray(definition)) {
    throw stepError([{ code: "invalid_type", path: "", message: "a workflow is an object" }]);
  }
  const merged = {
    name: definition.name ?? previous?.name,
    trigger: definition.trigger ?? stripTrigger(previous?.trigger),
    steps: definition.steps ?? previous?.steps,
    ...(definition.active !== undefined ? { active: definition.active } : {}),
  };
  const problems = validateWorkflow(merged);
  if (problems.length > 0) throw stepError(problems);
  const trigger = merged.trigger as unknown as Record<string, unknown>;
  const found: Problem[] = [];
  const steps: Record<string, unknown>[] = [];
  for (const [i, raw] of (merged.steps as unknown as Record<string, unknown>[]).entries()) {
    const step = { ...raw };
    try {
      const prepared = await prepareStep(ctx, cache, workspaceId, step, i);
      if (prepared.savedComponentId && step.component_code === undefined) {
        step.saved_component_id = prepared.savedComponentId;
      }
    } catch (error) {
      const details = (error as HooklineError).details as { problems?: Problem[] } | undefined;
      if (!(error instanceof HooklineError) || !details?.problems) throw error;
      found.push(...details.problems);
    }
    steps.push(step);
  }
  let sourceId: string | undefined;
  if (trigger.type === "source") {
    sourceId = String(trigger.source_id);
    if (!(await ctx.store.deployedComponents.get(workspaceId, sourceId))) {
      found.push({
        code: "not_found",
        path: "trigger.source_id",
        message: `No source ${sourceId} in this workspace`,
      });
    }
  }
  if (found.length > 0) throw stepError(found);
  const out: PreparedWorkflow = {
    name: String(merged.name),
    trigger: stripTrigger(trigger) as unknown as Record<string, unknown>,
    steps,
    active: merged.active ?? previous?.active ?? true,
  };
  if (trigger.type === "http") out.endpointId = previous?.endpointId ?? newId("en");
  if (sourceId) out.sourceId = sourceId;
  return out;
}

/** A trigger without the fields the engine adds to views (`endpoint_id`, `endpoint_url`). */
function stripTrigger(
  trigger: Record<string, unknown> | undefined,
): WorkflowDefinition["trigger"] | undefined {
  if (!trigger) return undefined;
  const { endpoint_id: _i, endpoint_url: _u, ...rest } = trigger;
  return rest as unknown as WorkflowDefinition["trigger"];
}

/** A workflow of the workspace (404 `not_found` when absent). @internal */
export function notFound(id: string): HooklineError {
  return new HooklineError("not_found", `No workflow ${id} in this workspace`);
}
