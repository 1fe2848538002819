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

/** Parses the text of a workflow file; `file` names it in errors. */
async function parseWorkflowText(text: string, file: string): Promise<Record<string, unknown>> {
  let doc: unknown;
  try {
    doc = parse(text, { prettyErrors: true });
  } catch (error) {
    throw new CliError("invalid_workflow_file", `${file}: ${(error as Error).message.split("\n")[0]}`);
  }
  // Loaded here: core (typebox) is heavy for the commands that never read a workflow file.
  const { workflowFileProblems } = await import("@hookline/core");
  const problems = workflowFileProblems(doc);
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
  const doc = await parseWorkflowText(text, file);
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
  const { WORKFLOW_FILE_SETTINGS } = await import("@hookline/core");
  for (const key of WORKFLOW_FILE_SETTINGS) if (doc[key] !== undefined) body[key] = doc[key];
  return body;
}
