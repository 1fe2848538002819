/**
 * The event filter language shared by event search (`event_summaries?filter=`) and subscription
 * filters: a Mongo-style query document over an event summary (`{id, indexed_at_ms, event,
 * metadata: {emit_id, emitter_id, name, id, summary, ts}}`). Pure: parsing, validation (each
 * problem names its path) and evaluation; stores translate the parsed tree to their own queries.
 */

import { HooklineError, type Problem } from "./errors.js";
import { eventSummary, type SummarizedEvent } from "./event-summary.js";
import { describeProblems } from "./problems.js";

/** A filter as users write it: a JSON object of dotted paths to values or operator objects. */
export type EventFilterInput = Record<string, unknown>;

/** A comparison operator of the filter language. */
export type FilterOperator =
  | "$eq"
  | "$ne"
  | "$gt"
  | "$gte"
  | "$lt"
  | "$lte"
  | "$in"
  | "$nin"
  | "$exists"
  | "$contains";

/** One condition on one path of the document. */
export interface FilterCondition {
  /** A condition. */
  kind: "condition";
  /** The path's segments (`event.items.0.sku` is `["event", "items", "0", "sku"]`). */
  path: string[];
  /** The operator. */
  op: FilterOperator;
  /** The operand: a JSON value (an array for `$in`/`$nin`, a boolean for `$exists`). */
  value: unknown;
}

/** A parsed filter: conditions combined with `$and`, `$or` and `$not`. */
export type FilterNode =
  | FilterCondition
  | { kind: "and"; nodes: FilterNode[] }
  | { kind: "or"; nodes: FilterNode[] }
  | { kind: "not"; node: FilterNode };

const OPERATORS = new Set<string>([
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$in",
  "$nin",
  "$exists",
  "$contains",
]);
const MAX_DEPTH = 8;
const MAX_CONDITIONS = 64;
const SEGMENT = /^[^.$][^.]*$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** True for a value JSON holds exactly (no undefined, functions, non-finite numbers). */
function isJson(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJson(v, depth + 1));
  if (isObject(value)) return Object.values(value).every((v) => isJson(v, depth + 1));
  return false;
}

interface Parse {
  problems: Problem[];
  conditions: number;
}

const fail = (state: Parse, path: string, message: string): void => {
  state.problems.push({ code: "invalid_filter", path, message });
};

function parseOperand(
  state: Parse,
  where: string,
  path: string[],
  op: string,
  value: unknown,
): FilterNode | undefined {
  if (!OPERATORS.has(op)) {
    fail(state, where, `unknown operator ${op}; use one of ${[...OPERATORS].join(", ")}`);
    return undefined;
  }
  state.conditions++;
  switch (op) {
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      if (!(typeof value === "string" || (typeof value === "number" && Number.isFinite(value)))) {
        fail(state, where, `${op} takes a number or a string; got ${JSON.stringify(value) ?? typeof value}`);
        return undefined;
      }
      break;
    case "$in":
    case "$nin":
      if (!Array.isArray(value) || value.length === 0 || value.length > 100 || !isJson(value)) {
        fail(state, where, `${op} takes a non-empty array of at most 100 JSON values`);
        return undefined;
      }
      break;
    case "$exists":
      if (typeof value !== "boolean") {
        fail(state, where, "$exists takes true or false");
        return undefined;
      }
      break;
    case "$contains":
      if (!isJson(value)) {
        fail(state, where, "$contains takes a JSON value (a substring, or an element of an array)");
        return undefined;
      }
      break;
    default:
      if (!isJson(value)) {
        fail(state, where, `${op} takes a JSON value`);
        return undefined;
      }
  }
  return { kind: "condition", path, op: op as FilterOperator, value };
}

function parseField(state: Parse, where: string, key: string, value: unknown): FilterNode | undefined {
  const path = key.split(".");
  if (!path.every((segment) => SEGMENT.test(segment))) {
    fail(state, where, `${key} is not a path: dot-separated names, none empty or starting with $`);
    return undefined;
  }
  const operators = isObject(value) ? Object.keys(value) : [];
  if (operators.length > 0 && operators.every((k) => k.startsWith("$"))) {
    const nodes = operators
      .map((op) => parseOperand(state, `${where}.${op}`, path, op, (value as Record<string, unknown>)[op]))
      .filter((node): node is FilterNode => node !== undefined);
    return nodes.length === 1 ? nodes[0] : { kind: "and", nodes };
  }
  if (operators.some((k) => k.startsWith("$"))) {
    fail(state, where, "mixes operators ($...) and field names; use { $eq: {...} } to match an object");
    return undefined;
  }
  return parseOperand(state, where, path, "$eq", value);
}

function parseDocument(state: Parse, where: string, input: unknown, depth: number): FilterNode | undefined {
  if (!isObject(input)) {
    fail(state, where, "must be an object of paths to values or operators");
    return undefined;
  }
  if (depth > MAX_DEPTH) {
    fail(state, where, `nests deeper than ${MAX_DEPTH} levels`);
    return undefined;
  }
  const nodes: FilterNode[] = [];
  for (const [key, value] of Object.entries(input)) {
    const at = where ? `${where}.${key}` : key;
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(value) || value.length === 0) {
        fail(state, at, `${key} takes a non-empty array of filters`);
        continue;
      }
      const parts = value
        .map((item, i) => parseDocument(state, `${at}.${i}`, item, depth + 1))
        .filter((node): node is FilterNode => node !== undefined);
      nodes.push({ kind: key === "$and" ? "and" : "or", nodes: parts });
    } else if (key === "$not") {
      const node = parseDocument(state, at, value, depth + 1);
      if (node) nodes.push({ kind: "not", node });
    } else if (key.startsWith("$")) {
      fail(state, at, `unknown operator ${key} at the top of a filter; use $and, $or, $not or a path`);
    } else {
      const node = parseField(state, at, key, value);
      if (node) nodes.push(node);
    }
  }
  return nodes.length === 1 ? nodes[0] : { kind: "and", nodes };
}

/**
 * Parses and validates a filter. Every problem is reported at once, each with its `path` (such as
 * `filter.event.total.$gt`) and code `invalid_filter`; then this throws `validation_failed` (422).
 * A JSON text is parsed first (malformed JSON is a problem at `field`).
 *
 * @param input - The filter object, or its JSON text.
 * @param field - The parameter name, the prefix of problem paths (`filter` by default).
 * @returns The parsed tree, for {@link matchesFilter} or a store's query translation.
 * @example
 * ```ts
 * const filter = parseEventFilter({ "event.type": "order.created", "event.total": { $gte: 100 } });
 * matchesFilter(filter, { event: { type: "order.created", total: 120 } }); // true
 * ```
 */
export function parseEventFilter(input: unknown, field = "filter"): FilterNode {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new HooklineError("validation_failed", `${field} is not JSON: ${reason}`, {
        problems: [{ code: "invalid_filter", path: field, message: `${field} is not JSON: ${reason}` }],
      });
    }
  }
  const state: Parse = { problems: [], conditions: 0 };
  const node = parseDocument(state, field, value, 0);
  if (state.conditions > MAX_CONDITIONS) {
    fail(state, field, `has ${state.conditions} conditions; at most ${MAX_CONDITIONS}`);
  }
  if (state.problems.length > 0 || !node) {
    const summary = describeProblems(state.problems);
    throw new HooklineError("validation_failed", `Invalid filter: ${summary}`, { problems: state.problems });
  }
  return node;
}

/** The value at `path` in `doc`, or `undefined` when a segment is missing. @internal */
export function valueAt(doc: unknown, path: readonly string[]): unknown {
  let current = doc;
  for (const segment of path) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isObject(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

/**
 * Deep equality of JSON values (object keys in any order), as the filter's `$eq` compares.
 *
 * @example
 * ```ts
 * jsonEqual({ a: 1, b: [2] }, { b: [2], a: 1 }); // true
 * ```
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]))
    );
  }
  return false;
}

/**
 * Compares strings by Unicode code point (the order of their UTF-8 bytes, as SQL's `COLLATE "C"`).
 *
 * @example
 * ```ts
 * compareCodePoints("\uE000", "\u{1F600}") < 0; // true (UTF-16 order says the opposite)
 * ```
 */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as string).codePointAt(0)! - (y[i] as string).codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function compare(actual: unknown, op: FilterOperator, operand: unknown): boolean {
  let d: number;
  if (typeof actual === "number" && typeof operand === "number") d = actual - operand;
  else if (typeof actual === "string" && typeof operand === "string") d = compareCodePoints(actual, operand);
  else return false;
  if (op === "$gt") return d > 0;
  if (op === "$gte") return d >= 0;
  if (op === "$lt") return d < 0;
  return d <= 0;
}

function test(c: FilterCondition, doc: unknown): boolean {
  const actual = valueAt(doc, c.path);
  switch (c.op) {
    case "$eq":
      return actual !== undefined && jsonEqual(actual, c.value);
    case "$ne":
      return actual === undefined || !jsonEqual(actual, c.value);
    case "$in":
      return actual !== undefined && (c.value as unknown[]).some((v) => jsonEqual(actual, v));
    case "$nin":
      return actual === undefined || !(c.value as unknown[]).some((v) => jsonEqual(actual, v));
    case "$exists":
      return (actual !== undefined) === c.value;
    case "$contains":
      if (typeof actual === "string") return typeof c.value === "string" && actual.includes(c.value);
      return Array.isArray(actual) && actual.some((item) => jsonEqual(item, c.value));
    default:
      return compare(actual, c.op, c.value);
  }
}

/**
 * Whether `doc` (an event summary: `{id, indexed_at_ms, event, metadata}`) matches `filter`. A
 * path that is missing fails every condition but `$ne`, `$nin` and `$exists: false`; comparisons
 * hold only between two numbers or two strings (by code point).
 *
 * @example
 * ```ts
 * matchesFilter(parseEventFilter({ "event.tags": { $contains: "vip" } }), { event: { tags: ["vip"] } }); // true
 * ```
 */
export function matchesFilter(filter: FilterNode, doc: unknown): boolean {
  switch (filter.kind) {
    case "and":
      return filter.nodes.every((node) => matchesFilter(node, doc));
    case "or":
      return filter.nodes.some((node) => matchesFilter(node, doc));
    case "not":
      return !matchesFilter(filter.node, doc);
    default:
      return test(filter, doc);
  }
}

/** What a filter sees of a stored event: the fields of its summary (see `event-summary.ts`). */
export type FilterableEvent = SummarizedEvent;

/**
 * The document a filter is evaluated against, built from a stored event: its `event_summaries`
 * item with `event` expanded ({@link eventSummary}).
 *
 * @example
 * ```ts
 * matchesFilter(filter, filterDocument(storedEvent));
 * ```
 */
export function filterDocument(e: FilterableEvent): Record<string, unknown> {
  return eventSummary(e, true);
}
