/**
 * The logs of `pd serve` (pino, on stderr): one line per request and one per event an operator
 * acts on (a webhook disabled, a circuit opened, an OAuth refresh failed, a sandbox thread
 * replaced, a delivery refused by the SSRF guard), each with `request_id`, `workspace_id` and
 * `emitter_id` where they apply. `--log-format json|pretty` and `--log-level` choose the shape and
 * the floor. docs/operations.md, "Logs", shows them.
 */
import type { Hookline, HooklineEvents } from "@hookline/engine";
import type { RequestInfo, RequestObserver } from "@hookline/http";
import type { Logger } from "pino";
import type { ParsedArgs } from "./_args.js";
import { _str } from "./_args.js";
import { CliError } from "./_output.js";

/** The log levels `--log-level` takes. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** How `pd serve` logs. */
export interface LogSettings {
  format: "json" | "pretty";
  level: (typeof LOG_LEVELS)[number];
}

/** The `parseArgs` specs of the log flags. */
export const LOG_OPTIONS = {
  "log-format": { type: "string" },
  "log-level": { type: "string" },
} as const;

/**
 * Reads `--log-format` (HOOKLINE_LOG_FORMAT; default `pretty` on a terminal, `json` otherwise) and
 * `--log-level` (HOOKLINE_LOG_LEVEL; default `info`). @internal
 */
export function readLogSettings(args: ParsedArgs, env: NodeJS.ProcessEnv, tty: boolean): LogSettings {
  const format = _str(args, "log-format") ?? env.HOOKLINE_LOG_FORMAT ?? (tty ? "pretty" : "json");
  if (format !== "json" && format !== "pretty") {
    throw new CliError("usage", `--log-format ${JSON.stringify(format)}: expected json or pretty`);
  }
  const level = _str(args, "log-level") ?? env.HOOKLINE_LOG_LEVEL ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new CliError(
      "usage",
      `--log-level ${JSON.stringify(level)}: expected one of ${LOG_LEVELS.join(", ")}`,
    );
  }
  return { format, level: level as LogSettings["level"] };
}

/** The server's logger on stderr, and how to flush it before the process exits. @internal */
export async function createServeLogger(settings: LogSettings): Promise<{ logger: Logger; flush(): void }> {
  const { pino } = await import("pino");
  const options = { level: settings.level, base: { pid: process.pid }, messageKey: "msg" };
  if (settings.format === "pretty") {
    const { default: pretty } = await import("pino-pretty");
    const stream = pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY === true });
    return { logger: pino(options, stream), flush: () => undefined };
  }
  // Written asynchronously (the request path never waits on stderr); flushed at exit.
  const destination = pino.destination({ dest: 2, sync: false });
  return { logger: pino(options, destination), flush: () => destination.flushSync() };
}

/** Health probes and scrapes are logged at debug: a load balancer calls them every few seconds. */
const QUIET_ROUTES = new Set(["/healthz", "/readyz", "/metrics"]);

/** The handler observer that writes one line per request. @internal */
export function requestLog(logger: Logger): RequestObserver {
  return (info: RequestInfo) => {
    const level = QUIET_ROUTES.has(info.route) ? "debug" : info.status >= 500 ? "error" : "info";
    if (!logger.isLevelEnabled(level)) return;
    logger[level](
      {
        request_id: info.requestId,
        method: info.method,
        path: info.path,
        route: info.route,
        status: info.status,
        duration_ms: Math.round(info.durationMs * 100) / 100,
        ...(info.workspaceId ? { workspace_id: info.workspaceId } : {}),
        ...(info.emitterId ? { emitter_id: info.emitterId } : {}),
        ...(info.limited ? { rate_limited: info.limited } : {}),
      },
      "request",
    );
  };
}

/** What an SSRF refusal says once per webhook: how to let it through and send it again. */
const ssrfAdvice = (webhookId: string): string =>
  "a loopback or private address; allow it by restarting with --dev (loopback), --allow-url <host or CIDR> " +
  `or --allow-private-urls, then send the refused deliveries again: pd webhooks recover ${webhookId}` +
  " (further refusals for this webhook are not logged)";

/** Writes a line for each engine event an operator acts on. @internal */
export function logEngineEvents(hookline: Hookline, logger: Logger): void {
  const refused = new Set<string>();
  const attempt = ({ delivery, error, webhookDisabled, circuitOpenUntil }: HooklineEvents["attempt"]) => {
    const fields = {
      workspace_id: delivery.workspaceId,
      emitter_id: delivery.emitterId,
      webhook_id: delivery.webhook?.id ?? delivery.webhookId,
      delivery_id: delivery.id,
    };
    if (webhookDisabled === "secret_undecryptable") {
      logger.error(
        { ...fields, reason: webhookDisabled, url: delivery.webhook.url },
        "webhook disabled: its signing secret could not be decrypted with this server's secrets key " +
          "(HOOKLINE_SECRETS_KEY, or secrets.key in the data folder); its deliveries wait paused. Start the " +
          `server with the key the secret was encrypted with, then: pd webhooks update ${fields.webhook_id} --enable`,
      );
    } else if (webhookDisabled) {
      logger.warn({ ...fields, reason: webhookDisabled }, "webhook disabled");
    }
    if (circuitOpenUntil !== undefined) {
      logger.warn({ ...fields, until: new Date(circuitOpenUntil).toISOString(), error }, "circuit opened");
    }
    if (error === "ssrf_blocked" && !refused.has(fields.webhook_id)) {
      refused.add(fields.webhook_id);
      logger.warn(
        { ...fields, error, url: delivery.webhook?.url },
        `delivery refused by the SSRF guard: ${ssrfAdvice(fields.webhook_id)}`,
      );
    }
  };
  hookline.events.on("attempt", attempt);
  hookline.events.on("account", (e) => {
    if (e.change !== "needs_reconnect" && e.change !== "refresh_failed") return;
    logger.warn(
      { workspace_id: e.workspaceId, account_id: e.accountId, app: e.app, reason: e.reason },
      e.change === "needs_reconnect"
        ? "OAuth refresh refused: the account needs to be reconnected"
        : "OAuth refresh failed: the current token is kept",
    );
  });
  hookline.events.on("sandbox", (e) => {
    logger.warn({ thread: e.thread, replaced: e.replaced }, "sandbox thread replaced");
  });
}
