/**
 * The workflow editor's draft, without UI: what the page edits (a trigger, ordered steps with their
 * props, run settings), made from a saved workflow or a workflow file and turned into the body of
 * `POST`/`PUT /v1/workflows` (and the `workflow` of a test run). The workflow file's format is
 * `pd workflows`' (docs/workflows.md): YAML with the REST API's fields.
 */
import { WORKFLOW_FILE_SETTINGS, workflowFileProblems } from "@hookline/core";
import type { Component, Workflow, WorkflowTrigger } from "../types";

/** A step being edited: a code step, or an action from the registry. */
export interface DraftStep {
  /** A stable id for the page (keys, focus), never sent. */
  uid: string;
  name: string;
  kind: "code" | "action";
  /** A code step's code. */
  code?: string;
  /** An action's registry key (`key` or `key@1.2.3`) or saved component id. */
  componentKey?: string;
  componentId?: string;
  /** The action's description, once loaded (its props make the form). */
  component?: Component;
  configured: Record<string, unknown>;
  /** The step's own retry policy, kept as written. */
  retry?: Record<string, unknown>;
}

/** Run settings of a workflow (see docs/workflows.md, "Durable runs"). */
export interface Settings {
  retry?: { count?: number; initial_ms?: number; factor?: number; max_ms?: number; jitter?: number };
  concurrency?: { max: number };
  throttle?: { limit: number; interval_ms: number };
  queue_size?: number;
}

/** The whole draft. */
export interface Draft extends Settings {
  name: string;
  trigger: WorkflowTrigger;
  steps: DraftStep[];
}

/** The code a new code step starts with. */
export const NEW_CODE = `export default defineComponent({
  async run({ steps, $ }) {
    // steps.trigger.event is what started the run; return a value or $.export("name", value).
    return steps.trigger.event;
  },
});
`;

let uids = 0;
/** A new page-local step id. */
export const newUid = (): string => `s${++uids}`;

/** A step name not yet used: `base`, else `base_2`, `base_3`... (letters, digits, underscores). */
export function freeName(steps: { name: string }[], base: string): string {
  const clean = base.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^([0-9])/, "_$1") || "step";
  const taken = new Set(steps.map((s) => s.name));
  if (!taken.has(clean) && clean !== "trigger") return clean;
  for (let i = 2; ; i++) if (!taken.has(`${clean}_${i}`)) return `${clean}_${i}`;
}

/** Why a step name is refused, or undefined (the server's rule: unique, not `trigger`). */
export function nameProblem(steps: DraftStep[], step: DraftStep): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(step.name))
    return "Letters, digits and underscores, not starting with a digit";
  if (step.name === "trigger") return '"trigger" is reserved';
  if (steps.some((s) => s !== step && s.name === step.name)) return "Another step has this name";
  return undefined;
}

/** A new, empty draft: an HTTP trigger and no steps. */
export function emptyDraft(): Draft {
  return { name: "", trigger: { type: "http" }, steps: [] };
}

/** A draft from a workflow as the API (or a workflow file) gives it. */
export function fromWorkflow(wf: Record<string, unknown>): Draft {
  const w = wf as unknown as Omit<Workflow, "steps"> & Settings & { steps: Record<string, unknown>[] };
  const { endpoint_id: _e, ...trigger } = (w.trigger ?? { type: "manual" }) as WorkflowTrigger & {
    endpoint_id?: string;
  };
  const draft: Draft = {
    name: String(w.name ?? ""),
    trigger,
    steps: (w.steps ?? []).map((s) => {
      const step: DraftStep = {
        uid: newUid(),
        name: String(s.name ?? ""),
        kind: typeof s.component_code === "string" ? "code" : "action",
        configured: { ...((s.configured_props as Record<string, unknown>) ?? {}) },
      };
      if (typeof s.component_code === "string") step.code = s.component_code;
      if (typeof s.component_key === "string") step.componentKey = s.component_key;
      else if (typeof s.component_id === "string") step.componentId = s.component_id;
      if (s.retry && typeof s.retry === "object") step.retry = s.retry as Record<string, unknown>;
      return step;
    }),
  };
  for (const key of WORKFLOW_FILE_SETTINGS) {
    if (w[key] !== undefined && w[key] !== null) (draft as unknown as Record<string, unknown>)[key] = w[key];
  }
  return draft;
}

/** The trigger as the API takes it (without what the server adds). */
export function triggerBody(t: WorkflowTrigger): Record<string, unknown> {
  const { endpoint_url: _u, ...rest } = t as WorkflowTrigger & { endpoint_id?: string };
  delete (rest as { endpoint_id?: string }).endpoint_id;
  return rest as Record<string, unknown>;
}

/** The body of `POST`/`PUT /v1/workflows` for a draft (and a workflow file's content). */
export function toDefinition(d: Draft): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: d.name,
    trigger: triggerBody(d.trigger),
    steps: d.steps.map((s) => {
      const step: Record<string, unknown> = { name: s.name };
      if (s.kind === "code") step.component_code = s.code ?? "";
      else if (s.componentKey) step.component_key = s.componentKey;
      else if (s.componentId) step.component_id = s.componentId;
      if (Object.keys(s.configured).length > 0) step.configured_props = s.configured;
      if (s.retry) step.retry = s.retry;
      return step;
    }),
  };
  for (const key of WORKFLOW_FILE_SETTINGS) if (d[key] !== undefined) out[key] = d[key];
  return out;
}

/**
 * Checks a parsed workflow file as `pd workflows create` does before sending it: unknown fields and
 * steps without exactly one source are named (`steps[0].cod: unknown field`). A step's `code:` names a
 * file the browser cannot read: it must be inlined as `component_code`. The server checks the rest.
 */
export function fileProblems(file: unknown): string[] {
  const problems = workflowFileProblems(file).map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
  if (isRecord(file) && Array.isArray(file.steps))
    file.steps.forEach((s, i) => {
      if (isRecord(s) && typeof s.code === "string")
        problems.push(
          `steps[${i}].code: ${s.code} is a file the browser cannot read; inline it as component_code`,
        );
    });
  return problems;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
