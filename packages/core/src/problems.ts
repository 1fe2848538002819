import type { Problem } from "./errors.js";

/**
 * Every problem code that {@link validateComponent}, {@link validatePropValues} and the other
 * validators of `@hookline/core` report, with what it means. Stable: tools match on them.
 * `docs/errors.md` lists each one, and a test checks that the two agree.
 */
export const PROBLEM_CODES = {
  required: "A required property is missing.",
  invalid_type: "A property has the wrong JavaScript type.",
  invalid_value: "A property has a value outside the allowed set or range.",
  unknown_prop_type: "A prop's `type` is not a known prop type.",
  array_not_supported: "The `[]` array form is used on a prop type that does not support it.",
  source_only:
    "A feature only sources may use (hooks, dedupe, interfaces, the db service) is used in an action.",
  action_only: "A feature only actions may use (the `any` prop type) is used in a source.",
  default_on_required: "`default` is set on a prop that is not optional.",
  secret_not_string: "`secret` is set on a prop that is not a string.",
  min_max_not_integer: "`min` or `max` is set on a prop that is not an integer.",
  min_greater_than_max: "`min` is greater than `max`.",
  invalid_prop_definition:
    "A `propDefinition` is not `[app, name, inputValues?]` or names a missing definition.",
  invalid_registry_key: "A registry component's key is not `<app_slug>-<slugified-component-name>`.",
  invalid_version: "A registry component's version is not a semantic version.",
  not_in_options: "A prop value is not one of the prop's static options.",
  below_min: "An integer prop value is below the prop's `min`.",
  above_max: "An integer prop value is above the prop's `max`.",
  too_large: "A raw static prop value is larger than 64KB.",
  invalid_timer:
    "A timer configuration is not `{ intervalSeconds }` or `{ cron, timezone? }`, or the cron expression does not parse.",
  unknown_prop: "A value is given for a prop the component does not declare.",
  invalid_trigger:
    "A workflow's trigger is not one of `http`, `timer`, `source` or `manual`, or one of its fields is wrong.",
  invalid_step_name: "A workflow step's name does not match `^[A-Za-z_][A-Za-z0-9_]*$`.",
  reserved_step_name: "A workflow step is named `trigger`, which is reserved for the trigger's event.",
  duplicate_step_name: "Two steps of a workflow have the same name.",
  invalid_expression: "A `{{ ... }}` expression in a step's prop value is not closed or is empty.",
  invalid_filter:
    "An event filter (`filter`) is not valid: an unknown operator, a bad operand or path, or not JSON.",
} as const;

/** A stable problem code. */
export type ProblemCode = keyof typeof PROBLEM_CODES;

/** Builds a {@link Problem}. @internal */
export function problem(code: ProblemCode, path: string, message: string): Problem {
  return { code, path, message };
}

/** Joins path segments with dots, leaving out empty ones. @internal */
export function joinPath(...parts: (string | number)[]): string {
  return parts.filter((part) => part !== "").join(".");
}

/**
 * Formats problems as one human sentence for an error message: `path: message; path: message`. A
 * problem without a path is its message alone, or `emptyPath: message` when `emptyPath` is given
 * (such as `props`). The one owner of how a problem list reads.
 *
 * @example
 * ```ts
 * describeProblems([{ code: "required", path: "name", message: "is required" }]); // "name: is required"
 * ```
 */
export function describeProblems(problems: readonly Problem[], emptyPath?: string): string {
  return problems
    .map((p) => {
      const path = p.path || emptyPath;
      return path ? `${path}: ${p.message}` : p.message;
    })
    .join("; ");
}

/**
 * Formats problems whose messages already name what they are about (`destinations.s3.bucket is
 * required`) as one sentence: their messages joined by `; `. The other form of a problem list,
 * beside {@link describeProblems}.
 *
 * @example
 * ```ts
 * describeProblemMessages([{ code: "required", path: "to", message: "to is required" }]); // "to is required"
 * ```
 */
export function describeProblemMessages(problems: readonly Problem[]): string {
  return problems.map((p) => p.message).join("; ");
}

/**
 * The problems (which make a definition invalid) and warnings (rules real Pipedream components
 * break, accepted here as Pipedream accepts them) of one validation. @internal
 */
export class Findings {
  readonly problems: Problem[] = [];
  readonly warnings: Problem[] = [];

  /** Records a problem. */
  error(code: ProblemCode, path: string, message: string): void {
    this.problems.push(problem(code, path, message));
  }

  /** Records a warning. */
  warn(code: ProblemCode, path: string, message: string): void {
    this.warnings.push(problem(code, path, message));
  }
}
