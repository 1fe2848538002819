import { checkMethods, checkProp, checkType, describeProp, isObject } from "./component-props.js";
import { DEDUPE_STRATEGIES } from "./dedupe.js";
import type { ComponentDescription } from "./description.js";
import type { Problem } from "./errors.js";
import { Findings, joinPath } from "./problems.js";
import { checkRegistry, type RegistryVisibility } from "./registry-rules.js";
import { isFunctionLike } from "./schemas.js";

/** Options of {@link validateComponent}. */
export interface ValidateComponentOptions {
  /**
   * Also apply the rules of publishing to a registry: `"private"` (a workspace's own: any valid
   * key, a free-form version) or `"public"` (SPEC's key pattern and a semantic version). `true`
   * means `"public"`.
   */
  registry?: boolean | RegistryVisibility;
  /** Turn every warning into a problem (what publishing to the public registry strictly asks). */
  strict?: boolean;
}

/** What {@link validateComponent} found. */
export interface ComponentCheck {
  /** Broken rules that make the definition invalid; empty when it is valid. */
  problems: Problem[];
  /**
   * Broken SPEC rules that real Pipedream components break and Pipedream accepts (see
   * docs/components.md): the definition is valid, and these are shown to the author.
   */
  warnings: Problem[];
}

const HOOKS = ["deploy", "activate", "deactivate"];

/**
 * Checks a component definition against every rule of SPEC's component, prop and prop-type tables.
 * Accepts a live definition (functions) or its serialized form, where each function is
 * `{ "$fn": true }`. Returns every problem found and every warning, each with a stable code and a
 * dotted path: no problem means the definition is valid. A warning is a SPEC rule real Pipedream
 * components break (a `default` on a required prop, a source without `run`...): the component
 * still loads; `strict` turns warnings into problems.
 *
 * @example
 * ```ts
 * validateComponent({ name: "x", version: "1", props: { n: { type: "string", min: 1 } }, run() {} });
 * // { problems: [{ code: "min_max_not_integer", path: "props.n.min", message: "..." }], warnings: [] }
 * validateComponent({ name: "x", version: "1", props: { n: { type: "string", default: "a" } }, run() {} });
 * // { problems: [], warnings: [{ code: "default_on_required", path: "props.n.default", message: "..." }] }
 * ```
 */
export function validateComponent(
  definition: unknown,
  options: ValidateComponentOptions = {},
): ComponentCheck {
  const found = new Findings();
  if (!isObject(definition)) {
    found.error("invalid_type", "", "a component is an object (the module's default export)");
    return { problems: found.problems, warnings: [] };
  }
  const def = definition;
  for (const field of ["name", "version"]) {
    if (def[field] === undefined || def[field] === "") found.error("required", field, `${field} is required`);
    else checkType(def[field], "string", field, found);
  }
  checkType(def.key, "string", "key", found);
  checkType(def.description, "string", "description", found);

  let kind: "source" | "action" = "source";
  if (def.type === "action") kind = "action";
  else if (def.type !== undefined && def.type !== "source") {
    found.error(
      "invalid_value",
      "type",
      `type must be "action", "source" or absent, got ${JSON.stringify(def.type)}`,
    );
  }
  if (def.run === undefined) {
    // Pipedream's schedule sources are only a timer prop: the platform emits the timer event.
    if (kind === "source")
      found.warn("required", "run", "a source without run emits each trigger event as it comes");
    else found.error("required", "run", "run is required");
  } else if (!isFunctionLike(def.run)) found.error("invalid_type", "run", "run must be a method");
  if (def.additionalProps !== undefined && !isFunctionLike(def.additionalProps)) {
    found.error("invalid_type", "additionalProps", "additionalProps must be a method");
  }

  if (def.hooks !== undefined) {
    if (kind === "action") found.error("source_only", "hooks", "hooks are only available in sources");
    if (!isObject(def.hooks)) found.error("invalid_type", "hooks", "hooks must be an object");
    else {
      for (const [name, hook] of Object.entries(def.hooks)) {
        if (!HOOKS.includes(name)) {
          found.error(
            "invalid_value",
            joinPath("hooks", name),
            `unknown hook; hooks are ${HOOKS.join(", ")}`,
          );
        } else if (!isFunctionLike(hook))
          found.error("invalid_type", joinPath("hooks", name), "a hook must be a function");
      }
    }
  }
  if (def.dedupe !== undefined && kind === "action") {
    // Real Pipedream actions declare it; Pipedream ignores it there, and so do we.
    found.warn("source_only", "dedupe", "dedupe applies to sources only: this action's dedupe is ignored");
  } else if (def.dedupe !== undefined) {
    if (!DEDUPE_STRATEGIES.includes(def.dedupe as never)) {
      found.error("invalid_value", "dedupe", `dedupe must be one of ${DEDUPE_STRATEGIES.join(", ")}`);
    }
  }
  checkMethods(def.methods, "methods", found);
  if (def.props !== undefined) {
    if (!isObject(def.props)) found.error("invalid_type", "props", "props must be an object");
    else for (const [name, prop] of Object.entries(def.props)) checkProp(name, prop, kind, found);
  }
  if (options.registry) checkRegistry(def, options.registry === true ? "public" : options.registry, found);
  if (options.strict) return { problems: [...found.problems, ...found.warnings], warnings: [] };
  return { problems: found.problems, warnings: found.warnings };
}

/**
 * Validates a component definition and, when valid, returns its serializable
 * {@link ComponentDescription}: props with propDefinitions resolved, names of methods and hooks,
 * and the warnings (also in `description.warnings` when there are any).
 *
 * @example
 * ```ts
 * const { description, problems } = describeComponent({ name: "Hi", version: "0.1", run() {} });
 * description?.type; // "source"
 * ```
 */
export function describeComponent(
  definition: unknown,
  options: ValidateComponentOptions = {},
): { description?: ComponentDescription; problems: Problem[]; warnings: Problem[] } {
  const { problems, warnings } = validateComponent(definition, options);
  if (problems.length > 0) return { problems, warnings };
  const def = definition as Record<string, unknown>;
  const props = isObject(def.props) ? def.props : {};
  const appProps = new Map<unknown, string>();
  const apps = new Map<string, string>();
  for (const [name, prop] of Object.entries(props)) {
    if (isObject(prop) && prop.type === "app") {
      appProps.set(prop, name);
      apps.set(String(prop.app), name);
    }
  }
  const description: ComponentDescription = {
    type: def.type === "action" ? "action" : "source",
    name: def.name as string,
    version: def.version as string,
    props: Object.fromEntries(
      Object.entries(props).map(([name, prop]) => [name, describeProp(name, prop, appProps, apps)]),
    ),
    methods: isObject(def.methods) ? Object.keys(def.methods) : [],
    hooks: isObject(def.hooks) ? Object.keys(def.hooks) : [],
    hasAdditionalProps: isFunctionLike(def.additionalProps),
  };
  if (typeof def.key === "string") description.key = def.key;
  if (typeof def.description === "string") description.description = def.description;
  if (typeof def.dedupe === "string" && description.type === "source")
    description.dedupe = def.dedupe as ComponentDescription["dedupe"];
  if (warnings.length > 0) description.warnings = warnings;
  return { description, problems, warnings };
}
