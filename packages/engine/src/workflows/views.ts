/** What the engine returns for workflows and executions (internal fields left out). @internal */
import { STEP_FIELDS, type WorkflowStep, type WorkflowTrigger } from "@hookline/core";
import type { Execution, Workflow } from "@hookline/store";
import { endpointUrl } from "../views.js";
import type { ExecutionView, WorkflowTriggerView, WorkflowView } from "./types.js";

/** A stored step as the user wrote it: its `STEP_FIELDS` (not the engine's `saved_component_id`). @internal */
export function userStep(stored: Record<string, unknown>): WorkflowStep {
  const out: Record<string, unknown> = {};
  for (const k of STEP_FIELDS) if (stored[k] !== undefined) out[k] = stored[k];
  return out as unknown as WorkflowStep;
}

/** A workflow as the engine returns it. @internal */
export function workflowView(w: Workflow, baseUrl: string): WorkflowView {
  const trigger = { ...w.trigger } as unknown as WorkflowTriggerView;
  if (w.endpointId) {
    trigger.endpoint_id = w.endpointId;
    trigger.endpoint_url = endpointUrl(baseUrl, w.endpointId);
  }
  const view: WorkflowView = {
    id: w.id,
    workspaceId: w.workspaceId,
    name: w.name,
    trigger: trigger as WorkflowTrigger & WorkflowTriggerView,
    steps: w.steps.map(userStep),
    active: w.active,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
  const settings = (w.settings ?? {}) as Partial<WorkflowView>;
  if (settings.retry !== undefined) view.retry = settings.retry;
  if (settings.concurrency !== undefined) view.concurrency = settings.concurrency;
  if (settings.throttle !== undefined) view.throttle = settings.throttle;
  if (settings.queue_size !== undefined) view.queue_size = settings.queue_size;
  return view;
}

/** An execution as the engine returns it. @internal */
export function executionView(e: Execution): ExecutionView {
  const { leaseOwner: _o, leaseExpiresAt: _e, resumeData: _r, ...rest } = e;
  return rest;
}
