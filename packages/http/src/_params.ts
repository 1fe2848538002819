/**
 * A request's parameters: path ids decoded, the query string and the JSON body merged, text the
 * stores cannot hold refused, and the route's TypeBox schema checked with messages a person can act
 * on (a thin layer over TypeBox's errors: the field, the allowed values, the limit).
 */
import { HooklineError, type Problem } from "@hookline/core";
import type { TSchema } from "typebox";
import Value from "typebox/value";

/** Decodes `{name}` path segments; broken percent-encoding or NUL is a 400 naming the parameter. */
export function decodePath(names: string[], raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    const segment = raw[i] ?? "";
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw new HooklineError(
        "bad_request",
        `${name} is not valid percent-encoding: "${segment.slice(0, 100)}" (encode it with encodeURIComponent)`,
        {
          problems: [{ code: "invalid_value", path: name, message: `${name} is not valid percent-encoding` }],
        },
      );
    }
    const bad = unstorable(decoded);
    if (bad) {
      throw new HooklineError("bad_request", `${name} ${bad}`, {
        problems: [{ code: "invalid_value", path: name, message: `${name} ${bad}` }],
      });
    }
    out[name] = decoded;
  });
  return out;
}

/**
 * Sets `key` as an own property, whatever its name: assigning `__proto__` would change the
 * object's prototype instead (a query string or a JSON body can name any key).
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The query string as an object: a repeated key becomes an array. */
export function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    setOwn(out, key, all.length === 1 ? (all[0] as string) : all);
  }
  return out;
}

/** Parses a JSON object body (empty: `{}`). */
export function parseJsonBody(bytes: Uint8Array): Record<string, unknown> {
  const text = Buffer.from(bytes).toString("utf8").trim();
  if (text === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HooklineError("invalid_json", "The body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new HooklineError("invalid_json", "The body must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}

/**
 * How a value compares between the query and the body: a query value is text (or a list of
 * texts), a body value any JSON. Text, numbers and booleans compare as their text (`?limit=5`
 * agrees with `{"limit": 5}`); anything else as its JSON. Never calls the value's own methods: a
 * JSON body can hold an object whose `toString` is not a function.
 */
function comparable(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.join("\u0000");
  return `\u0000json:${JSON.stringify(value)}`;
}

/** Merges query and JSON body fields; the same field given differently in both is a 400. */
export function mergeParams(
  query: Record<string, unknown>,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...body };
  for (const [key, value] of Object.entries(query)) {
    if (Object.hasOwn(body, key)) {
      if (comparable(body[key]) !== comparable(value)) {
        throw new HooklineError(
          "conflicting_parameter",
          `${label(key)} is given differently in the query and the body`,
        );
      }
    } else setOwn(merged, key, value);
  }
  return merged;
}

// NUL (which PostgreSQL text cannot hold) and UTF-16 surrogates without their pair (which UTF-8
// cannot encode): the stores would fail or change them, so they are refused at the edge.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this looks for.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored, or undefined. */
function unstorable(text: string): string | undefined {
  return UNSTORABLE.test(text) ? "must not contain NUL (U+0000) or an unpaired UTF-16 surrogate" : undefined;
}

/** The schema of the field at `path` (dotted) inside an object schema, or undefined. */
function fieldSchema(schema: TSchema | undefined, path: string): Record<string, unknown> | undefined {
  let node = schema as Record<string, unknown> | undefined;
  for (const part of path.split(".")) {
    const properties = node?.properties as Record<string, Record<string, unknown>> | undefined;
    const items = node?.items as Record<string, unknown> | undefined;
    node =
      properties && Object.hasOwn(properties, part)
        ? properties[part]
        : /^\d+$/.test(part)
          ? items
          : undefined;
    if (!node) return undefined;
  }
  return node;
}

/** Whether a schema is a set of values (a constant, an enum, a union of literals). */
function isSet(schema: Record<string, unknown>): boolean {
  if ("const" in schema || Array.isArray(schema.enum)) return true;
  const members = schema.anyOf as Record<string, unknown>[] | undefined;
  return Array.isArray(members) && members.every((m) => "const" in m);
}

/**
 * Every string (and object key) in `value` that cannot be stored, as problems. A field that takes
 * one of a set of values names them too, so the message says what to send instead.
 */
function textProblems(value: unknown, path: string, out: Problem[], schema?: TSchema, depth = 0): void {
  if (out.length >= 8 || depth > 32) return;
  if (typeof value === "string") {
    const why = unstorable(value);
    if (!why) return;
    const field = path ? fieldSchema(schema, path) : undefined;
    const message =
      field && isSet(field)
        ? `${label(path)} must be ${accepted(field)}; it ${why}`
        : `${label(path)} ${why}`;
    out.push({ code: "invalid_value", path, message });
    return;
  }
  if (value === null || typeof value !== "object") return;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const keyWhy = unstorable(key);
    if (keyWhy) {
      out.push({
        code: "invalid_value",
        path: at,
        message: `a key of ${label(path || "the body")} ${keyWhy}`,
      });
    } else textProblems(item, at, out, schema, depth + 1);
  }
}

/** A field name as shown in a message (a hostile one quoted and cut short). */
function label(path: string): string {
  return /^[\w.$-]{1,100}$/.test(path) ? path : JSON.stringify(path.slice(0, 60));
}

/** The sub-schema a JSON pointer such as `#/properties/status/anyOf/0` names. */
function schemaAt(root: TSchema, pointer: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const part of pointer.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node !== null && typeof node === "object" ? (node as Record<string, unknown>) : undefined;
}

const TYPE_NAMES: Record<string, string> = {
  integer: "an integer",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

/** What a schema accepts, in words: `one of "a", "b"`, `an integer`, `an integer or a string`. */
function accepted(schema: Record<string, unknown>): string {
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  const members = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (Array.isArray(members)) {
    if (members.every((m) => "const" in m)) {
      return `one of ${members.map((m) => JSON.stringify(m.const)).join(", ")}`;
    }
    return [...new Set(members.map(accepted))].join(" or ");
  }
  return TYPE_NAMES[String(schema.type)] ?? "a valid value";
}

/** What the value was, briefly. */
function got(value: unknown): string {
  if (value === undefined) return "";
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return `; got ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

/** One TypeBox error as a problem that names the field, the allowed values or the limit. */
function problemOf(
  error: ReturnType<typeof Value.Errors>[number],
  schema: TSchema,
  value: Record<string, unknown>,
): Problem[] {
  const path = error.instancePath.replace(/^\//, "").split("/").filter(Boolean).join(".");
  const field = label(path);
  const params = error.params as Record<string, unknown>;
  const at = schemaAt(schema, error.schemaPath) ?? {};
  const actual = path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], value);
  const hint = typeof at["x-error"] === "string" ? (at["x-error"] as string) : undefined;
  switch (error.keyword) {
    case "required":
      return ((params.requiredProperties as string[]) ?? []).map((name) => {
        const p = path ? `${path}.${name}` : name;
        return { code: "required", path: p, message: `${label(p)} is required` };
      });
    case "type":
    case "anyOf":
    case "oneOf":
    case "const":
    case "enum":
      return [
        {
          code: error.keyword === "type" ? "invalid_type" : "invalid_value",
          path,
          message: `${field} must be ${hint ?? accepted(at)}${got(actual)}`,
        },
      ];
    case "minimum":
    case "exclusiveMinimum":
      return [
        { code: "invalid_value", path, message: `${field} must be at least ${params.limit}${got(actual)}` },
      ];
    case "maximum":
    case "exclusiveMaximum":
      return [
        { code: "invalid_value", path, message: `${field} must be at most ${params.limit}${got(actual)}` },
      ];
    case "minLength":
      return [
        {
          code: "invalid_value",
          path,
          message:
            params.limit === 1
              ? `${field} must not be empty`
              : `${field} must be at least ${params.limit} characters`,
        },
      ];
    case "maxLength":
      return [
        { code: "invalid_value", path, message: `${field} must be at most ${params.limit} characters` },
      ];
    case "minItems":
    case "maxItems":
      return [
        {
          code: "invalid_value",
          path,
          message: `${field} must have ${error.keyword === "minItems" ? "at least" : "at most"} ${params.limit} items`,
        },
      ];
    case "pattern":
      return [
        {
          code: "invalid_value",
          path,
          message: `${field} ${hint ?? `must match ${String(params.pattern)}`}${got(actual)}`,
        },
      ];
    default:
      return [{ code: "invalid_value", path, message: `${field} ${error.message}` }];
  }
}

/**
 * Checks the merged parameters against `schema` (query text converted to the schema's types) and
 * returns them; otherwise throws `validation_failed` with one problem per field.
 *
 * @example
 * ```ts
 * validateParams(Type.Object({ url: Type.String() }), {});
 * // throws validation_failed "Invalid parameters: url is required"
 * ```
 */
export function validateParams(
  schema: TSchema | undefined,
  raw: Record<string, unknown>,
): Record<string, unknown> {
  const problems: Problem[] = [];
  textProblems(raw, "", problems, schema);
  let value = raw;
  if (problems.length === 0 && schema) {
    value = Value.Convert(schema, raw) as Record<string, unknown>;
    if (Value.Check(schema, value)) return value;
    const seen = new Set<string>();
    const errors = [...Value.Errors(schema, value)];
    // A union reports each member's failure and then its own: keep the union's, once per field.
    // TypeBox stops listing after a few errors, so the union's own may be cut off: a member's error
    // about the member itself is reported as its union's.
    const unions = new Set(errors.filter((e) => e.keyword === "anyOf").map((e) => e.instancePath));
    for (const raw of errors) {
      if (unions.has(raw.instancePath) && raw.keyword !== "anyOf") continue;
      const member = /^(.*)\/(anyOf|oneOf)\/\d+$/.exec(raw.schemaPath);
      const error = member
        ? ({ ...raw, keyword: member[2], schemaPath: member[1] } as unknown as typeof raw)
        : raw;
      for (const p of problemOf(error, schema, value)) {
        if (seen.has(p.path)) continue;
        seen.add(p.path);
        problems.push(p);
      }
    }
  }
  if (problems.length === 0) return value;
  const summary = problems.map((p) => p.message).join("; ");
  throw new HooklineError("validation_failed", `Invalid parameters: ${summary}`, { problems });
}
