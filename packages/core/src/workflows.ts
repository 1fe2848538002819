/**
 * Workflow definitions: a trigger and ordered steps (DESIGN.md, "Workflows"). The shapes are the
 * REST API's (snake_case), so that a workflow file, a request body and `hookline.workflows.create`
 * take the same object. {@link validateWorkflow} is the one owner of the definition's rules.
 */
import type { Problem } from "./errors.js";
import { problem } from "./problems.js";
import { parseTemplate } from "./templates.js";
import { validateTimerConfig } from "./timers.js";
import { type ConcurrencyLimit, type ThrottleLimit, validateLimits } from "./workflow-limits.js";
import { type RetryPolicy, validateRetry } from "./workflow-retry.js";

/** An HTTP trigger: an endpoint like a source's (`/http/{endpoint_id}`). */
export interface HttpTrigger {
  type: "http";
  /** Wait for `$.respond()` instead of answering `{"success":true,...}` once accepted. */
  custom_response?: boolean;
}

/** A timer trigger: every `intervalSeconds`, or on a `cron` schedule in `timezone` (default UTC). */
export interface TimerTrigger {
  type: "timer";
  intervalSeconds?: number;
  cron?: string;
  timezone?: string;
}

/**
 * A source trigger: every event a `dc_` source emits (on `event_name`, or the default channel), or
 * the `$errors` events of another workflow (`source_id` a `p_` id, `event_name: "$errors"`).
 */
export interface SourceTrigger {
  type: "source";
  source_id: string;
  event_name?: string;
}

/** The channel a failed workflow run emits on, which another workflow may trigger on. */
export const WORKFLOW_ERRORS_CHANNEL = "$errors";

/** A manual trigger: runs only through `POST /v1/workflows/{id}/run`. */
export interface ManualTrigger {
  type: "manual";
}

/** One of the four triggers. */
export type WorkflowTrigger = HttpTrigger | TimerTrigger | SourceTrigger | ManualTrigger;

/** A step: a named action (saved, from the registry, or inline code) and its prop values. */
export interface WorkflowStep {
  /** `^[A-Za-z_][A-Za-z0-9_]*$`, unique in the workflow, not `trigger`. */
  name: string;
  /** A saved component (`sc_...`) that is an action. */
  component_id?: string;
  /** A registry key (`key` or `key@version`) of an action. */
  component_key?: string;
  /** Inline code: `export default defineComponent({ async run({ steps, $ }) {...} })`. */
  component_code?: string;
  /** Prop values; strings may hold `{{ ... }}` expressions (see `parseTemplate`). */
  configured_props?: Record<string, unknown>;
  /** This step's retry policy, over the workflow's (see `retryPolicy`). */
  retry?: RetryPolicy;
}

/** A workflow definition as a user writes it. */
export interface WorkflowDefinition {
  name: string;
  trigger: WorkflowTrigger;
  steps: WorkflowStep[];
  active?: boolean;
  /** The retry policy of every step (a step's own `retry` goes over it). */
  retry?: RetryPolicy;
  /** At most this many runs at once (runs are then queued). */
  concurrency?: ConcurrencyLimit;
  /** At most this many starts per interval (runs are then queued). */
  throttle?: ThrottleLimit;
  /** At most this many runs waiting in the queue: HTTP and manual runs beyond it are refused (429). */
  queue_size?: number;
}

/** Step names: letters, digits and underscores, not starting with a digit. */
export const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The name no step may take: `steps.trigger` is the trigger's event and context. */
export const RESERVED_STEP_NAME = "trigger";

/** Most steps in one workflow. */
export const MAX_WORKFLOW_STEPS = 100;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks a trigger; problems name their path under `path` (`trigger.type`...). */
export function validateTrigger(trigger: unknown, path = "trigger"): Problem[] {
  if (!isObject(trigger)) return [problem("invalid_trigger", path, "trigger must be an object with a type")];
  const type = trigger.type;
  const at = (field: string) => `${path}.${field}`;
  const only = (allowed: string[]): Problem[] =>
    Object.keys(trigger)
      .filter((k) => !allowed.includes(k))
      .map((k) =>
        problem(
          "invalid_trigger",
          at(k),
          `${at(k)} is not a field of a ${String(type)} trigger (its fields: ${allowed.join(", ")})`,
        ),
      );
  switch (type) {
    case "http": {
      const found = only(["type", "custom_response", "endpoint_url", "endpoint_id"]);
      if (trigger.custom_response !== undefined && typeof trigger.custom_response !== "boolean") {
        found.push(problem("invalid_trigger", at("custom_response"), "custom_response must be a boolean"));
      }
      return found;
    }
    case "timer": {
      const { type: _t, ...config } = trigger;
      const found = only(["type", "intervalSeconds", "cron", "timezone"]);
      return [...found, ...validateTimerConfig(config, path)];
    }
    case "source": {
      const found = only(["type", "source_id", "event_name"]);
      if (typeof trigger.source_id !== "string" || trigger.source_id === "") {
        found.push(problem("invalid_trigger", at("source_id"), "source_id (a dc_ source id) is required"));
      } else if (trigger.source_id.startsWith("p_")) {
        // Another workflow: only its `$errors` channel (what it sends with $.send.emit could loop).
        if (trigger.event_name !== WORKFLOW_ERRORS_CHANNEL) {
          found.push(
            problem(
              "invalid_trigger",
              at("event_name"),
              `a workflow (p_) source triggers on its "$errors" channel only: set event_name to "$errors"`,
            ),
          );
        }
      } else if (!trigger.source_id.startsWith("dc_")) {
        found.push(
          problem(
            "invalid_trigger",
            at("source_id"),
            `source_id must be a source (dc_...) or, with event_name "$errors", a workflow (p_...)`,
          ),
        );
      }
      if (trigger.event_name !== undefined && typeof trigger.event_name !== "string") {
        found.push(problem("invalid_trigger", at("event_name"), "event_name must be a string"));
      }
      return found;
    }
    case "manual":
      return only(["type"]);
    default:
      return [
        problem(
          "invalid_trigger",
          at("type"),
          `trigger.type must be "http", "timer", "source" or "manual", got ${JSON.stringify(type)}`,
        ),
      ];
  }
}

/** Every `{{ ... }}` string inside `value`, with its path. */
function* templatesIn(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === "string") {
    if (value.includes("{{")) yield [path, value];
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* templatesIn(value[i], `${path}[${i}]`);
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) yield* templatesIn(v, `${path}.${k}`);
  }
}

/** Checks one step; `path` is `steps[i]`. Names are checked for uniqueness by the caller. */
export function validateStep(step: unknown, path: string): Problem[] {
  if (!isObject(step)) return [problem("invalid_type", path, "a step is an object")];
  const found: Problem[] = [];
  if (typeof step.name !== "string" || step.name === "") {
    found.push(problem("required", `${path}.name`, "name is required"));
  } else if (!STEP_NAME.test(step.name)) {
    found.push(
      problem(
        "invalid_step_name",
        `${path}.name`,
        `step name ${JSON.stringify(step.name)} must match ^[A-Za-z_][A-Za-z0-9_]*$ (letters, digits, underscores)`,
      ),
    );
  } else if (step.name === RESERVED_STEP_NAME) {
    found.push(
      problem("reserved_step_name", `${path}.name`, `"trigger" is reserved for the trigger's event`),
    );
  }
  const ways = ["component_id", "component_key", "component_code"].filter((k) => step[k] !== undefined);
  if (ways.length === 0) {
    found.push(
      problem("required", path, "a step needs one of component_id, component_key or component_code"),
    );
  } else if (ways.length > 1) {
    found.push(problem("invalid_value", path, `give one of ${ways.join(", ")}, not several`));
  }
  for (const key of ways) {
    if (typeof step[key] !== "string" || step[key] === "") {
      found.push(problem("invalid_type", `${path}.${key}`, `${key} must be a non-empty string`));
    }
  }
  for (const key of Object.keys(step)) {
    if (
      !["name", "component_id", "component_key", "component_code", "configured_props", "retry"].includes(key)
    ) {
      found.push(problem("invalid_value", `${path}.${key}`, `${path}.${key} is not a field of a step`));
    }
  }
  if (step.retry !== undefined) found.push(...validateRetry(step.retry, `${path}.retry`));
  if (step.configured_props !== undefined) {
    if (!isObject(step.configured_props)) {
      found.push(problem("invalid_type", `${path}.configured_props`, "configured_props must be an object"));
    } else {
      for (const [at, text] of templatesIn(step.configured_props, `${path}.configured_props`)) {
        const parsed = parseTemplate(text);
        if (parsed.error) found.push(problem("invalid_expression", at, parsed.error));
      }
    }
  }
  return found;
}

/**
 * Checks a workflow definition: a name, one valid trigger, 1 to 100 steps with valid, unique names,
 * each naming one component, and parseable `{{ }}` expressions. Problems name the field
 * (`steps[1].name`, `trigger.type`...). Whether the components and sources exist is the engine's
 * check.
 *
 * @example
 * ```ts
 * validateWorkflow({ name: "w", trigger: { type: "manual" }, steps: [{ name: "1a", component_code: "..." }] });
 * // [{ code: "invalid_step_name", path: "steps[0].name", message: ... }]
 * ```
 */
export function validateWorkflow(definition: unknown, options: { partial?: boolean } = {}): Problem[] {
  if (!isObject(definition)) return [problem("invalid_type", "", "a workflow is an object")];
  const found: Problem[] = [];
  const partial = options.partial === true;
  if (!partial || definition.name !== undefined) {
    if (typeof definition.name !== "string" || definition.name.trim() === "") {
      found.push(problem("required", "name", "name is required"));
    } else if (definition.name.length > 200) {
      found.push(problem("invalid_value", "name", "name is at most 200 characters"));
    }
  }
  if (!partial || definition.trigger !== undefined) found.push(...validateTrigger(definition.trigger));
  if (definition.active !== undefined && typeof definition.active !== "boolean") {
    found.push(problem("invalid_type", "active", "active must be a boolean"));
  }
  if (definition.retry !== undefined && definition.retry !== null) {
    found.push(...validateRetry(definition.retry, "retry"));
  }
  found.push(...validateLimits(definition));
  if (partial && definition.steps === undefined) return found;
  const steps = definition.steps;
  if (!Array.isArray(steps) || steps.length === 0) {
    found.push(problem("required", "steps", "steps must be a list of at least one step"));
    return found;
  }
  if (steps.length > MAX_WORKFLOW_STEPS) {
    found.push(problem("invalid_value", "steps", `a workflow has at most ${MAX_WORKFLOW_STEPS} steps`));
  }
  const seen = new Set<string>();
  steps.forEach((step, i) => {
    const path = `steps[${i}]`;
    found.push(...validateStep(step, path));
    const name = isObject(step) ? step.name : undefined;
    if (typeof name === "string" && STEP_NAME.test(name)) {
      if (seen.has(name)) {
        found.push(problem("duplicate_step_name", `${path}.name`, `another step is named ${name}`));
      }
      seen.add(name);
    }
  });
  return found;
}
