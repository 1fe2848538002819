/**
 * Checking a prop value's `{{ }}` expressions as they are typed: what the server refuses when the
 * workflow is saved (an unclosed `{{`, an empty expression: core's parser) and what would fail when
 * it runs because it names nothing (a step that is not before this one, an environment variable
 * the workspace does not have). Only names are checked; the expression itself runs on the server.
 */
import { parseTemplate } from "@hookline/core";

/** What an expression may name. */
export interface ExprScope {
  /** The steps before this one. */
  earlier: string[];
  /** The workspace's environment variables, once loaded. */
  env?: string[];
}

const STEP_REF = /\bsteps\s*\.\s*([A-Za-z_$][\w$]*)/g;
const ENV_REF = /\bprocess\s*\.\s*env\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*(["'`])([^"'`]+)\2\s*\])/g;

/** The problem of `text`'s expressions, or undefined when none (or when it holds none). */
export function exprProblem(text: string, scope: ExprScope): string | undefined {
  if (!text.includes("{{")) return undefined;
  const parsed = parseTemplate(text);
  if (parsed.error) return `Expression: ${parsed.error}`;
  for (const part of parsed.parts) {
    if (typeof part === "string") continue;
    const code = part.code;
    if (/[.[(]\s*$/.test(code)) return `Expression {{${code}}} is not finished`;
    for (const m of code.matchAll(STEP_REF)) {
      const name = m[1] as string;
      if (name !== "trigger" && !scope.earlier.includes(name)) {
        const known = ["trigger", ...scope.earlier].join(", ");
        return `No step ${name} runs before this one (steps here: ${known})`;
      }
    }
    if (scope.env) {
      for (const m of code.matchAll(ENV_REF)) {
        const name = (m[1] ?? m[3]) as string;
        if (!scope.env.includes(name))
          return `No environment variable ${name} in this workspace (set it on the Environment page)`;
      }
    }
  }
  return undefined;
}

/** A property access for `key` after `base`: `.key`, or `["key"]` when it is not an identifier. */
export function childPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}
