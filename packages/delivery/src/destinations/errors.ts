import { describeProblemMessages, type ErrorCode, HooklineError, type Problem } from "@hookline/core";

/** The destinations a workflow step can send to through `$.send.*`. */
export type DestinationKind = "email" | "s3";

/** What every {@link DestinationError} carries in `details` (so it survives serialization). */
export interface DestinationErrorDetails {
  /** Which destination failed. */
  destination: DestinationKind;
  /** Whether trying again later may succeed (a 4xx SMTP reply, an S3 5xx, a refused connection). */
  retryable: boolean;
  /** `invalid_send`: what is wrong, one problem per field. */
  problems?: Problem[];
  /** More, per code: `settings`, `status`, `response`, `s3_code`, `cause`, `field`, `limit`. */
  [key: string]: unknown;
}

/**
 * The error of a `$.send.email` or `$.send.s3` that did not go out. It is a `HooklineError`
 * (its `name` stays `"HooklineError"`, so `isHooklineError` recognises it) whose `details` say
 * which destination failed and whether a retry may help; the workflow engine records it as the
 * step's error. Codes:
 *
 * - `invalid_send` (422): the message has the wrong shape, or names a recipient or bucket the
 *   server does not allow; `details.problems` names each field.
 * - `payload_too_large` (413): a field is over its size cap ({@link DESTINATION_LIMITS}).
 * - `destination_not_configured` (501): this server has no such destination; `details.settings`
 *   names what to set.
 * - `destination_rejected` (502): the SMTP server or the S3 endpoint answered with an error;
 *   `details.status` is its reply code.
 * - `destination_unreachable` (502): no answer (refused connection, DNS, timeout, SSRF guard).
 *
 * @example
 * ```ts
 * try {
 *   await sendToDestination(destinations, "email", payload, context);
 * } catch (error) {
 *   if (error instanceof DestinationError && error.retryable) scheduleRetry();
 * }
 * ```
 */
export class DestinationError extends HooklineError {
  /** Which destination failed. */
  readonly destination: DestinationKind;
  /** Whether trying again later may succeed. */
  readonly retryable: boolean;
  declare readonly details: DestinationErrorDetails;

  /**
   * @param code - One of the destination codes listed above.
   * @param message - For people; names the field or the setting.
   * @param details - At least `destination` and `retryable`.
   * @param options - The underlying error, as `cause`.
   */
  constructor(
    code: ErrorCode,
    message: string,
    details: DestinationErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(code, message, details, options);
    this.destination = details.destination;
    this.retryable = details.retryable;
  }
}

/** How each destination is enabled, for the `destination_not_configured` message. */
const SETTINGS: Record<DestinationKind, { env: string[]; option: string }> = {
  email: { env: ["HOOKLINE_SMTP_URL", "HOOKLINE_EMAIL_FROM", "HOOKLINE_EMAIL_TO"], option: "email" },
  s3: {
    env: ["HOOKLINE_S3_ACCESS_KEY_ID", "HOOKLINE_S3_SECRET_ACCESS_KEY", "HOOKLINE_S3_BUCKET"],
    option: "s3",
  },
};

/** `destination_not_configured` for `kind`, naming the settings that enable it. */
export function notConfigured(kind: DestinationKind): DestinationError {
  const { env, option } = SETTINGS[kind];
  return new DestinationError(
    "destination_not_configured",
    `$.send.${kind} is not configured on this server: set ${env.join(", ")} ` +
      `(or pass destinations.${option} to the server)`,
    { destination: kind, retryable: false, settings: env, option: `destinations.${option}` },
  );
}

/** `invalid_send` for `kind` with its problems, the first one in the message. */
export function invalidSend(kind: DestinationKind, problems: Problem[]): DestinationError {
  const summary = describeProblemMessages(problems);
  return new DestinationError("invalid_send", `Invalid $.send.${kind}(): ${summary}`, {
    destination: kind,
    retryable: false,
    problems,
  });
}

/** The text of an error, its code first when it has one (`ECONNREFUSED: connect ...`). */
export function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && !error.message.includes(code)
    ? `${code}: ${error.message}`
    : error.message;
}
