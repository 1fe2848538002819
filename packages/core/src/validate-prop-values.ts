import type { PropDescription } from "./description.js";
import type { Problem } from "./errors.js";
import { joinPath, problem } from "./problems.js";
import { propValueType } from "./schemas.js";
import { validateTimerConfig } from "./timers.js";

/** SPEC's limit on a prop value entered as raw static text, in bytes. */
export const MAX_STATIC_PROP_BYTES = 64 * 1024;

/** A value that is an expression referencing earlier steps, such as `{{steps.trigger.event.id}}`. */
export function isStepExpression(value: unknown): value is string {
  return typeof value === "string" && /^\s*\{\{[\s\S]*\}\}\s*$/.test(value);
}

const encoder = new TextEncoder();

function byteLength(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text === undefined ? 0 : encoder.encode(text).byteLength;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Coerces one scalar to `base`, or reports why it cannot. */
function coerceScalar(base: string, value: unknown, path: string): { value?: unknown; problem?: Problem } {
  switch (base) {
    case "string":
      if (typeof value === "string") return { value };
      if (typeof value === "number" || typeof value === "boolean") return { value: String(value) };
      return { problem: problem("invalid_type", path, "must be a string") };
    case "integer":
      if (typeof value === "number" && Number.isSafeInteger(value)) return { value };
      if (typeof value === "string" && /^\s*-?\d+\s*$/.test(value) && Number.isSafeInteger(Number(value))) {
        return { value: Number(value) };
      }
      return { problem: problem("invalid_type", path, "must be an integer") };
    case "boolean":
      if (typeof value === "boolean") return { value };
      if (value === "true" || value === "false") return { value: value === "true" };
      return { problem: problem("invalid_type", path, "must be a boolean") };
    case "object": {
      const parsed = typeof value === "string" ? parseJson(value) : value;
      if (isPlainObject(parsed)) return { value: parsed };
      return { problem: problem("invalid_type", path, "must be an object") };
    }
    default:
      return { value };
  }
}

function optionValues(options: unknown[]): unknown[] {
  return options.map((option) => (isPlainObject(option) && "value" in option ? option.value : option));
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b) || String(a) === String(b);
}

/**
 * Checks and coerces one value of a user-input prop. Used by {@link validatePropValues} and by
 * `validateComponent` for defaults. @internal
 */
export function checkPropValue(
  prop: PropDescription,
  raw: unknown,
  path: string,
  flags: { options?: boolean } = {},
): { value?: unknown; problems: Problem[] } {
  if (isStepExpression(raw)) return { value: raw, problems: [] }; // checked at run time, not here
  if (byteLength(raw) > MAX_STATIC_PROP_BYTES) {
    return {
      problems: [
        problem("too_large", path, `a static value is limited to 64KB (got ${byteLength(raw)} bytes)`),
      ],
    };
  }
  const array = prop.type.endsWith("[]");
  // What the type takes: `$.discord.channel` a string, `http_request` an object...
  const base = propValueType(prop.type) ?? (array ? prop.type.slice(0, -2) : prop.type);
  const problems: Problem[] = [];
  let value: unknown;
  if (array) {
    let items: unknown = typeof raw === "string" && raw.trim().startsWith("[") ? parseJson(raw) : raw;
    if (!Array.isArray(items)) items = [items];
    value = (items as unknown[]).map((item, index) => {
      if (isStepExpression(item)) return item;
      const result = coerceScalar(base, item, joinPath(path, index));
      if (result.problem) problems.push(result.problem);
      return result.value;
    });
  } else {
    const result = coerceScalar(base, raw, path);
    if (result.problem) problems.push(result.problem);
    value = result.value;
  }
  if (problems.length > 0) return { problems };

  const items = array ? (value as unknown[]) : [value];
  items.forEach((item, index) => {
    const where = array ? joinPath(path, index) : path;
    if (typeof item !== "number" || base !== "integer") return;
    if (typeof prop.min === "number" && item < prop.min)
      problems.push(problem("below_min", where, `must be at least ${prop.min}`));
    if (typeof prop.max === "number" && item > prop.max)
      problems.push(problem("above_max", where, `must be at most ${prop.max}`));
  });
  if (flags.options !== false && Array.isArray(prop.options) && !prop.dynamicOptions) {
    const allowed = optionValues(prop.options);
    items.forEach((item, index) => {
      if (isStepExpression(item) || allowed.some((option) => sameValue(option, item))) return;
      problems.push(
        problem(
          "not_in_options",
          array ? joinPath(path, index) : path,
          `${JSON.stringify(item)} is not one of the options`,
        ),
      );
    });
  }
  return problems.length > 0 ? { problems } : { value, problems };
}

/**
 * A `data_store` prop's value: the store's name or `ds_` id, also given as `{ name }` or `{ id }`
 * (an object is taken by its `id`, else its `name`).
 */
function dataStoreRef(given: unknown): unknown {
  if (!isPlainObject(given)) return given;
  if (typeof given.id === "string") return given.id;
  return typeof given.name === "string" ? given.name : given;
}

/** The result of {@link validatePropValues}. */
export interface PropValuesResult {
  /** The coerced values with defaults applied (only meaningful when `problems` is empty). */
  values: Record<string, unknown>;
  problems: Problem[];
}

/**
 * Checks configured prop values against a component's prop descriptions and returns the coerced
 * values: types and array forms (`"5"` becomes `5` for an integer, a single value becomes a
 * one-item array), integer `min`/`max`, membership in static options (plain values or
 * `{ label, value }`), required props, defaults applied to missing optional props, and the 64KB
 * limit on raw static text (step expressions such as `{{steps.x.y}}` are exempt and pass through).
 * Interface props: a timer takes `{ intervalSeconds }` or `{ cron, timezone? }` (else its
 * `default`); HTTP, db, apphook, `dir` and `alert` props take no value; app props pass their value
 * (such as `{ authProvisionId }`) through for the caller to resolve. The types SPEC does not list
 * take the value of their `propValueType` (`$.discord.channel` a string, `http_request` an object).
 *
 * @example
 * ```ts
 * validatePropValues({ count: { type: "integer", min: 1 } }, { count: "3" });
 * // { values: { count: 3 }, problems: [] }
 * ```
 */
export function validatePropValues(
  props: Record<string, PropDescription>,
  values: Record<string, unknown> | undefined,
): PropValuesResult {
  const input = values ?? {};
  const out: Record<string, unknown> = {};
  const problems: Problem[] = [];
  for (const name of Object.keys(input)) {
    if (!Object.hasOwn(props, name))
      problems.push(problem("unknown_prop", name, `the component has no prop "${name}"`));
  }
  for (const [name, prop] of Object.entries(props)) {
    const given = input[name];
    switch (propValueType(prop.type)) {
      case "none": // wired by the platform (http, db, apphook, dir) or display only (alert)
        continue;
      case "timer": {
        const timer = given ?? prop.default;
        if (timer === undefined) {
          problems.push(
            problem("required", name, "the timer needs { intervalSeconds } or { cron } (it has no default)"),
          );
        } else {
          const found = validateTimerConfig(timer, name);
          if (found.length > 0) problems.push(...found);
          else out[name] = timer;
        }
        continue;
      }
      case "app":
        if (given !== undefined) out[name] = given;
        continue;
    }
    if (given === undefined || given === null || given === "") {
      if (prop.default !== undefined) out[name] = prop.default;
      else if (prop.optional !== true)
        problems.push(problem("required", name, `"${prop.label ?? name}" is required`));
      continue;
    }
    const checked = checkPropValue(prop, prop.type === "data_store" ? dataStoreRef(given) : given, name);
    if (checked.problems.length > 0) problems.push(...checked.problems);
    else out[name] = checked.value;
  }
  return { values: out, problems };
}
