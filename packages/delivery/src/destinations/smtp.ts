/**
 * The default email destination: SMTP through nodemailer, to the one server the operator configured.
 */
import type { Transporter } from "nodemailer";
import {
  asList,
  ConfigCheck,
  checkTimeout,
  headerValue,
  parseAddresses,
  type SettingNames,
} from "./config.js";
import type { DestinationContext, EmailDestination, EmailSendResult } from "./destinations.js";
import { DestinationError, describeCause, invalidSend } from "./errors.js";
import type { EmailMessage } from "./messages.js";

/** Default time limit of each SMTP stage (connecting, the greeting, each reply): 30 seconds. */
export const DEFAULT_SMTP_TIMEOUT_MS = 30_000;

/**
 * Query parameters the SMTP URL may carry: nodemailer's SMTP options that keep the connection on
 * the configured host (`service`, `direct` or `proxy` could send it elsewhere, so they are refused).
 */
export const SMTP_URL_OPTIONS: readonly string[] = [
  "pool",
  "maxConnections",
  "maxMessages",
  "requireTLS",
  "ignoreTLS",
  "name",
  "authMethod",
  "tls.rejectUnauthorized",
  "tls.servername",
  "tls.minVersion",
];

/** Options of {@link createSmtpDestination}. */
export interface SmtpDestinationOptions {
  /**
   * The SMTP server: `smtp://user:pass@host:587` (STARTTLS when the server offers it) or
   * `smtps://user:pass@host:465` (TLS from the start); percent-encode special characters in the
   * user and password. Query parameters among {@link SMTP_URL_OPTIONS} are passed to nodemailer,
   * such as `?requireTLS=true` or `?tls.rejectUnauthorized=false` (a self-signed server). The
   * connections are pooled (`?pool=false` opens one per message).
   */
  url: string;
  /** The sender, such as `Hookline <hookline@example.com>`. Messages cannot change it. */
  from: string;
  /** Where a message without `to` goes (Pipedream sends to the account owner): one or more addresses. */
  to?: string | string[];
  /**
   * Whom a message's own `to` may name: addresses, `@example.com` for a whole domain, or `*` for
   * anyone. Without it, a message that gives `to` is refused (`invalid_send`): a server shared by
   * several workspaces should not be an open relay.
   */
  allowedRecipients?: string[];
  /** Time limit of each SMTP stage, in milliseconds. Defaults to {@link DEFAULT_SMTP_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** Who may be named in a message's `to`. */
function recipientMatcher(allowed: string[]): (address: string) => boolean {
  const entries = new Set(allowed.map((entry) => entry.trim().toLowerCase()));
  return (address) => {
    const lower = address.toLowerCase();
    return entries.has("*") || entries.has(lower) || entries.has(lower.slice(lower.lastIndexOf("@")));
  };
}

/** The host of `url`, recording what is wrong with it. */
function checkUrl(check: ConfigCheck, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    check.add("url", "must be a URL such as smtp://user:pass@smtp.example.com:587");
    return "";
  }
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") {
    check.add("url", `must start with smtp:// or smtps://, not ${parsed.protocol}//`);
  }
  if (!parsed.hostname) check.add("url", "has no host");
  for (const key of new Set(parsed.searchParams.keys())) {
    if (!SMTP_URL_OPTIONS.includes(key)) {
      check.add(
        "url",
        `has an unsupported option ${JSON.stringify(key)} (supported: ${SMTP_URL_OPTIONS.join(", ")})`,
      );
    }
  }
  return parsed.hostname.replace(/^\[|\]$/g, "");
}

/**
 * Creates the nodemailer transport of `url` on first use: nodemailer is imported then, so a
 * server that sends no email does not load it (it adds a noticeable part of a cold start).
 */
async function openTransport(url: string, host: string, timeoutMs: number): Promise<Transporter> {
  const [{ createTransport }, { parseConnectionUrl }] = await Promise.all([
    import("nodemailer"),
    import("nodemailer/lib/shared"),
  ]);
  return createTransport({
    pool: true,
    ...parseConnectionUrl(url),
    // The host comes from the URL and nowhere else; nodemailer never reads files or URLs for us.
    host,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}

// nodemailer's errors: `responseCode` when the server answered, `code` (`ECONNECTION`, `EAUTH`...).
interface SmtpFailure extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

/** The {@link DestinationError} of a failed send. */
function sendFailure(error: unknown): DestinationError {
  const failure = error as SmtpFailure;
  const cause = describeCause(error);
  if (typeof failure.responseCode === "number") {
    const status = failure.responseCode;
    const response = (failure.response ?? failure.message).slice(0, 500);
    return new DestinationError(
      "destination_rejected",
      `The SMTP server refused the message${failure.command ? ` at ${failure.command}` : ""}: ${response}`,
      {
        destination: "email",
        retryable: status >= 400 && status < 500,
        status,
        response,
        smtp_code: failure.code,
      },
      { cause: error },
    );
  }
  const local =
    failure.code === undefined || /^E(CONNECTION|TIMEDOUT|SOCKET|DNS|TLS|CONNREFUSED)$/.test(failure.code);
  return new DestinationError(
    local ? "destination_unreachable" : "destination_rejected",
    local
      ? `The SMTP server could not be reached: ${cause}`
      : `The SMTP server refused the message: ${cause}`,
    { destination: "email", retryable: local, cause, smtp_code: failure.code },
    { cause: error },
  );
}

/**
 * Creates the default `$.send.email` destination: SMTP through nodemailer to the server of `url`
 * (and no other host), from `from`, to the message's `to` when `allowedRecipients` allows it, or
 * else to `to`. Each message carries `X-Hookline-Workflow`, `X-Hookline-Execution` and
 * `X-Hookline-Step` headers.
 *
 * Failures are {@link DestinationError}s: `destination_rejected` when the server answers with an
 * error (`details.status` is its reply code; `retryable` for a 4xx), `destination_unreachable`
 * when it cannot be reached, `invalid_send` for a recipient the server does not allow.
 *
 * @param options - The server, the sender and the recipients.
 * @param names - How to name each option in configuration errors (the CLI passes env names).
 * @returns The destination; `close()` ends its pooled connections.
 * @throws `validation_failed` naming each wrong option.
 * @example
 * ```ts
 * const email = createSmtpDestination({
 *   url: "smtps://hookline:secret@smtp.example.com:465",
 *   from: "Hookline <hookline@example.com>",
 *   to: "ops@example.com",
 * });
 * const hookline = createHookline({ destinations: { email } });
 * ```
 */
export function createSmtpDestination(
  options: SmtpDestinationOptions,
  names?: SettingNames,
): Required<EmailDestination> {
  const check = new ConfigCheck("The email destination", names);
  const timeoutMs = checkTimeout(check, options.timeoutMs, DEFAULT_SMTP_TIMEOUT_MS);
  if (typeof options.url !== "string" || options.url === "") check.add("url", "is required", "required");
  const host = typeof options.url === "string" && options.url ? checkUrl(check, options.url) : "";
  if (typeof options.from !== "string" || options.from === "") check.add("from", "is required", "required");
  else if (parseAddresses(options.from)?.length !== 1) {
    check.add("from", "must be one email address, such as Hookline <hookline@example.com>");
  }
  const defaults: string[] = [];
  for (const entry of asList(options.to)) {
    const addresses = parseAddresses(entry);
    if (addresses) defaults.push(...addresses);
    else check.add("to", `has ${JSON.stringify(entry)}, which is not an email address`);
  }
  const allowed = options.allowedRecipients ?? [];
  for (const entry of allowed) {
    if (entry !== "*" && !/^@[^\s@]+$/.test(entry) && parseAddresses(entry)?.length !== 1) {
      check.add("allowedRecipients", `has ${JSON.stringify(entry)}: use an address, @domain or *`);
    }
  }
  check.throwIfAny();
  const isAllowed = recipientMatcher(allowed);
  let transporter: Promise<Transporter> | undefined;

  /** The recipients of `message`, or `invalid_send` naming the one not allowed. */
  function recipients(message: EmailMessage): string[] {
    if (message.to === undefined) {
      if (defaults.length > 0) return defaults;
      throw invalidSend("email", [
        {
          code: "required",
          path: "to",
          message: `to is required: this server has no default recipient (${check.name("to")})`,
        },
      ]);
    }
    const list: string[] = [];
    const problems = asList(message.to).flatMap((entry, i) => {
      const path = Array.isArray(message.to) ? `to.${i}` : "to";
      const addresses = parseAddresses(entry);
      if (!addresses) return [{ code: "invalid_value", path, message: `${path} is not an email address` }];
      const refused = addresses.find((address) => !isAllowed(address));
      if (refused) {
        const how = allowed.length === 0 ? "does not let messages choose recipients" : "does not send to it";
        return [
          {
            code: "invalid_value",
            path,
            message: `${path} names ${refused}, and this server ${how} (${check.name("allowedRecipients")})`,
          },
        ];
      }
      list.push(entry);
      return [];
    });
    if (problems.length > 0) throw invalidSend("email", problems);
    return list;
  }

  return {
    async send(message: EmailMessage, context: DestinationContext): Promise<EmailSendResult> {
      const to = recipients(message);
      const mail = {
        from: options.from,
        to,
        subject: message.subject,
        ...(message.text === undefined ? {} : { text: message.text }),
        ...(message.html === undefined ? {} : { html: message.html }),
        headers: {
          "X-Hookline-Workflow": headerValue(context.workflowId),
          "X-Hookline-Execution": headerValue(context.executionId),
          "X-Hookline-Step": headerValue(context.stepName),
        },
        // nodemailer >= 10.5 honours an AbortSignal per message.
        ...(context.signal ? { signal: context.signal } : {}),
      };
      let info: { messageId?: string; accepted?: unknown[]; rejected?: unknown[]; response?: string };
      try {
        transporter ??= openTransport(options.url, host, timeoutMs);
        info = await (await transporter).sendMail(mail);
      } catch (error) {
        if (context.signal?.aborted) throw context.signal.reason;
        throw sendFailure(error);
      }
      const text = (list: unknown[] = []) =>
        list.map((entry) => (typeof entry === "string" ? entry : (entry as { address: string }).address));
      return {
        messageId: info.messageId ?? "",
        accepted: text(info.accepted),
        rejected: text(info.rejected),
        response: info.response ?? "",
      };
    },
    async close() {
      (await transporter)?.close();
    },
  };
}
