/**
 * The destinations of `pd serve`: where workflows' `$.send.email` and `$.send.s3` go, read from the
 * `HOOKLINE_SMTP_*`, `HOOKLINE_EMAIL_*` and `HOOKLINE_S3_*` variables (docs/cli.md lists them).
 */
import type { Destinations } from "@hookline/engine";
import { CliError } from "./_output.js";

/**
 * Builds the destinations with `destinationsFromEnv` (passed in: the engine is imported lazily); a
 * misconfigured variable is a `usage` error naming it.
 * @internal
 */
export function _serveDestinations(
  env: NodeJS.ProcessEnv,
  fromEnv: (env: NodeJS.ProcessEnv) => Destinations,
): Destinations {
  try {
    return fromEnv(env);
  } catch (error) {
    if ((error as { code?: unknown }).code === "validation_failed") {
      throw new CliError("usage", (error as Error).message, (error as { details?: unknown }).details);
    }
    throw error;
  }
}

/** The banner line on destinations: which are on, and how to turn on the others. @internal */
export function _destinationsLine(destinations: Destinations): string {
  const on: string[] = [];
  const off: string[] = [];
  if (destinations.email) on.push("$.send.email (SMTP)");
  else off.push("$.send.email: set HOOKLINE_SMTP_URL and HOOKLINE_EMAIL_FROM");
  if (destinations.s3) on.push("$.send.s3");
  else off.push("$.send.s3: set HOOKLINE_S3_ACCESS_KEY_ID, _SECRET_ACCESS_KEY and _BUCKET");
  const head = on.length > 0 ? on.join(", ") : "no email or S3 destination";
  return off.length > 0 ? `${head} (${off.join("; ")})` : head;
}
