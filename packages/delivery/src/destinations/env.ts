/**
 * A server's destinations from options or from environment variables (what `pd serve` reads).
 */
import { describeProblemMessages, HooklineError, type Problem } from "@hookline/core";
import type { SettingNames } from "./config.js";
import type { Destinations } from "./destinations.js";
import { createS3Destination, type S3DestinationOptions } from "./s3.js";
import { createSmtpDestination, type SmtpDestinationOptions } from "./smtp.js";

/** The default destinations' options; leave one out to leave that destination unconfigured. */
export interface DestinationsOptions {
  /** SMTP for `$.send.email`. */
  email?: SmtpDestinationOptions;
  /** S3 for `$.send.s3`. */
  s3?: S3DestinationOptions;
}

/** The environment variable of each option, as {@link destinationOptionsFromEnv} reads them. */
export const DESTINATION_ENV = {
  email: {
    url: "HOOKLINE_SMTP_URL",
    from: "HOOKLINE_EMAIL_FROM",
    to: "HOOKLINE_EMAIL_TO",
    allowedRecipients: "HOOKLINE_EMAIL_ALLOWED_TO",
    timeoutMs: "HOOKLINE_SMTP_TIMEOUT_MS",
  },
  s3: {
    endpoint: "HOOKLINE_S3_ENDPOINT",
    region: "HOOKLINE_S3_REGION",
    accessKeyId: "HOOKLINE_S3_ACCESS_KEY_ID",
    secretAccessKey: "HOOKLINE_S3_SECRET_ACCESS_KEY",
    sessionToken: "HOOKLINE_S3_SESSION_TOKEN",
    bucket: "HOOKLINE_S3_BUCKET",
    allowedBuckets: "HOOKLINE_S3_ALLOWED_BUCKETS",
    pathStyle: "HOOKLINE_S3_PATH_STYLE",
    timeoutMs: "HOOKLINE_S3_TIMEOUT_MS",
  },
} as const satisfies Record<keyof DestinationsOptions, SettingNames>;

const LISTS = new Set(["to", "allowedRecipients", "allowedBuckets"]);

/** One destination's options from `env`, or undefined when none of its variables is set. */
function fromEnv(
  names: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
  problems: Problem[],
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(names)) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    if (LISTS.has(key)) {
      out[key] = raw
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
    } else if (key === "timeoutMs") {
      out[key] = Number(raw);
      if (!/^\d+$/.test(raw)) {
        problems.push({
          code: "invalid_type",
          path: name,
          message: `${name} must be a number of milliseconds`,
        });
      }
    } else if (key === "pathStyle") {
      out[key] = raw === "true" || raw === "1";
      if (!/^(true|false|1|0)$/.test(raw)) {
        problems.push({ code: "invalid_value", path: name, message: `${name} must be true or false` });
      }
    } else out[key] = raw;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * Reads the destinations' options from environment variables ({@link DESTINATION_ENV}): email when
 * any `HOOKLINE_SMTP_*` or `HOOKLINE_EMAIL_*` variable is set, S3 when any `HOOKLINE_S3_*` is.
 * Lists (`HOOKLINE_EMAIL_TO`, `HOOKLINE_EMAIL_ALLOWED_TO`, `HOOKLINE_S3_ALLOWED_BUCKETS`) are
 * comma-separated. Empty variables count as unset.
 *
 * @param env - Usually `process.env`.
 * @returns The options, to change before {@link createDestinations}.
 * @throws `validation_failed` naming each malformed variable.
 * @example
 * ```ts
 * destinationOptionsFromEnv({ HOOKLINE_S3_BUCKET: "out", HOOKLINE_S3_ACCESS_KEY_ID: "k", HOOKLINE_S3_SECRET_ACCESS_KEY: "s" });
 * // { s3: { bucket: "out", accessKeyId: "k", secretAccessKey: "s" } }
 * ```
 */
export function destinationOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): DestinationsOptions {
  const problems: Problem[] = [];
  const email = fromEnv(DESTINATION_ENV.email, env, problems);
  const s3 = fromEnv(DESTINATION_ENV.s3, env, problems);
  if (problems.length > 0) {
    throw new HooklineError(
      "validation_failed",
      `The destinations' environment is misconfigured: ${describeProblemMessages(problems)}`,
      { problems },
    );
  }
  return {
    ...(email ? { email: email as unknown as SmtpDestinationOptions } : {}),
    ...(s3 ? { s3: s3 as unknown as S3DestinationOptions } : {}),
  };
}

/**
 * Creates the default destinations from their options: SMTP ({@link createSmtpDestination}) for
 * `email`, S3 ({@link createS3Destination}) for `s3`; one left out stays unconfigured, so its
 * `$.send.*` fails with `destination_not_configured`.
 *
 * @param options - The options of each destination to enable.
 * @param names - How to name options in errors, per destination (the env names, for the CLI).
 * @returns The destinations; close them with {@link closeDestinations}.
 * @throws `validation_failed` naming each wrong option.
 * @example
 * ```ts
 * const destinations = createDestinations({
 *   email: { url: "smtp://localhost:1025", from: "hookline@example.com", to: "me@example.com" },
 * });
 * ```
 */
export function createDestinations(
  options: DestinationsOptions,
  names: { email?: SettingNames; s3?: SettingNames } = {},
): Destinations {
  const email = options.email ? createSmtpDestination(options.email, names.email) : undefined;
  try {
    const s3 = options.s3 ? createS3Destination(options.s3, names.s3) : undefined;
    return { ...(email ? { email } : {}), ...(s3 ? { s3 } : {}) };
  } catch (error) {
    void email?.close();
    throw error;
  }
}

/**
 * The destinations `pd serve` configures: {@link destinationOptionsFromEnv} then
 * {@link createDestinations}, with errors naming the environment variables.
 *
 * @param env - Usually `process.env`.
 * @returns The destinations (none when no variable is set).
 * @throws `validation_failed` naming each wrong variable, such as `HOOKLINE_EMAIL_FROM is required`.
 * @example
 * ```ts
 * const destinations = destinationsFromEnv(process.env);
 * const hookline = createHookline({ destinations });
 * ```
 */
export function destinationsFromEnv(env: Readonly<Record<string, string | undefined>>): Destinations {
  return createDestinations(destinationOptionsFromEnv(env), DESTINATION_ENV);
}
