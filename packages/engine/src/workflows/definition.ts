/**
 * A workflow definition checked and made ready to store: core's rules (`validateWorkflow`), then
 * what only the engine can check (each step's component exists and is an action, its props fit,
 * the source of a source trigger exists), all problems at once as 422 `invalid_workflow`.
 */
import {
  type ConcurrencyLimit,
  HooklineError,
  newId,
  type Problem,
  type ThrottleLimit,
  validateWorkflow,
  type WorkflowDefinition,
} from "@hookline/core";
import type { CreateWorkflowInput, Workflow, WorkflowLimits } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { prepareStep, type StepCache, stepError } from "./steps.js";
import type { SettingKey, WorkflowUpdate } from "./types.js";

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
  definition: WorkflowUpdate,
  previous?: Workflow,
): Promise<PreparedWorkflow> {
  if (typeof definition !== "object" || definition === null || Array.isArray(definition)) {
    throw stepError([{ code: "invalid_type", path: "", message: "a workflow is an object" }]);
  }
  // Run settings: given (null removes one), or kept from the stored workflow.
  const settings: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = definition[key] !== undefined ? definition[key] : previous?.settings?.[key];
    if (value !== undefined && value !== null) settings[key] = value;
  }
  const merged = {
    name: definition.name ?? previous?.name,
    trigger: definition.trigger ?? stripTrigger(previous?.trigger),
    steps: definition.steps ?? previous?.steps,
    ...(definition.active !== undefined ? { active: definition.active } : {}),
    ...settings,
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
    if (sourceId.startsWith("p_")) {
      // Another workflow's $errors (core checked event_name).
      if (sourceId === previous?.id) {
        found.push({
          code: "invalid_trigger",
          path: "trigger.source_id",
          message: "A workflow cannot trigger on its own $errors",
        });
      } else if (!(await ctx.store.workflows?.get(workspaceId, sourceId))) {
        found.push({
          code: "not_found",
          path: "trigger.source_id",
          message: `No workflow ${sourceId} in this workspace`,
        });
      }
    } else if (!(await ctx.store.deployedComponents.get(workspaceId, sourceId))) {
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
  if (Object.keys(settings).length > 0) out.settings = settings;
  const limits = limitsOf(settings);
  if (limits) out.limits = limits;
  if (trigger.type === "http") out.endpointId = previous?.endpointId ?? newId("en");
  if (sourceId) out.sourceId = sourceId;
  return out;
}

/** The settings a workflow keeps beside its trigger and steps. */
const SETTING_KEYS: SettingKey[] = ["retry", "concurrency", "throttle", "queue_size"];

/** The store's limits of validated settings (undefined: none). */
function limitsOf(settings: Record<string, unknown>): WorkflowLimits | undefined {
  const concurrency = settings.concurrency as ConcurrencyLimit | undefined;
  const throttle = settings.throttle as ThrottleLimit | undefined;
  const queueSize = settings.queue_size as number | undefined;
  const limits: WorkflowLimits = {
    ...(concurrency ? { maxRunning: concurrency.max } : {}),
    ...(throttle ? { throttleLimit: throttle.limit, throttleIntervalMs: throttle.interval_ms } : {}),
    ...(queueSize !== undefined ? { queueSize } : {}),
  };
  return Object.keys(limits).length > 0 ? limits : undefined;
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
