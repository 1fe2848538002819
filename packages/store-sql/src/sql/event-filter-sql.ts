/**
 * Event filters in SQL: a filter tree (`parseEventFilter` of `@hookline/core`) becomes a condition
 * on the `events` table that every matching row satisfies (a necessary condition). Conditions on
 * `event.*` read `body_json` (the jsonb twin of the body, migration 5): equality uses containment
 * (`@>`, which a GIN index would answer; migration 8 dropped it, pages being bounded by their scan
 * budget) and the rest `#>`. What has no exact translation becomes a
 * looser condition (or TRUE), and `exact` says so; the store re-checks every row it reads with
 * `matchesFilter` either way, so the JavaScript evaluator stays the one definition.
 */
import type { FilterCondition, FilterNode } from "@hookline/core";

/** A translated condition: its SQL, and whether it is exactly the filter (not only implied by it). */
export interface SqlCondition {
  sql: string;
  exact: boolean;
}

const TRUE: SqlCondition = { sql: "TRUE", exact: false };
/**
 * NUL, a lone surrogate (what Postgres text and jsonb refuse), or a leading U+FFFF (which the
 * context's parameter encoding would change): operands compared in the application instead.
 */
const UNSTORABLE = /^\uffff|\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const COMPARE = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" } as const;

/** True when a JSON value holds a string Postgres cannot take. */
function unstorable(value: unknown): boolean {
  if (typeof value === "string") return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(unstorable);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).some(([k, v]) => UNSTORABLE.test(k) || unstorable(v));
  }
  return false;
}

/** `value` nested under `path`: `{a: {b: value}}` for `["a", "b"]` (a containment document). */
function nest(path: readonly string[], value: unknown): unknown {
  let doc = value;
  for (const segment of [...path].reverse()) doc = { [segment]: doc };
  return doc;
}

/** Numeric metadata that live in their own columns (a Map: a path such as `valueOf` is no key). */
const NUMBER_COLUMNS = new Map([
  ["metadata.ts", "t.ts"],
  ["indexed_at_ms", "t.created_at"],
]);

class Translator {
  constructor(readonly params: unknown[]) {}

  param(value: unknown, cast = ""): string {
    this.params.push(value);
    return `$${this.params.length}${cast}`;
  }

  /** Translates a node; one that becomes TRUE leaves no parameters behind. */
  node(node: FilterNode): SqlCondition {
    const mark = this.params.length;
    const condition = this.translate(node);
    if (condition.sql === "TRUE") this.params.length = mark;
    return condition;
  }

  translate(node: FilterNode): SqlCondition {
    switch (node.kind) {
      case "and": {
        const parts = node.nodes.map((n) => this.node(n));
        const kept = parts.filter((p) => p.sql !== "TRUE");
        return {
          sql: kept.length === 0 ? "TRUE" : `(${kept.map((p) => p.sql).join(" AND ")})`,
          exact: parts.every((p) => p.exact),
        };
      }
      case "or": {
        const parts = node.nodes.map((n) => this.node(n));
        if (parts.some((p) => p.sql === "TRUE")) return TRUE;
        return { sql: `(${parts.map((p) => p.sql).join(" OR ")})`, exact: parts.every((p) => p.exact) };
      }
      case "not": {
        // Only an exact condition can be negated and stay implied by the filter.
        const inner = this.node(node.node);
        return inner.exact ? { sql: `(NOT ${inner.sql})`, exact: true } : TRUE;
      }
      default:
        return this.condition(node);
    }
  }

  condition(c: FilterCondition): SqlCondition {
    if (unstorable(c.value)) return TRUE;
    const [root, ...rest] = c.path;
    if (root === "event") return this.body(c, rest);
    const column = NUMBER_COLUMNS.get(c.path.join("."));
    if (column) return this.numberColumn(c, column);
    if (c.path.join(".") === "metadata.name" && (c.op === "$eq" || c.op === "$in")) {
      // The channel; text parameters and columns are both encoded (one-to-one), so equality holds.
      const values = (c.op === "$eq" ? [c.value] : (c.value as unknown[])).filter(
        (v) => typeof v === "string",
      );
      if (values.length === 0) return { sql: "FALSE", exact: true };
      return { sql: `t.channel IN (${values.map((v) => this.param(v)).join(", ")})`, exact: true };
    }
    return TRUE;
  }

  numberColumn(c: FilterCondition, column: string): SqlCondition {
    const numbers = (values: unknown[]) => values.filter((v): v is number => typeof v === "number");
    switch (c.op) {
      case "$eq":
      case "$in": {
        const values = numbers(c.op === "$eq" ? [c.value] : (c.value as unknown[]));
        if (values.length === 0) return { sql: "FALSE", exact: true };
        return {
          sql: `${column} IN (${values.map((v) => this.param(v, "::numeric")).join(", ")})`,
          exact: true,
        };
      }
      case "$exists":
        return { sql: c.value ? "TRUE" : "FALSE", exact: true };
      case "$gt":
      case "$gte":
      case "$lt":
      case "$lte":
        if (typeof c.value !== "number") return { sql: "FALSE", exact: true };
        return { sql: `${column} ${COMPARE[c.op]} ${this.param(c.value, "::numeric")}`, exact: true };
      default:
        return TRUE;
    }
  }

  body(c: FilterCondition, path: string[]): SqlCondition {
    const at = `t.body_json #> ${this.param(`{${path.map((s) => `"${s.replace(/["\\]/g, "\\$&")}"`).join(",")}}`, "::text[]")}`;
    const json = (value: unknown) => this.param(JSON.stringify(value), "::jsonb");
    switch (c.op) {
      case "$eq": {
        const equal = `coalesce(${at} = ${json(c.value)}, FALSE)`;
        if (path.length === 0 || path.some((s) => /^\d+$/.test(s))) return { sql: equal, exact: true };
        // Containment first (a GIN index on body_json, if one is made, answers it); the equality makes it exact.
        return { sql: `(t.body_json @> ${json(nest(path, c.value))} AND ${equal})`, exact: true };
      }
      case "$ne":
        return { sql: `(NOT coalesce(${at} = ${json(c.value)}, FALSE))`, exact: true };
      case "$in":
      case "$nin": {
        const list = `coalesce(${at} IN (${(c.value as unknown[]).map(json).join(", ")}), FALSE)`;
        if (c.op === "$nin") return { sql: `(NOT ${list})`, exact: true };
        if (path.length === 0 || path.some((s) => /^\d+$/.test(s))) return { sql: list, exact: true };
        // One containment per value (a BitmapOr of a GIN index, if any), made exact by the list.
        const any = (c.value as unknown[]).map((v) => `t.body_json @> ${json(nest(path, v))}`).join(" OR ");
        return { sql: `((${any}) AND ${list})`, exact: true };
      }
      case "$exists":
        return { sql: `(${at} IS ${c.value ? "NOT " : ""}NULL)`, exact: true };
      case "$contains": {
        const element = `jsonb_build_array(${json(c.value)})`;
        const scalar = typeof c.value !== "object" || c.value === null;
        const inArray = `WHEN 'array' THEN ${at} @> ${element}`;
        const inString =
          typeof c.value === "string"
            ? `WHEN 'string' THEN strpos(${at} #>> '{}', ${this.param(c.value)}) > 0`
            : "";
        return {
          sql: `coalesce(CASE jsonb_typeof(${at}) ${inString} ${inArray} ELSE FALSE END, FALSE)`,
          exact: scalar,
        };
      }
      default: {
        const op = COMPARE[c.op];
        if (typeof c.value === "number") {
          return {
            sql: `coalesce(CASE WHEN jsonb_typeof(${at}) = 'number' THEN (${at})::numeric ${op} ${this.param(c.value, "::numeric")} ELSE FALSE END, FALSE)`,
            exact: true,
          };
        }
        return {
          sql: `coalesce(CASE WHEN jsonb_typeof(${at}) = 'string' THEN (${at} #>> '{}') COLLATE "C" ${op} ${this.param(c.value, "::text")} COLLATE "C" ELSE FALSE END, FALSE)`,
          exact: true,
        };
      }
    }
  }
}

/**
 * The SQL condition on `events t` implied by `filter` for the rows that have a jsonb twin of their
 * body, its parameters appended to `params`; `exact` says that, for those rows, the condition is the
 * filter itself. Rows whose body has no twin (NUL or a lone surrogate in it: see
 * {@link UNINDEXED_BODY}) must be read separately and re-checked.
 *
 * @param filter - The parsed filter.
 * @param params - The query's parameters so far; the condition's are pushed onto it.
 * @returns The condition and whether it is exact.
 * @example
 * ```ts
 * const { sql } = filterSql(parseEventFilter({ "event.total": { $gt: 10 } }), params);
 * ```
 */
export function filterSql(filter: FilterNode, params: unknown[]): SqlCondition {
  return new Translator(params).node(filter);
}

/** The rows whose body has no jsonb twin (the partial index `events_body_unindexed` holds them). */
export const UNINDEXED_BODY = "t.body_json IS NULL AND t.body IS NOT NULL";
