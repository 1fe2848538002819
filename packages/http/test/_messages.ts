import type { TSchema } from "typebox";
import { expect } from "vitest";

interface ApiError {
  code: string;
  message: string;
  details?: unknown;
}

/** The schema of `path` (dotted) inside an object schema, through optional wrappers. */
function fieldSchema(schema: TSchema | undefined, path: string): Record<string, unknown> | undefined {
  let node = schema as Record<string, unknown> | undefined;
  for (const part of path.split(".")) {
    const properties = node?.properties as Record<string, Record<string, unknown>> | undefined;
    const items = node?.items as Record<string, unknown> | undefined;
    node = properties?.[part] ?? (/^\d+$/.test(part) ? items : undefined);
    if (!node) return undefined;
  }
  return node;
}

/** The allowed values of a schema that is a set (literals, an enum, a constant), else undefined. */
function allowedValues(schema: Record<string, unknown> | undefined): unknown[] | undefined {
  if (!schema) return undefined;
  if ("const" in schema) return [schema.const];
  if (Array.isArray(schema.enum)) return schema.enum;
  const members = schema.anyOf as Record<string, unknown>[] | undefined;
  if (Array.isArray(members) && members.every((m) => "const" in m)) return members.map((m) => m.const);
  return undefined;
}

const PLAIN = /^[\w.$-]{1,100}$/;

/**
 * Checks that an API error tells a person what to fix: a non-empty message; for each problem in
 * `details.problems`, a message naming its field (`url is required`, not "must have required
 * properties url"), the allowed values where the field is a set, and the limit where one was passed.
 */
export function expectActionableError(error: ApiError, where: string, schema?: TSchema): void {
  expect(error.message.trim(), where).not.toBe("");
  expect(error.message, where).not.toMatch(/must be equal to constant|must have required properties/);
  const problems =
    (error.details as { problems?: { code?: string; path: string; message: string }[] } | undefined)
      ?.problems ?? [];
  if (error.code === "validation_failed") expect(problems.length, where).toBeGreaterThan(0);
  for (const p of problems) {
    expect(p.path, where).toBeTypeOf("string");
    if (PLAIN.test(p.path)) {
      expect(p.message, where).toContain(p.path);
      expect(error.message, where).toContain(p.path);
    }
    const field = fieldSchema(schema, p.path);
    const allowed = allowedValues(field);
    if (allowed && p.code !== "required") {
      for (const value of allowed) expect(p.message, where).toContain(JSON.stringify(value));
    }
    for (const [keyword, words] of [
      ["maximum", "at most"],
      ["minimum", "at least"],
      ["maxLength", "at most"],
    ] as const) {
      if (typeof field?.[keyword] === "number" && p.message.includes(words)) {
        expect(p.message, where).toContain(String(field[keyword]));
      }
    }
  }
}
