/**
 * Webhook delivery for Hookline, following Standard Webhooks: signing and verification, an SSRF-guarded
 * non-redirecting HTTP transport, and the retry schedule; and the destinations of workflows'
 * `$.send.email` and `$.send.s3` (SMTP and S3 by default).
 * @packageDocumentation
 */
// Explicit export lists: the public API is what is named here (a new export of a module stays
// internal until it is added).
export {
  closeDestinations,
  createDestinations,
  createS3Destination,
  createSmtpDestination,
  DEFAULT_SMTP_TIMEOUT_MS,
  DESTINATION_ENV,
  DESTINATION_LIMITS,
  type DestinationContext,
  DestinationError,
  type DestinationErrorDetails,
  type DestinationKind,
  type Destinations,
  type DestinationsOptions,
  destinationOptionsFromEnv,
  destinationsFromEnv,
  type EmailDestination,
  type EmailMessage,
  EmailMessageSchema,
  type EmailSendResult,
  objectKey,
  parseEmailMessage,
  parseS3Message,
  S3_BUCKET_PATTERN,
  type S3Destination,
  type S3DestinationOptions,
  type S3Message,
  type S3MessageBody,
  S3MessageSchema,
  type S3SendResult,
  type SendResults,
  type SettingNames,
  SMTP_URL_OPTIONS,
  type SmtpDestinationOptions,
  sendToDestination,
} from "./destinations/index.js";
export {
  type ConnectRequest,
  createGuardedConnector,
  type GuardedConnector,
  type TlsOptions,
} from "./guarded-connect.js";
export {
  createGuardedFetch,
  type GuardedFetch,
  type GuardedFetchOptions,
} from "./guarded-fetch.js";
export {
  createGuardedSender,
  DEFAULT_MAX_RESPONSE_BYTES,
  type GuardedSender,
  type GuardedSendOptions,
  RequestTimeoutError,
  type SendRequest,
  type SendResponse,
} from "./guarded-send.js";
export {
  type OutgoingRequest,
  outgoingRequest,
  REQUEST_USER_AGENT,
} from "./request-delivery.js";
export {
  classifyResponse,
  DEFAULT_RETRY_JITTER,
  DEFAULT_RETRY_SCHEDULE_MS,
  MAX_RETRY_AFTER_MS,
  nextRetryDelay,
  parseRetryAfter,
  type ResponseClass,
} from "./retry-schedule.js";
export {
  DEFAULT_TOLERANCE_SECONDS,
  generateWebhookSecret,
  signPayload,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from "./signature.js";
export {
  checkUrl,
  createGuardedLookup,
  createHostChecker,
  createUrlChecker,
  type GuardedLookup,
  isPrivateAddress,
  type LookupAllCallback,
  type LookupOneCallback,
  METADATA_HOSTNAMES,
  type SsrfBlockReason,
  SsrfError,
  type SsrfGuardOptions,
} from "./ssrf.js";
export {
  createTransport,
  DEFAULT_TIMEOUT_MS,
  type PostRequest,
  type PostResult,
  type Transport,
  type TransportOptions,
} from "./transport.js";
export {
  buildPayload,
  createDeliveryWorker,
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_CIRCUIT_COOLDOWN_MS,
  DEFAULT_CIRCUIT_FAILURES,
  DEFAULT_CIRCUIT_MAX_COOLDOWN_MS,
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_DRAIN_MS,
  DEFAULT_PER_WEBHOOK_CONCURRENCY,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_SLOW_AFTER_MS,
  DEFAULT_SLOW_CONCURRENCY,
  DEFAULT_WORKER_CONCURRENCY,
  DELIVERY_USER_AGENT,
  type DeliveryAttemptReport,
  type DeliveryClock,
  type DeliveryTransport,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
  RESPONSE_EXCERPT_BYTES,
  SECRET_UNDECRYPTABLE,
  type StopOptions,
  truncateUtf8,
} from "./worker.js";
