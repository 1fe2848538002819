/**
 * A workflow step's component: found (a saved component by id, a registry action by key) or
 * bundled (inline code, wrapped so that `defineComponent({ run })` without a name or version is an
 * action), its static prop values checked, its `{{ }}` expressions parsed, and its sandbox kept
 * between runs (props are bound per run, see `runAction`'s options in `@hookline/runtime`).
 */
import { createHash } from "node:crypto";
import {
  type ComponentDescription,
  describeProblems,
  envNamesOf,
  HooklineError,
  hasTemplate,
  type Problem,
  parseTemplate,
  validatePropValues,
} from "@hookline/core";
import type { MountedComponent, StepExpression } from "@hookline/runtime";
import { checkAppProps } from "../apps.js";
import { componentFromKey } from "../components.js";
import type { EngineContext } from "../context.js";
import { dataStoreBridge } from "../data-stores.js";
import { fetchBridge } from "../mounts.js";
import { netBridges } from "../net-bridges.js";
import { componentNotFound } from "../not-found.js";
import { type LoadedCode, rememberCode } from "./code-cache.js";

/** A step's component, ready to run. @internal */
export interface PreparedStep {
  /** The workflow's workspace (its `data_store` props use that workspace's stores). */
  workspaceId: string;
  /** What identifies the component (a saved component id, or the code's hash). */
  identity: string;
  bundle: string;
  description: ComponentDescription;
  /** Static prop values (coerced, defaults applied), expression-bearing ones left out. */
  staticProps: Record<string, unknown>;
  /** The expressions to evaluate in the sandbox. */
  exprs: StepExpression[];
  /** The environment variables the expressions read. */
  envNames: string[];
}

/** The file name code steps are bundled under when the step gives none (error stacks name it). */
const STEP_FILE = "step.mjs";

/** The file of the wrapper below (a step's own file may not take its name). */
const WRAPPER_FILE = "workflow-step.mjs";

/** The wrapper that makes a code step an action whatever it omits. */
function wrapperOf(stepName: string, file: string): string {
  return `import step from "./${file}";
export default Object.assign({ name: ${JSON.stringify(stepName)}, version: "0.0.1" }, step, { type: "action" });
`;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** Every `{{ }}` value under `value`, with its path. */
function* templated(value: unknown, path: (string | number)[]): Generator<[(string | number)[], string]> {
  if (typeof value === "string") {
    if (hasTemplate(value)) yield [path, value];
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* templated(value[i], [...path, i]);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) yield* templated(v, [...path, k]);
  }
}

const label = (path: (string | number)[]) =>
  `configured_props${path.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("")}`;

/** Problems of a step's component or props, as a 422 `invalid_workflow` naming `steps[i]...`. @internal */
export function stepError(problems: Problem[]): HooklineError {
  const message = describeProblems(problems);
  return new HooklineError("invalid_workflow", `Invalid workflow: ${message}`, { problems });
}

/** Engine-wide caches of step components and sandboxes. @internal */
export interface StepCache {
  /** Loaded code steps by code hash. */
  code: Map<string, LoadedCode>;
  /** Mounted sandboxes by `workflowId/index/identity`. */
  mounted: Map<string, MountedComponent>;
  /** Prepared steps by `workflowId/index/updatedAt`. */
  prepared: Map<string, PreparedStep>;
  /** Sandboxes of replaced or deleted workflow versions, disposed after {@link RETIRE_MS}. */
  retired: Set<MountedComponent>;
}

/** How long a replaced step sandbox lives on for runs already inside it (past the run timeout). */
const RETIRE_MS = 60_000;

/** A new, empty cache. @internal */
export function createStepCache(): StepCache {
  return { code: new Map(), mounted: new Map(), prepared: new Map(), retired: new Set() };
}

/**
 * Resolves and checks one stored step (`steps[index]` of the definition): its component (404 and
 * load errors become problems naming the step), its static props against the component's
 * (`validatePropValues`; expression-bearing values pass), its expressions. Mutates nothing; the
 * caller stores `saved_component_id` when it returns one. @internal
 */
export async function prepareStep(
  ctx: EngineContext,
  cache: StepCache,
  workspaceId: string,
  step: Record<string, unknown>,
  index: number,
): Promise<PreparedStep & { savedComponentId?: string }> {
  const at = `steps[${index}]`;
  const name = String(step.name);
  let identity: string;
  let bundle: string;
  let description: ComponentDescription;
  let savedComponentId: string | undefined;
  try {
    if (typeof step.component_code === "string") {
      // The step's own file name (`pd workflows create` sends the one `code:` names), for stacks.
      const file =
        typeof step.filename === "string" && step.filename !== WRAPPER_FILE ? step.filename : STEP_FILE;
      const hash = sha(`${name}\n${file}\n${step.component_code}`);
      let loaded = cache.code.get(hash);
      if (!loaded) {
        const out = await ctx.runtime.load({
          code: wrapperOf(name, file),
          filename: WRAPPER_FILE,
          files: { [file]: step.component_code },
        });
        loaded = { bundle: out.bundle, description: out.description };
        rememberCode(cache.code, hash, loaded);
      }
      identity = `code:${hash}`;
      ({ bundle, description } = loaded);
    } else {
      const id = (step.saved_component_id ?? step.component_id) as string | undefined;
      const component =
        id !== undefined
          ? await ctx.store.savedComponents.get(workspaceId, id)
          : await componentFromKey(ctx, workspaceId, String(step.component_key));
      if (!component) throw componentNotFound(id);
      identity = component.id;
      savedComponentId = component.id;
      ({ bundle, description } = component);
    }
  } catch (error) {
    if (!(error instanceof HooklineError)) throw error;
    const field =
      step.component_code !== undefined
        ? "component_code"
        : step.component_id
          ? "component_id"
          : "component_key";
    throw stepError([{ code: error.code, path: `${at}.${field}`, message: error.message }]);
  }
  if (description.type !== "action") {
    throw stepError([
      {
        code: "invalid_value",
        path: at,
        message: `step ${name}'s component is a source: a step runs an action`,
      },
    ]);
  }
  const configured = (step.configured_props ?? {}) as Record<string, unknown>;
  const exprs: StepExpression[] = [];
  const envNames = new Set<string>();
  const forCheck: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(configured)) {
    const found = [...templated(value, [key])];
    forCheck[key] = found.length > 0 ? "{{expression}}" : value;
    for (const [path, text] of found) {
      const parsed = parseTemplate(text);
      if (parsed.error) {
        throw stepError([
          { code: "invalid_expression", path: `${at}.${label(path)}`, message: parsed.error },
        ]);
      }
      for (const part of parsed.parts)
        if (typeof part !== "string") for (const n of envNamesOf(part.code)) envNames.add(n);
      exprs.push({ path, parts: parsed.parts, whole: parsed.whole, label: label(path) });
    }
  }
  const { values, problems } = validatePropValues(description.props, forCheck);
  if (problems.length > 0) {
    throw stepError(problems.map((p) => ({ ...p, path: `${at}.configured_props.${p.path}` })));
  }
  // App props: a connected account of the right app, unless the app needs none (as for sources).
  try {
    await checkAppProps(ctx.apps, workspaceId, description.props, values);
  } catch (error) {
    if (!(error instanceof HooklineError)) throw error;
    const prop = (error.details as { prop?: string } | undefined)?.prop;
    throw stepError([
      { code: error.code, path: `${at}.configured_props${prop ? `.${prop}` : ""}`, message: error.message },
    ]);
  }
  const staticProps: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values))
    if (forCheck[key] !== "{{expression}}") staticProps[key] = value;
  // An expression-bearing value nested in an object starts from the static object around it.
  for (const e of exprs)
    if (e.path.length > 1 && staticProps[e.path[0] as string] === undefined) {
      staticProps[e.path[0] as string] = structuredClone(configured[e.path[0] as string]);
    }
  return {
    workspaceId,
    identity,
    bundle,
    description,
    staticProps,
    exprs,
    envNames: [...envNames],
    ...(savedComponentId ? { savedComponentId } : {}),
  };
}

/** The step's cached sandbox, mounted on first use. @internal */
export async function stepSandbox(
  ctx: EngineContext,
  cache: StepCache,
  workflowId: string,
  index: number,
  prepared: PreparedStep,
): Promise<MountedComponent> {
  const key = `${workflowId}/${index}/${prepared.identity}`;
  const cached = cache.mounted.get(key);
  if (cached) return cached;
  const mounted = await ctx.runtime.mount({
    id: `${workflowId}.${index}`,
    bundle: prepared.bundle,
    description: prepared.description,
    props: {},
    bridges: {
      fetch: fetchBridge(ctx.transport),
      ...netBridges(ctx.transport),
      dataStore: dataStoreBridge(ctx, prepared.workspaceId),
    },
  });
  // Another run mounted it meanwhile: keep one.
  const raced = cache.mounted.get(key);
  if (raced) {
    mounted.dispose();
    return raced;
  }
  cache.mounted.set(key, mounted);
  return mounted;
}

/** Drops a workflow's cached sandboxes (on update and delete). @internal */
export function forgetWorkflow(cache: StepCache, workflowId: string): void {
  for (const key of [...cache.prepared.keys()])
    if (key.startsWith(`${workflowId}/`)) cache.prepared.delete(key);
  for (const [key, mounted] of [...cache.mounted]) {
    if (!key.startsWith(`${workflowId}/`)) continue;
    cache.mounted.delete(key);
    // A run of the old version may still be inside it: disposed once any run has ended.
    cache.retired.add(mounted);
    setTimeout(() => {
      cache.retired.delete(mounted);
      mounted.dispose();
    }, RETIRE_MS).unref();
  }
}

/** Disposes every sandbox of the cache (at close). @internal */
export function disposeSteps(cache: StepCache): void {
  for (const mounted of [...cache.mounted.values(), ...cache.retired]) mounted.dispose();
  cache.mounted.clear();
  cache.retired.clear();
}
