/**
 * The rules of one prop of a component definition (SPEC's user input prop, prop type, interface
 * and app prop tables, plus the prop types SPEC does not list but real components use), and its
 * serializable description. `validateComponent` and `describeComponent` call these per prop.
 */
import type { PropDescription } from "./description.js";
import { Findings, joinPath } from "./problems.js";
import {
  APP_SPECIFIC_PROP_TYPE,
  type BasePropType,
  isFunctionLike,
  PROP_TYPES,
  type PropValueType,
} from "./schemas.js";
import { validateTimerConfig } from "./timers.js";
import { checkPropValue } from "./validate-prop-values.js";

/** A definition's object. @internal */
export type Obj = Record<string, unknown>;

/** True for a plain object (not an array, not a function or its serialized marker). @internal */
export function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !isFunctionLike(value);
}

/** The prop types of SPEC's table; the others get a `valueType` in their description. */
const SPEC_TYPES = new Set([
  "app",
  "boolean",
  "integer",
  "string",
  "object",
  "any",
  "$.interface.http",
  "$.interface.timer",
  "$.service.db",
]);

type TypeInfo = (typeof PROP_TYPES)[BasePropType];

/**
 * Splits `string[]` into `{ base: "string", array: true }`.
 *
 * @example
 * ```ts
 * parsePropType("integer[]"); // { base: "integer", array: true }
 * ```
 */
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
function resolvePropDefinition(prop: Obj, path: string, found: Findings): Obj | undefined {
  const def = prop.propDefinition;
  if (def === undefined) return prop;
  const where = joinPath(path, "propDefinition");
  if (!Array.isArray(def) || def.length < 2 || def.length > 3) {
    found.error(
      "invalid_prop_definition",
      where,
      "propDefinition must be [app, propDefinitionName, inputValues?]",
    );
    return undefined;
  }
  const [app, name, inputValues] = def as [unknown, unknown, unknown];
  if (!isObject(app)) {
    found.error("invalid_prop_definition", joinPath(where, 0), "the first element must be an app object");
    return undefined;
  }
  if (typeof name !== "string") {
    found.error(
      "invalid_prop_definition",
      joinPath(where, 1),
      "the second element must be a prop definition name",
    );
    return undefined;
  }
  const definitions = isObject(app.propDefinitions) ? app.propDefinitions : {};
  const base = normalizeProp(definitions[name]);
  if (!base) {
    found.error(
      "invalid_prop_definition",
      joinPath(where, 1),
      `app "${String(app.app)}" has no prop definition "${name}"`,
    );
    return undefined;
  }
  if (inputValues !== undefined && !isObject(inputValues) && !isFunctionLike(inputValues)) {
    found.error("invalid_prop_definition", joinPath(where, 2), "inputValues must be an object or a function");
  }
  const { propDefinition: _omit, ...own } = prop;
  return { ...base, ...own };
}

/** Reports `value` unless it is undefined or of `kind`. @internal */
export function checkType(value: unknown, kind: "string" | "boolean", path: string, found: Findings): void {
  if (value !== undefined && typeof value !== kind) found.error("invalid_type", path, `must be a ${kind}`);
}

function checkOptions(options: unknown, path: string, found: Findings): void {
  if (options === undefined || isFunctionLike(options)) return;
  if (!Array.isArray(options)) {
    found.error("invalid_type", path, "options must be an array or a method");
    return;
  }
  options.forEach((option, index) => {
    const where = joinPath(path, index);
    if (isObject(option)) {
      if (!("value" in option)) found.error("invalid_value", where, "an option object needs a value");
      // Pipedream shows whatever the label is (a number, or the value when it is missing).
      else if (typeof option.label !== "string")
        found.warn(
          "invalid_value",
          where,
          "an option object's label should be a string; it is shown as text",
        );
    } else if (!["string", "number", "boolean"].includes(typeof option)) {
      found.error("invalid_type", where, "an option is a value or { label, value }");
    }
  });
}

/** Reports non-function entries of a `methods` object. @internal */
export function checkMethods(methods: unknown, path: string, found: Findings): void {
  if (methods === undefined) return;
  if (!isObject(methods)) {
    found.error("invalid_type", path, "methods must be an object of functions");
    return;
  }
  for (const [name, method] of Object.entries(methods)) {
    if (!isFunctionLike(method))
      found.error("invalid_type", joinPath(path, name), "a method must be a function");
  }
}

function checkAppProp(prop: Obj, path: string, found: Findings): void {
  if (prop.app === undefined)
    found.error("required", joinPath(path, "app"), "an app prop needs its app name slug");
  else checkType(prop.app, "string", joinPath(path, "app"), found);
  if (prop.propDefinitions !== undefined && !isObject(prop.propDefinitions)) {
    found.error("invalid_type", joinPath(path, "propDefinitions"), "propDefinitions must be an object");
  }
  checkMethods(prop.methods, joinPath(path, "methods"), found);
}

function checkApphook(prop: Obj, path: string, found: Findings): void {
  if (typeof prop.appProp !== "string" || prop.appProp === "") {
    found.error(
      "required",
      joinPath(path, "appProp"),
      "an apphook names the app prop whose events it receives",
    );
  }
  const names = prop.eventNames;
  if (
    names !== undefined &&
    !isFunctionLike(names) &&
    !(Array.isArray(names) && names.every((n) => typeof n === "string"))
  ) {
    found.error(
      "invalid_type",
      joinPath(path, "eventNames"),
      "eventNames is an array of strings or a method",
    );
  }
}

/**
 * The type info of a prop's base type: a known type, or an app-specific `$.<app>.<thing>` taken as
 * a string (a warning). Reports unknown types and returns undefined.
 */
function typeInfo(type: string, path: string, found: Findings): { base: string; info: TypeInfo } | undefined {
  const { base } = parsePropType(type);
  const info = (PROP_TYPES as Record<string, TypeInfo>)[base];
  if (info) return { base, info };
  if (APP_SPECIFIC_PROP_TYPE.test(type)) {
    found.warn(
      "unknown_prop_type",
      path,
      `"${type}" is an app-specific type Hookline does not know: it takes a string${type.endsWith("[]") ? " array" : ""}`,
    );
    return { base: "string", info: PROP_TYPES.string };
  }
  found.error("unknown_prop_type", path, `"${type}" is not a prop type`);
  return undefined;
}

/** Checks one prop of a definition of `kind`. @internal */
export function checkProp(name: string, raw: unknown, kind: "source" | "action", found: Findings): void {
  const path = joinPath("props", name);
  const normalized = normalizeProp(raw);
  if (!normalized) {
    found.error("invalid_type", path, 'a prop is an object (or a type string such as "$.service.db")');
    return;
  }
  const prop = resolvePropDefinition(normalized, path, found);
  if (!prop) return;
  if (prop.type === undefined) {
    found.error("required", joinPath(path, "type"), "a prop needs a type");
    return;
  }
  if (typeof prop.type !== "string") {
    found.error("invalid_type", joinPath(path, "type"), "type must be a string");
    return;
  }
  const typePath = joinPath(path, "type");
  const known = typeInfo(prop.type, typePath, found);
  if (!known) return;
  const { base, info } = known;
  if (parsePropType(prop.type).array && !info.array) {
    found.error(
      "array_not_supported",
      typePath,
      `"${base}" has no array form: only boolean, integer and string do`,
    );
  }
  if (kind === "action" && !info.actions) {
    // Real actions keep state in a db too (helper_functions' RSS actions); Pipedream runs them.
    if (base === "$.service.db")
      found.warn("source_only", typePath, "SPEC gives the db service to sources only");
    else found.error("source_only", typePath, `"${base}" props are only available in sources`);
  }
  if (kind === "source" && !info.sources) {
    found.error("action_only", typePath, `"${base}" props are only available in actions`);
  }

  switch (base) {
    case "app":
      checkAppProp(prop, path, found);
      return;
    case "$.interface.timer":
      if (prop.default !== undefined)
        found.problems.push(...validateTimerConfig(prop.default, joinPath(path, "default")));
      return;
    case "$.interface.http":
      checkType(prop.customResponse, "boolean", joinPath(path, "customResponse"), found);
      return;
    case "$.interface.apphook":
      checkApphook(prop, path, found);
      return;
    case "$.service.db":
    case "alert":
      return;
  }
  checkUserInput(prop, path, base, info.value, found);
}

/** The rules of SPEC's "properties of a user input prop" table. */
function checkUserInput(prop: Obj, path: string, base: string, value: PropValueType, found: Findings): void {
  checkType(prop.label, "string", joinPath(path, "label"), found);
  checkType(prop.description, "string", joinPath(path, "description"), found);
  for (const flag of ["optional", "useQuery", "secret", "reloadProps"]) {
    checkType(prop[flag], "boolean", joinPath(path, flag), found);
  }
  checkOptions(prop.options, joinPath(path, "options"), found);
  if (prop.secret !== undefined && prop.type !== "string") {
    found.error("secret_not_string", joinPath(path, "secret"), "secret is only allowed on string props");
  }
  for (const bound of ["min", "max"] as const) {
    if (prop[bound] === undefined) continue;
    if (base !== "integer") {
      found.error("min_max_not_integer", joinPath(path, bound), `${bound} is only allowed on integer props`);
    } else if (!Number.isSafeInteger(prop[bound])) {
      found.error("invalid_type", joinPath(path, bound), `${bound} must be an integer`);
    }
  }
  if (typeof prop.min === "number" && typeof prop.max === "number" && prop.min > prop.max) {
    found.error("min_greater_than_max", joinPath(path, "min"), "min is greater than max");
  }
  if (prop.default === undefined || value === "none") return;
  if (prop.optional !== true) {
    // SPEC allows a default only on optional props; Pipedream uses it as the initial value.
    found.warn(
      "default_on_required",
      joinPath(path, "default"),
      "default is only allowed on optional props (SPEC); it is used as the initial value",
    );
  }
  const checked = checkPropValue(prop as PropDescription, prop.default, joinPath(path, "default"), {
    options: false,
  });
  found.problems.push(...checked.problems);
}

/**
 * The serializable description of one prop: propDefinition resolved, functions left out (dynamic
 * options become `dynamicOptions: true`), and a `valueType` for types outside SPEC's table.
 * @internal
 */
export function describeProp(
  name: string,
  raw: unknown,
  appProps: Map<unknown, string>,
  apps: Map<string, string>,
): PropDescription {
  const normalized = normalizeProp(raw) as Obj;
  const prop = resolvePropDefinition(normalized, "", new Findings()) as Obj;
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
  if (prop.type === "$.interface.apphook" && isFunctionLike(prop.eventNames)) out.dynamicEventNames = true;
  if (Array.isArray(normalized.propDefinition)) {
    const [app, definition, inputValues] = normalized.propDefinition as [Obj, string, unknown];
    const appProp = appProps.get(app) ?? apps.get(String(app.app)) ?? String(app.app);
    out.propDefinition = { appProp, name: definition, hasInputValues: inputValues !== undefined };
  }
  if (prop.type === "app") out.label ??= (prop.app as string) ?? name;
  if (!SPEC_TYPES.has(parsePropType(out.type).base)) {
    const { base } = parsePropType(out.type);
    const info = (PROP_TYPES as Record<string, TypeInfo>)[base];
    out.valueType = info ? info.value : "string";
  }
  return out;
}
