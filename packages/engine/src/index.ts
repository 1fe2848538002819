/**
 * The Hookline engine: the composition root that turns saved code into running sources that react
 * to HTTP requests and timers, keep state, emit deduplicated events and keep them for reading.
 * @packageDocumentation
 */
export { API_KEY_PREFIX, hashApiKey } from "./api-keys.js";
export { DEFAULT_NO_AUTH_APPS } from "./apps.js";
export { type Clock, createFakeClock, type FakeClock, systemClock } from "./clock.js";
export type { HooklineEvents } from "./events.js";
export {
  type AccountView,
  type CodeInput,
  type ComponentView,
  createHookline,
  type DeployInput,
  type EngineWorkerOptions,
  type Hookline,
  type HooklineOptions,
  type IngressResponse,
  type RunSummary,
  type SourceView,
  type UpdateInput,
} from "./hookline.js";
export type { IngressRequest } from "./http-event.js";
export {
  type PublishInput,
  parseComponentKey,
  type RegistryApi,
  type RegistryListOptions,
  type Visibility,
} from "./registry.js";
export { createSecretBox, type SecretBox } from "./secrets.js";
export {
  checkWebhookUrl,
  type DeliveryView,
  SECRET_ROTATION_OVERLAP_MS,
  type SubscriptionsApi,
  type WebhookInput,
  type WebhooksApi,
  type WebhookView,
} from "./webhooks.js";
