import { type DestinationKind, notConfigured } from "./errors.js";
import { type EmailMessage, parseEmailMessage, parseS3Message, type S3Message } from "./messages.js";

/** Who is sending: the workflow step a `$.send.*` call comes from. */
export interface DestinationContext {
  /** The workspace of the workflow. */
  workspaceId: string;
  /** The workflow (`p_...`). */
  workflowId: string;
  /** The execution (`exe_...`). */
  executionId: string;
  /** The step's name. */
  stepName: string;
  /** Aborts the send (the step was cancelled or timed out). */
  signal?: AbortSignal;
}

/** What an email destination reports once the server took the message. */
export interface EmailSendResult {
  /** The `Message-ID` of the mail sent. */
  messageId: string;
  /** Recipients the server accepted. */
  accepted: string[];
  /** Recipients the server refused (the mail went to the others). */
  rejected: string[];
  /** The server's last reply, such as `250 OK: queued as 1234`. */
  response: string;
}

/** What an S3 destination reports once the object is stored. */
export interface S3SendResult {
  /** The bucket written to. */
  bucket: string;
  /** The object's key: `<prefix><timestamp>-<uuid>.json`. */
  key: string;
  /** The object's URL on the endpoint (not necessarily public). */
  url: string;
  /** The `ETag` the endpoint answered with, when it sent one. */
  etag?: string;
  /** The object's size in bytes. */
  size: number;
}

/** Sends `$.send.email` messages. {@link createSmtpDestination} is the default; any object with `send` works. */
export interface EmailDestination {
  /**
   * Sends one checked message (see {@link sendToDestination}, which checks it). Throws a
   * {@link DestinationError} when it cannot.
   */
  send(message: EmailMessage, context: DestinationContext): Promise<EmailSendResult>;
  /** Releases connections; called once when the server stops. */
  close?(): Promise<void> | void;
}

/** Stores `$.send.s3` payloads. {@link createS3Destination} is the default; any object with `send` works. */
export interface S3Destination {
  /**
   * Stores one checked message (see {@link sendToDestination}) whose payload is already serialized
   * as `body` (JSON, UTF-8). Throws a {@link DestinationError} when it cannot.
   */
  send(message: S3Message & { body: Buffer }, context: DestinationContext): Promise<S3SendResult>;
  /** Releases connections; called once when the server stops. */
  close?(): Promise<void> | void;
}

/**
 * The destinations of one server, as `createHookline({ destinations })` and `pd serve` take them. A
 * missing one makes its `$.send.*` fail the step with `destination_not_configured`.
 */
export interface Destinations {
  /** Where `$.send.email` goes. */
  email?: EmailDestination;
  /** Where `$.send.s3` goes. */
  s3?: S3Destination;
}

/** The result of {@link sendToDestination}, per destination. */
export interface SendResults {
  email: EmailSendResult;
  s3: S3SendResult;
}

/**
 * Sends what a workflow step passed to `$.send.email(...)` or `$.send.s3(...)`: checks its shape
 * and size (`invalid_send`, `payload_too_large`), fails with `destination_not_configured` when the
 * server has no such destination, then hands the checked message to it. This is the one call the
 * workflow engine makes; every failure is a {@link DestinationError} with a stable code.
 *
 * @param destinations - The server's destinations.
 * @param kind - `"email"` or `"s3"`.
 * @param payload - The argument of the `$.send.*` call, unchecked.
 * @param context - The step sending.
 * @returns What the destination reports.
 * @example
 * ```ts
 * const destinations = destinationsFromEnv(process.env);
 * const sent = await sendToDestination(destinations, "s3", { bucket: "logs", prefix: "runs/", payload: { ok: true } }, {
 *   workspaceId: "ws_1", workflowId: "p_1", executionId: "exe_1", stepName: "store",
 * });
 * console.log(sent.key); // runs/20260102T030405.678Z-<uuid>.json
 * ```
 */
export async function sendToDestination<K extends DestinationKind>(
  destinations: Destinations,
  kind: K,
  payload: unknown,
  context: DestinationContext,
): Promise<SendResults[K]> {
  if (kind === "email") {
    const message = parseEmailMessage(payload);
    if (!destinations.email) throw notConfigured("email");
    return (await destinations.email.send(message, context)) as SendResults[K];
  }
  if (kind !== "s3") throw new TypeError(`No destination kind ${JSON.stringify(kind)} (email or s3)`);
  const { message, body } = parseS3Message(payload);
  if (!destinations.s3) throw notConfigured("s3");
  return (await destinations.s3.send({ ...message, body }, context)) as SendResults[K];
}

/**
 * Closes every destination that has a `close()` (their SMTP pools and HTTP agents).
 *
 * @example
 * ```ts
 * await closeDestinations(destinations);
 * ```
 */
export async function closeDestinations(destinations: Destinations): Promise<void> {
  await Promise.all([destinations.email?.close?.(), destinations.s3?.close?.()]);
}
