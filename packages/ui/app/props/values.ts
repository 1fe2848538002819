/** Prop form helpers without UI: which props take input, labels, options, values to send, errors. */
import { ApiError } from "../api";
import type { Prop } from "../types";

/** Props the server wires itself: no input (the HTTP endpoint, the key-value store). */
const WIRED = new Set(["$.interface.http", "$.service.db"]);

/** Whether the form shows an input for the prop (`valueType: "none"`: wired or display only). */
export function takesInput(prop: Prop): boolean {
  return !WIRED.has(prop.type) && prop.type !== "alert" && prop.valueType !== "none";
}

/** The prop's label: its `label`, or its name. */
export function labelOf(prop: Prop): string {
  return prop.label?.trim() ? prop.label : prop.name;
}

/** An option as `{ label, value }`. */
export interface Option {
  label: string;
  value: unknown;
}

/** Options as components give them (plain values or `{ label, value }`) in one shape. */
export function toOptions(raw: unknown[] | undefined): Option[] {
  return (raw ?? []).map((o) => {
    if (o !== null && typeof o === "object" && "value" in (o as object)) {
      const { label, value } = o as { label?: unknown; value: unknown };
      return { label: label === undefined ? String(value) : String(label), value };
    }
    return { label: typeof o === "string" ? o : JSON.stringify(o), value: o };
  });
}

/** Whether two values are the same (deep, through JSON). */
export function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The values to start a form with: a source's configured values (secrets come back masked and
 * start empty: left empty, the saved secret is kept), else nothing (defaults apply on the server).
 */
export function initialValues(
  props: Prop[],
  configured: Record<string, unknown> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const declared = new Set(props.map((p) => p.name));
  for (const prop of props) {
    if (!takesInput(prop)) continue;
    const value = configured[prop.name];
    if (value === undefined || prop.secret) continue;
    out[prop.name] = value;
  }
  // Values of props additionalProps() added: kept until the reload brings their descriptions.
  for (const [name, value] of Object.entries(configured)) {
    if (!declared.has(name) && value !== undefined && typeof value !== "object") out[name] = value;
  }
  return out;
}

/** The `configured_props` to send: input props with a value. */
export function toSend(props: Prop[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prop of props) {
    if (!takesInput(prop)) continue;
    const value = values[prop.name];
    if (value !== undefined) out[prop.name] = value;
  }
  return out;
}

/** `errors` without the props whose value changed from `before` to `after` (the user is fixing them). */
export function withoutChanged(
  errors: Record<string, string>,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, string> {
  const kept = Object.entries(errors).filter(([name]) => same(before[name], after[name]));
  return kept.length === Object.keys(errors).length ? errors : Object.fromEntries(kept);
}

/** Messages by prop name, and the rest, from an API error (`details.problems`, `details.prop`). */
export function errorsByProp(
  error: unknown,
  props: Prop[],
): { byProp: Record<string, string>; other?: ApiError } {
  if (!(error instanceof ApiError))
    return { byProp: {}, other: new ApiError(0, "client_error", String(error)) };
  const names = new Set(props.map((p) => p.name));
  const byProp: Record<string, string> = {};
  const problems = (error.details?.problems ?? []) as { path?: string; message?: string }[];
  let placed = false;
  for (const p of problems) {
    const name = (p.path ?? "").replace(/^props\./, "").split(".")[0] ?? "";
    if (names.has(name)) {
      byProp[name] = byProp[name] ? `${byProp[name]}; ${p.message}` : (p.message ?? error.message);
      placed = true;
    }
  }
  const prop = error.details?.prop;
  if (typeof prop === "string" && names.has(prop)) {
    byProp[prop] = error.message;
    placed = true;
  }
  return placed && error.code !== "hook_failed" ? { byProp } : { byProp, other: error };
}
