/**
 * The `{{ ... }}` expressions of workflow step props. Parsing is here (no evaluation: core has no
 * I/O and the engine evaluates expressions in the sandbox, never with the host's `eval`).
 *
 * A value that is ONE expression (`"{{steps.a.$return_value}}"`, spaces around allowed) keeps the
 * type of what it evaluates to; text mixed with expressions (`"Hi {{steps.a.name}}!"`) is a string,
 * each expression's value turned into text (objects as JSON).
 */

/** One piece of a parsed template: literal text, or the JavaScript source of an expression. */
export type TemplatePart = string | { code: string };

/** A parsed template. */
export interface ParsedTemplate {
  /** Text and expressions, in order (empty when the template does not parse). */
  parts: TemplatePart[];
  /** True when the whole value is one expression (its value keeps its type). */
  whole: boolean;
  /** Why it does not parse: an unclosed `{{` or an empty expression. */
  error?: string;
}

const QUOTES = new Set(["'", '"', "`"]);

/** Where the expression starting at `from` (just after `{{`) ends: the index of its `}}`, or -1. */
function closing(text: string, from: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (QUOTES.has(c)) quote = c;
    else if (c === "{") depth++;
    else if (c === "}") {
      if (depth === 0 && text[i + 1] === "}") return i;
      depth = Math.max(0, depth - 1);
    }
  }
  return -1;
}

/**
 * Splits a prop value into text and `{{ ... }}` expressions. Braces and quotes inside an expression
 * are followed, so `{{ {a: 1}.a }}` is one expression.
 *
 * @example
 * ```ts
 * parseTemplate("{{steps.trigger.event.id}}"); // { parts: [{ code: "steps.trigger.event.id" }], whole: true }
 * parseTemplate("id: {{ steps.a.$return_value }}"); // { parts: ["id: ", { code: "steps.a.$return_value" }], whole: false }
 * ```
 */
export function parseTemplate(text: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf("{{", at);
    if (open < 0) {
      parts.push(text.slice(at));
      break;
    }
    if (open > at) parts.push(text.slice(at, open));
    const end = closing(text, open + 2);
    if (end < 0) return { parts: [], whole: false, error: `"{{" at ${open} is never closed by "}}"` };
    const code = text.slice(open + 2, end).trim();
    if (code === "") return { parts: [], whole: false, error: `the expression at ${open} is empty` };
    parts.push({ code });
    at = end + 2;
  }
  const exprs = parts.filter((p) => typeof p !== "string");
  const text0 = parts.filter((p): p is string => typeof p === "string").join("");
  return { parts, whole: exprs.length === 1 && text0.trim() === "" };
}

/** True when `value` is a string holding at least one `{{ ... }}` expression. */
export function hasTemplate(value: unknown): value is string {
  if (typeof value !== "string" || !value.includes("{{")) return false;
  const parsed = parseTemplate(value);
  return parsed.error !== undefined || parsed.parts.some((p) => typeof p !== "string");
}

/**
 * The environment variable names an expression reads: `process.env.NAME` and `process.env["NAME"]`.
 * Only these are given to the sandbox that evaluates it.
 *
 * @example
 * ```ts
 * envNamesOf("process.env.API_KEY + process.env['REGION']"); // ["API_KEY", "REGION"]
 * ```
 */
export function envNamesOf(code: string): string[] {
  const names = new Set<string>();
  for (const m of code.matchAll(
    /process\s*\.\s*env\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*(["'`])([^"'`]+)\2\s*\])/g,
  )) {
    names.add((m[1] ?? m[3]) as string);
  }
  return [...names];
}
