/**
 * The shape of a workflow file (YAML or JSON, as `pd workflows create -f` and the editor's import
 * read it) checked before it is sent: unknown fields, a step without exactly one source. The server
 * validates the rest (trigger, names, props). One owner for the CLI and the web UI.
 */

/** A problem of the file: where (`steps[0].cod`) and what. */
export interface WorkflowFileProblem {
  path: string;
  message: string;
}

/** The run settings a file may give, passed on as written. */
export const WORKFLOW_FILE_SETTINGS = ["retry", "concurrency", "throttle", "queue_size"] as const;

const TOP = new Set(["name", "trigger", "steps", "active", ...WORKFLOW_FILE_SETTINGS]);
const STEP = new Set([
  "name",
  "code",
  "component_code",
  "component_key",
  "component_id",
  "configured_props",
  "retry",
]);

/** Where a step's action comes from: exactly one is given (`code` names a file beside the workflow's). */
export const WORKFLOW_FILE_STEP_SOURCES = [
  "code",
  "component_code",
  "component_key",
  "component_id",
] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The problems of a parsed workflow file, in document order (none: it can be sent).
 *
 * @example
 * ```ts
 * workflowFileProblems({ name: "w", trigger: { type: "http" }, steps: [{ name: "a", cod: "x" }] });
 * // [{ path: "steps[0].cod", message: "unknown field (use name, code, ...)" }, { path: "steps[0]", ... }]
 * ```
 */
export function workflowFileProblems(doc: unknown): WorkflowFileProblem[] {
  if (!isObject(doc)) return [{ path: "", message: "the file must hold a mapping (name, trigger, steps)" }];
  const problems: WorkflowFileProblem[] = [];
  for (const key of Object.keys(doc))
    if (!TOP.has(key)) problems.push({ path: key, message: `unknown field (use ${[...TOP].join(", ")})` });
  if (typeof doc.name !== "string" || doc.name.trim() === "")
    problems.push({ path: "name", message: "required: the workflow's name" });
  if (!isObject(doc.trigger))
    problems.push({ path: "trigger", message: "required: a mapping such as {type: http}" });
  if (doc.active !== undefined && typeof doc.active !== "boolean")
    problems.push({ path: "active", message: "must be true or false" });
  if (!Array.isArray(doc.steps)) {
    problems.push({ path: "steps", message: "required: a list of steps" });
    return problems;
  }
  doc.steps.forEach((step, i) => {
    const at = `steps[${i}]`;
    if (!isObject(step)) {
      problems.push({ path: at, message: "must be a mapping (name, and code or component_key...)" });
      return;
    }
    for (const key of Object.keys(step))
      if (!STEP.has(key))
        problems.push({ path: `${at}.${key}`, message: `unknown field (use ${[...STEP].join(", ")})` });
    if (typeof step.name !== "string") problems.push({ path: `${at}.name`, message: "required: a string" });
    const given = WORKFLOW_FILE_STEP_SOURCES.filter((k) => step[k] !== undefined);
    if (given.length !== 1)
      problems.push({
        path: at,
        message: `give exactly one of ${WORKFLOW_FILE_STEP_SOURCES.join(", ")}${given.length > 1 ? ` (got ${given.join(", ")})` : ""}`,
      });
    for (const k of given)
      if (typeof step[k] !== "string") problems.push({ path: `${at}.${k}`, message: "must be a string" });
    if (step.configured_props !== undefined && !isObject(step.configured_props))
      problems.push({ path: `${at}.configured_props`, message: "must be a mapping of prop names to values" });
  });
  return problems;
}
