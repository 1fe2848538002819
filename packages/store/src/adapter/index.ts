/**
 * `@hookline/store/adapter`: what every Store adapter shares so that each rule has one owner: page
 * sizes and cursors, subscription channel matching, row builders, version order, lossless text, and
 * the fault-injection hook of the conformance suite.
 *
 * @packageDocumentation
 */
export { type DeliveryTarget, subscriptionFilter, targetsOf } from "./channels.js";
export { type DedupeDecision, decideDedupe } from "./dedupe.js";
export { eventMatches, hasConditions, scanBudget } from "./event-match.js";
export { FAULT_POINTS, type FaultHook, type FaultPoint } from "./faults.js";
export { metricsOf, percentile } from "./metrics.js";
export { clampLimit, pageOf, parseIdCursor, parseSeqCursor } from "./paging.js";
export { newRequestDelivery, requestClaim } from "./requests.js";
export { keptByRetention } from "./retention.js";
export {
  newAccount,
  newApiKey,
  newAttempt,
  newDataStore,
  newDelivery,
  newDeployedComponent,
  newEvents,
  newReplay,
  newSavedComponent,
  newSubscription,
  newWebhook,
  newWorkspace,
} from "./rows.js";
export { bodyText, compareText, decodeText, encodeText, jsonText, utf8Length } from "./text.js";
export { compareVersions, newestComponent } from "./versions.js";
export { isDue, isFinalStatus, newExecution, newWorkflow } from "./workflow-rows.js";
