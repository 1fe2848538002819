/**
 * Webhook delivery for Hookline, following Standard Webhooks: signing and verification, an SSRF-guarded
 * non-redirecting HTTP transport, and the retry schedule; and the destinations of workflows'
 * `$.send.email` and `$.send.s3` (SMTP and S3 by default).
 * @packageDocumentation
 */
export * from "./destinations/index.js";
export * from "./guarded-connect.js";
export * from "./guarded-fetch.js";
export * from "./guarded-send.js";
export * from "./request-delivery.js";
export * from "./retry-schedule.js";
export * from "./signature.js";
export * from "./ssrf.js";
export * from "./transport.js";
export * from "./worker.js";
