/**
 * The workflow file: YAML (so JSON too) a person writes and keeps in git, turned into the body of
 * `POST /v1/workflows`. A step's `code: ./file.mjs` is read relative to the workflow file and
 * bundled with its relative imports, as `pd deploy` does.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse } from "yaml";
import { bundleComponent } from "./_bundle.js";
import { CliError } from "./_output.js";

/** One step as `POST /v1/workflows` takes it. */
export interface WorkflowStepBody {
  name: string;
  component_id?: string;
  component_key?: string;
  component_code?: string;
  /** The name of the file `code:` named, for error stacks. */
  filename?: string;
  configured_props?: Record<string, unknown>;
  /** The step's retry policy (checked by the server). */
  retry?: Record<string, unknown>;
}

/** The body of `POST /v1/workflows` (and `PUT /v1/workflows/{id}`). */
export interface WorkflowBody {
  name: string;
  trigger: Record<string, unknown>;
  steps: WorkflowStepBody[];
  active?: boolean;
  /** Run settings, checked by the server: `retry`, `concurrency`, `throttle`, `queue_size`. */
  retry?: unknown;
  concurrency?: unknown;
  throttle?: unknown;
  queue_size?: unknown;
}

/** The run settings a file may give, passed on as written. */
const SETTINGS = ["retry", "concurrency", "throttle", "queue_size"] as const;

const TOP = new Set(["name", "trigger", "steps", "active", "retry", "concurrency", "throttle", "queue_size"]);
const STEP = new Set([
  "name",
  "code",
  "component_code",
  "component_key",
  "component_id",
  "configured_props",
  "retry",
]);
const SOURCES = ["code", "component_code", "component_key", "component_id"] as const;

/** A problem of the file, as `pd` prints the API's (`details.problems`). */
interface Problem {
  path: string;
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks the shape the CLI itself relies on; the server validates the rest (trigger, names...). */
function _check(doc: unknown): Problem[] {
  if (!isObject(doc)) return [{ path: "", message: "the file must hold a mapping (name, trigger, steps)" }];
  const problems: Problem[] = [];
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
    const given = SOURCES.filter((k) => step[k] !== undefined);
    if (given.length !== 1)
      problems.push({
        path: at,
        message: `give exactly one of ${SOURCES.join(", ")}${given.length > 1 ? ` (got ${given.join(", ")})` : ""}`,
      });
    for (const k of given)
      if (typeof step[k] !== "string") problems.push({ path: `${at}.${k}`, message: "must be a string" });
    if (step.configured_props !== undefined && !isObject(step.configured_props))
      problems.push({ path: `${at}.configured_props`, message: "must be a mapping of prop names to values" });
  });
  return problems;
}

/** Parses the text of a workflow file; `file` names it in errors. @internal */
export function _parseWorkflowText(text: string, file: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parse(text, { prettyErrors: true });
  } catch (error) {
    throw new CliError("invalid_workflow_file", `${file}: ${(error as Error).message.split("\n")[0]}`);
  }
  const problems = _check(doc);
  if (problems.length > 0) {
    throw new CliError(
      "invalid_workflow_file",
      `${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"}`,
      { problems },
    );
  }
  return doc as Record<string, unknown>;
}

/**
 * Reads a workflow file into the body of `POST /v1/workflows`: `code:` paths are read relative to
 * the file and bundled; everything else goes as written.
 * @example
 * ```ts
 * const body = await loadWorkflowFile("workflows/orders.yaml");
 * await client.request("POST", "/v1/workflows", body);
 * ```
 */
export async function loadWorkflowFile(file: string): Promise<WorkflowBody> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError("file_not_found", `cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  const doc = _parseWorkflowText(text, file);
  const base = dirname(resolve(file));
  const steps: WorkflowStepBody[] = [];
  for (const raw of doc.steps as Array<Record<string, unknown>>) {
    const { code, ...rest } = raw;
    const step = { ...rest } as unknown as WorkflowStepBody;
    if (typeof code === "string") {
      // Its name goes along, so that error stacks name the user's file (total.mjs:4:12).
      const bundled = await bundleComponent(resolve(base, code));
      step.component_code = bundled.code;
      step.filename = bundled.filename;
    }
    steps.push(step);
  }
  const body: WorkflowBody = {
    name: doc.name as string,
    trigger: doc.trigger as Record<string, unknown>,
    steps,
  };
  if (typeof doc.active === "boolean") body.active = doc.active;
  for (const key of SETTINGS) if (doc[key] !== undefined) body[key] = doc[key];
  return body;
}
