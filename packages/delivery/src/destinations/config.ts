/**
 * Checking a destination's configuration. Each problem names the setting as the operator wrote it:
 * an option (`url`) for the library, an environment variable (`HOOKLINE_SMTP_URL`) for `pd serve`,
 * through the names a caller passes.
 */
import { describeProblemMessages, HooklineError, type Problem } from "@hookline/core";
import addressparser from "nodemailer/lib/addressparser";

/** Display names of option keys: `{ url: "HOOKLINE_SMTP_URL" }`. A key without one shows as itself. */
export type SettingNames = Readonly<Record<string, string>>;

/** Collects configuration problems and throws them together. */
export class ConfigCheck {
  readonly problems: Problem[] = [];

  /**
   * @param what - What is configured, for the message (`"The email destination"`).
   * @param names - How to show each option key.
   */
  constructor(
    private readonly what: string,
    private readonly names: SettingNames = {},
  ) {}

  /** The name to show for option `key`. */
  name(key: string): string {
    return this.names[key] ?? key;
  }

  /** Records that `key` is wrong; `message` follows its name. */
  add(key: string, message: string, code = "invalid_value"): void {
    const path = this.name(key);
    this.problems.push({ code, path, message: `${path} ${message}` });
  }

  /** Throws `validation_failed` with every problem, when there is one. */
  throwIfAny(): void {
    if (this.problems.length === 0) return;
    const summary = describeProblemMessages(this.problems);
    throw new HooklineError("validation_failed", `${this.what} is misconfigured: ${summary}`, {
      problems: this.problems,
    });
  }
}

const BARE_ADDRESS = /^[^\s@<>",]+@[^\s@<>",]+$/;

/**
 * The bare addresses in `text` (`"Ops <ops@example.com>, dev@example.com"` gives both), or
 * undefined when one of them is not an address.
 */
export function parseAddresses(text: string): string[] | undefined {
  const addresses = addressparser(text, { flatten: true }).map((entry) => entry.address);
  if (addresses.length === 0 || !addresses.every((address) => BARE_ADDRESS.test(address))) return undefined;
  return addresses;
}

/** A list option given as one string or several: always a list. */
export function asList(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  return typeof value === "string" ? [value] : [...value];
}

/** A positive timeout in milliseconds, or the default. */
export function checkTimeout(check: ConfigCheck, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    check.add("timeoutMs", "must be a positive number of milliseconds");
  return value;
}

/** A header value made of an id or a step name, kept to printable ASCII (never a line break). */
export function headerValue(value: string): string {
  return String(value)
    .replace(/[^\x21-\x7e]/g, "")
    .slice(0, 200);
}
