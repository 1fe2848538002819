/**
 * Workflow destinations: where `$.send.email` and `$.send.s3` go, with SMTP and S3 defaults.
 * @packageDocumentation
 */
export type { SettingNames } from "./config.js";
export * from "./destinations.js";
export * from "./env.js";
export { DestinationError, type DestinationErrorDetails, type DestinationKind } from "./errors.js";
export * from "./messages.js";
export * from "./s3.js";
export * from "./smtp.js";
