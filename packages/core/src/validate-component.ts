import { DEDUPE_STRATEGIES } from "./dedupe.js";
import type { ComponentDescription, PropDescription } from "./description.js";
import type { Problem } from "./errors.js";
import { joinPath, problem } from "./problems.js";
import { type BasePropType, isFunctionLike, PROP_TYPES } from "./schemas.js";
import { slugify } from "./slug.js";
import { validateTimerConfig } from "./timers.js";
import { checkPropValue } from "./validate-prop-values.js";

/** Options of {@link validateComponent}. */
export interface ValidateComponentOptions {
  /** Also apply the rules for publishing to the public registry (key pattern, semantic version). */
  registry?: boolean;
}

const HOOKS = ["deploy", "activate", "deactivate"];
const INTERFACE_TYPES = new Set(["$.interface.http", "$.interface.timer", "$.service.db"]);
/** Semantic versioning 2.0.0, from semver.org. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !isFunctionLike(value);
}

/** Splits `string[]` into `{ base: "string", array: true }`. */
export function parsePropType(type: string): { base: string; array: boolean } {
  return type.endsWith("[]") ? { base: type.slice(0, -2), array: true } : { base: type, array: false };
}

/** A prop in object form: the `"$.service.db"` string shorthand becomes `{ type: "$.service.db" }`. */
function normalizeProp(prop: unknown): Obj | undefined {
  if (typeof prop === "string") return { type: prop };
  return isObject(prop) ? prop : undefined;
}

/**
 * Resolves a `propDefinition: [app, name, inputValues]` into the app's prop definition with the
 * prop's own fields on top. Returns undefined (and reports) when it cannot.
 */
function resolvePropDefinition(prop: Obj, path: string, problems: Problem[]): Obj | undefined {
  const def = prop.propDefinition;
  if (def === undefined) return prop;
  const where = joinPath(path, "propDefinition");
  if (!Array.isArray(def) || def.length < 2 || def.length > 3) {
    problems.push(
      problem(
        "invalid_prop_definition",
        where,
        "propDefinition must be [app, propDefinitionName, inputValues?]",
      ),
    );
    return undefined;
  }
  const [app, name, inputValues] = def as [unknown, unknown, unknown];
  if (!isObject(app)) {
    problems.push(
      problem("invalid_prop_definition", joinPath(where, 0), "the first element must be an app object"),
    );
    return undefined;
  }
  if (typeof name !== "string") {
    problems.push(
      problem(
        "invalid_prop_definition",
        joinPath(where, 1),
        "the second element must be a prop definition name",
      ),
    );
    return undefined;
  }
  const definitions = isObject(app.propDefinitions) ? app.propDefinitions : {};
  const base = normalizeProp(definitions[name]);
  if (!base) {
    problems.push(
      problem(
        "invalid_prop_definition",
        joinPath(where, 1),
        `app "${String(app.app)}" has no prop definition "${name}"`,
      ),
    );
    return undefined;
  }
  if (inputValues !== undefined && !isObject(inputValues) && !isFunctionLike(inputValues)) {
    problems.push(
      problem("invalid_prop_definition", joinPath(where, 2), "inputValues must be an object or a function"),
    );
  }
  const { propDefinition: _omit, ...own } = prop;
  return { ...base, ...own };
}

function checkType(value: unknown, kind: "string" | "boolean", path: string, problems: Problem[]): void {
  if (value !== undefined && typeof value !== kind) {
    problems.push(problem("invalid_type", path, `must be a ${kind}`));
  }
}

function checkOptions(options: unknown, path: string, problems: Problem[]): void {
  if (options === undefined || isFunctionLike(options)) return;
  if (!Array.isArray(options)) {
    problems.push(problem("invalid_type", path, "options must be an array or a method"));
    return;
  }
  options.forEach((option, index) => {
    if (isObject(option) && (typeof option.label !== "string" || !("value" in option))) {
      problems.push(
        problem("invalid_value", joinPath(path, index), "an option object needs a string label and a value"),
      );
    } else if (!isObject(option) && !["string", "number", "boolean"].includes(typeof option)) {
      problems.push(
        problem("invalid_type", joinPath(path, index), "an option is a value or { label, value }"),
      );
    }
  });
}

function checkAppProp(prop: Obj, path: string, problems: Problem[]): void {
  if (prop.app === undefined)
    problems.push(problem("required", joinPath(path, "app"), "an app prop needs its app name slug"));
  else checkType(prop.app, "string", joinPath(path, "app"), problems);
  if (prop.propDefinitions !== undefined && !isObject(prop.propDefinitions)) {
    problems.push(
      problem("invalid_type", joinPath(path, "propDefinitions"), "propDefinitions must be an object"),
    );
  }
  checkMethods(prop.methods, joinPath(path, "methods"), problems);
}

function checkMethods(methods: unknown, path: string, problems: Problem[]): void {
  if (methods === undefined) return;
  if (!isObject(methods)) {
    problems.push(problem("invalid_type", path, "methods must be an object of functions"));
    return;
  }
  for (const [name, method] of Object.entries(methods)) {
    if (!isFunctionLike(method))
      problems.push(problem("invalid_type", joinPath(path, name), "a method must be a function"));
  }
}

function checkProp(name: string, raw: unknown, kind: "source" | "action", problems: Problem[]): void {
  const path = joinPath("props", name);
  const normalized = normalizeProp(raw);
  if (!normalized) {
    problems.push(
      problem("invalid_type", path, 'a prop is an object (or a type string such as "$.service.db")'),
    );
    return;
  }
  const prop = resolvePropDefinition(normalized, path, problems);
  if (!prop) return;
  if (prop.type === undefined) {
    problems.push(problem("required", joinPath(path, "type"), "a prop needs a type"));
    return;
  }
  if (typeof prop.type !== "string") {
    problems.push(problem("invalid_type", joinPath(path, "type"), "type must be a string"));
    return;
  }
  const { base, array } = parsePropType(prop.type);
  const info = (PROP_TYPES as Record<string, (typeof PROP_TYPES)[BasePropType]>)[base];
  if (!info) {
    problems.push(problem("unknown_prop_type", joinPath(path, "type"), `"${prop.type}" is not a prop type`));
    return;
  }
  if (array && !info.array) {
    problems.push(
      problem(
        "array_not_supported",
        joinPath(path, "type"),
        `"${base}" has no array form: only boolean, integer and string do`,
      ),
    );
  }
  if (kind === "action" && !info.actions) {
    problems.push(
      problem("source_only", joinPath(path, "type"), `"${base}" props are only available in sources`),
    );
  }
  if (kind === "source" && !info.sources) {
    problems.push(
      problem("action_only", joinPath(path, "type"), `"${base}" props are only available in actions`),
    );
  }

  if (base === "app") {
    checkAppProp(prop, path, problems);
    return;
  }
  if (base === "$.interface.timer") {
    if (prop.default !== undefined)
      problems.push(...validateTimerConfig(prop.default, joinPath(path, "default")));
    return;
  }
  if (base === "$.interface.http") {
    checkType(prop.customResponse, "boolean", joinPath(path, "customResponse"), problems);
    return;
  }
  if (INTERFACE_TYPES.has(base) || base === "alert") return;

  checkType(prop.label, "string", joinPath(path, "label"), problems);
  checkType(prop.description, "string", joinPath(path, "description"), problems);
  for (const flag of ["optional", "useQuery", "secret", "reloadProps"]) {
    checkType(prop[flag], "boolean", joinPath(path, flag), problems);
  }
  checkOptions(prop.options, joinPath(path, "options"), problems);
  if (prop.secret !== undefined && prop.type !== "string") {
    problems.push(
      problem("secret_not_string", joinPath(path, "secret"), "secret is only allowed on string props"),
    );
  }
  for (const bound of ["min", "max"] as const) {
    if (prop[bound] === undefined) continue;
    if (base !== "integer") {
      problems.push(
        problem("min_max_not_integer", joinPath(path, bound), `${bound} is only allowed on integer props`),
      );
    } else if (!Number.isSafeInteger(prop[bound])) {
      problems.push(problem("invalid_type", joinPath(path, bound), `${bound} must be an integer`));
    }
  }
  if (typeof prop.min === "number" && typeof prop.max === "number" && prop.min > prop.max) {
    problems.push(problem("min_greater_than_max", joinPath(path, "min"), "min is greater than max"));
  }
  if (prop.default !== undefined) {
    if (prop.optional !== true) {
      problems.push(
        problem(
          "default_on_required",
          joinPath(path, "default"),
          "default is only allowed on optional props",
        ),
      );
    } else {
      const checked = checkPropValue(prop as PropDescription, prop.default, joinPath(path, "default"), {
        options: false,
      });
      problems.push(...checked.problems);
    }
  }
}

/**
 * Checks a component definition against every rule of SPEC's component, prop and prop-type tables.
 * Accepts a live definition (functions) or its serialized form, where each function is
 * `{ "$fn": true }`. Returns every problem found, with a stable code and a dotted path; an empty
 * array means the definition is valid.
 *
 * @example
 * ```ts
 * validateComponent({ name: "x", version: "1", props: { n: { type: "string", min: 1 } }, run() {} });
 * // [{ code: "min_max_not_integer", path: "props.n.min", message: "min is only allowed on integer props" }]
 * ```
 */
export function validateComponent(definition: unknown, options: ValidateComponentOptions = {}): Problem[] {
  const problems: Problem[] = [];
  if (!isObject(definition)) {
    return [problem("invalid_type", "", "a component is an object (the module's default export)")];
  }
  const def = definition;
  for (const field of ["name", "version"]) {
    if (def[field] === undefined || def[field] === "")
      problems.push(problem("required", field, `${field} is required`));
    else checkType(def[field], "string", field, problems);
  }
  checkType(def.key, "string", "key", problems);
  checkType(def.description, "string", "description", problems);
  if (def.run === undefined) problems.push(problem("required", "run", "run is required"));
  else if (!isFunctionLike(def.run)) problems.push(problem("invalid_type", "run", "run must be a method"));
  if (def.additionalProps !== undefined && !isFunctionLike(def.additionalProps)) {
    problems.push(problem("invalid_type", "additionalProps", "additionalProps must be a method"));
  }

  let kind: "source" | "action" = "source";
  if (def.type === "action") kind = "action";
  else if (def.type !== undefined && def.type !== "source") {
    problems.push(
      problem(
        "invalid_value",
        "type",
        `type must be "action", "source" or absent, got ${JSON.stringify(def.type)}`,
      ),
    );
  }

  if (def.hooks !== undefined) {
    if (kind === "action")
      problems.push(problem("source_only", "hooks", "hooks are only available in sources"));
    if (!isObject(def.hooks)) problems.push(problem("invalid_type", "hooks", "hooks must be an object"));
    else {
      for (const [name, hook] of Object.entries(def.hooks)) {
        if (!HOOKS.includes(name)) {
          problems.push(
            problem("invalid_value", joinPath("hooks", name), `unknown hook; hooks are ${HOOKS.join(", ")}`),
          );
        } else if (!isFunctionLike(hook))
          problems.push(problem("invalid_type", joinPath("hooks", name), "a hook must be a function"));
      }
    }
  }
  if (def.dedupe !== undefined) {
    if (kind === "action")
      problems.push(problem("source_only", "dedupe", "dedupe is only available in sources"));
    if (!DEDUPE_STRATEGIES.includes(def.dedupe as never)) {
      problems.push(
        problem("invalid_value", "dedupe", `dedupe must be one of ${DEDUPE_STRATEGIES.join(", ")}`),
      );
    }
  }
  checkMethods(def.methods, "methods", problems);
  if (def.props !== undefined) {
    if (!isObject(def.props)) problems.push(problem("invalid_type", "props", "props must be an object"));
    else for (const [name, prop] of Object.entries(def.props)) checkProp(name, prop, kind, problems);
  }
  if (options.registry) checkRegistry(def, problems);
  return problems;
}

function appSlugs(def: Obj): string[] {
  const props = isObject(def.props) ? def.props : {};
  return Object.values(props).flatMap((prop) =>
    isObject(prop) && prop.type === "app" && typeof prop.app === "string" ? [prop.app] : [],
  );
}

function checkRegistry(def: Obj, problems: Problem[]): void {
  if (typeof def.version === "string" && !SEMVER.test(def.version)) {
    problems.push(
      problem(
        "invalid_version",
        "version",
        `registry components need a semantic version (1.2.3), got "${def.version}"`,
      ),
    );
  }
  if (def.key === undefined) {
    problems.push(
      problem("required", "key", "registry components need a key <app_slug>-<slugified-component-name>"),
    );
    return;
  }
  if (typeof def.key !== "string" || typeof def.name !== "string") return;
  const nameSlug = slugify(def.name);
  const apps = appSlugs(def);
  const expected = apps.map((app) => `${app}-${nameSlug}`);
  const ok =
    apps.length > 0
      ? expected.includes(def.key)
      : /^[a-z0-9_]+-/.test(def.key) && def.key.endsWith(`-${nameSlug}`);
  if (!ok) {
    const hint = expected.length > 0 ? expected.join(" or ") : `<app_slug>-${nameSlug}`;
    problems.push(problem("invalid_registry_key", "key", `registry key must be ${hint}, got "${def.key}"`));
  }
}

function describeProp(
  name: string,
  raw: unknown,
  appProps: Map<unknown, string>,
  apps: Map<string, string>,
): PropDescription {
  const normalized = normalizeProp(raw) as Obj;
  const prop = resolvePropDefinition(normalized, "", []) as Obj;
  const out: PropDescription = { type: prop.type as string };
  for (const [field, value] of Object.entries(prop)) {
    if (field === "type" || field === "methods" || field === "propDefinitions" || isFunctionLike(value))
      continue;
    if (value !== undefined) out[field] = value;
  }
  if (isFunctionLike(prop.options)) {
    delete out.options;
    out.dynamicOptions = true;
  }
  if (Array.isArray(normalized.propDefinition)) {
    const [app, definition, inputValues] = normalized.propDefinition as [Obj, string, unknown];
    const appProp = appProps.get(app) ?? apps.get(String(app.app)) ?? String(app.app);
    out.propDefinition = { appProp, name: definition, hasInputValues: inputValues !== undefined };
  }
  if (prop.type === "app") out.label ??= (prop.app as string) ?? name;
  return out;
}

/**
 * Validates a component definition and, when valid, returns its serializable
 * {@link ComponentDescription}: props with propDefinitions resolved, names of methods and hooks.
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
): { description?: ComponentDescription; problems: Problem[] } {
  const problems = validateComponent(definition, options);
  if (problems.length > 0) return { problems };
  const def = definition as Obj;
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
  if (typeof def.dedupe === "string") description.dedupe = def.dedupe as ComponentDescription["dedupe"];
  return { description, problems };
}
