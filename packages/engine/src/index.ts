/**
 * The Hookline engine: the composition root that turns saved code into running sources that react
 * to HTTP requests and timers, keep state, emit deduplicated events and keep them for reading.
 * @packageDocumentation
 */

// The destinations of workflows' $.send.email and $.send.s3, for `createHookline({ destinations })`.
export {
  closeDestinations,
  createDestinations,
  type Destinations,
  type DestinationsOptions,
  destinationsFromEnv,
} from "@hookline/delivery";
export type { AccountScope, AccountsApi, AccountUpdate } from "./accounts.js";
export { API_KEY_PREFIX, hashApiKey } from "./api-keys.js";
export { DEFAULT_NO_AUTH_APPS } from "./apps.js";
export { type Clock, createFakeClock, type FakeClock, systemClock } from "./clock.js";
export { type CodeUrlLimits, DEFAULT_CODE_URL_LIMITS, type FetchedSource } from "./code-url.js";
export type { ComponentsApi } from "./components.js";
export {
  type DataStoreInfo,
  type DataStoresApi,
  MAX_DATA_STORE_KEY,
  MAX_DATA_STORE_NAME,
} from "./data-stores.js";
export { type EventSearchOptions, searchEvents, toFilter } from "./event-search.js";
export type { HooklineEvents } from "./events.js";
export type { HealthCheck, HealthReport } from "./health.js";
export { createHookline, type Hookline } from "./hookline.js";
export type { IngressRequest } from "./http-event.js";
export {
  type CatalogueEntry,
  CONNECT_TOKEN_PREFIX,
  type ConnectApi,
  type ConnectFinished,
  type ConnectInput,
  type ConnectScope,
  type ConnectStarted,
  type ConnectStatus,
  type ConnectTokenGrant,
  type ConnectTokensApi,
  OAUTH_CATALOGUE,
  type OAuthClientInput,
  type OAuthClientsApi,
  type OAuthClientView,
  type OAuthOptions,
  type OAuthSettings,
  type TokenAuthMethod,
} from "./oauth/index.js";
export type { OptionsTarget } from "./props.js";
export {
  type PublishInput,
  parseComponentKey,
  type RegistryApi,
  type RegistryListOptions,
  type Visibility,
} from "./registry.js";
export {
  declaredRanges,
  type ImportedComponent,
  type PackageImport,
  packageComponentFiles,
  parsePackageSpec,
} from "./registry-import.js";
export { componentApp, matchesSearch, type RegistrySearch } from "./registry-search.js";
export { REPLAY_BATCH, REPLAY_SCAN, type ReplayOptions, type ReplayResult } from "./replay.js";
export {
  DEFAULT_RETAINED_EVENT_BYTES,
  DEFAULT_RETAINED_EVENTS,
  DEFAULT_RETAINED_EXECUTIONS,
  DEFAULT_RETAINED_LOG_BYTES,
  DEFAULT_RETAINED_LOGS,
  DEFAULT_RETENTION_INTERVAL_MS,
  type RetentionOptions,
} from "./retention.js";
export { createSecretBox, type SecretBox } from "./secrets.js";
export type { SourcesApi } from "./sources.js";
export {
  type CodeInput,
  DEFAULT_ENGINE_LIMITS,
  type DeployInput,
  type EngineLimits,
  type EngineWorkerOptions,
  type HooklineOptions,
  type IngressResponse,
  type IngressTarget,
  type RefusedEmits,
  type RunSummary,
  type UpdateInput,
} from "./types.js";
export type { AccountView, ComponentView, SourceView } from "./views.js";
export { TEST_EVENT_NAME, type WebhookTestResult } from "./webhook-test.js";
export {
  checkWebhookUrl,
  type DeliveryView,
  SECRET_ROTATION_OVERLAP_MS,
  type SubscriptionsApi,
  type WebhookInput,
  type WebhookResult,
  type WebhooksApi,
  type WebhookView,
} from "./webhooks.js";
export type { ErrorsEventBody } from "./workflows/errors-event.js";
export type {
  BulkReplayOptions,
  BulkReplayResult,
  EnvApi,
  EnvVarView,
  ExecutionReplayOptions,
  ExecutionView,
  ListOptions as WorkflowListOptions,
  RunWorkflowOptions,
  SettingKey as WorkflowSettingKey,
  TestRunOptions,
  WorkflowsApi,
  WorkflowTriggerView,
  WorkflowUpdate,
  WorkflowView,
} from "./workflows/types.js";
export {
  type ApiKeysApi,
  type Authenticated,
  LAST_USED_PRECISION_MS,
  type WorkspacesApi,
} from "./workspaces.js";
