/**
 * The Hookline component model: schemas, validation, dedupe, ids, timers and errors. No I/O: this
 * package runs anywhere JavaScript does.
 * @packageDocumentation
 */

export * from "./code-frame.js";
export { parsePropType } from "./component-props.js";
export * from "./dedupe.js";
export * from "./define.js";
export * from "./description.js";
export * from "./emit.js";
export * from "./errors.js";
export * from "./event-filter.js";
export {
  type EventSummary,
  EventSummarySchema,
  eventSummary,
  type SummarizedEvent,
} from "./event-summary.js";
export * from "./ids.js";
export { describeProblemMessages, describeProblems, PROBLEM_CODES, type ProblemCode } from "./problems.js";
export { REGISTRY_KEY, type RegistryVisibility } from "./registry-rules.js";
export * from "./respond.js";
export * from "./schemas.js";
export * from "./slug.js";
export * from "./templates.js";
export * from "./timers.js";
export type { TlsSettings } from "./tls-settings.js";
export {
  type ComponentCheck,
  describeComponent,
  type ValidateComponentOptions,
  validateComponent,
} from "./validate-component.js";
export {
  isStepExpression,
  MAX_STATIC_PROP_BYTES,
  type PropValuesResult,
  validatePropValues,
} from "./validate-prop-values.js";
export * from "./workflow-file.js";
export * from "./workflow-limits.js";
export * from "./workflow-retry.js";
export * from "./workflows.js";
