/**
 * `/metrics` of `pd serve`: off unless the operator chooses how a scraper reaches it, either on the
 * API's listener behind a token of its own (`--metrics-token`, HOOKLINE_METRICS_TOKEN) or on a
 * listener of its own with no token (`--metrics-listen host:port`, HOOKLINE_METRICS_LISTEN), for
 * an address only the scraper reaches. docs/operations.md, "Metrics".
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Hookline } from "@hookline/engine";
import type { HandlerOptions } from "@hookline/http";
import type { HooklineMetrics } from "@hookline/http/metrics";
import type { StatementObserver } from "@hookline/store-sql";
import type { ParsedArgs } from "./_args.js";
import { _str } from "./_args.js";
import { CliError } from "./_output.js";

/** The `parseArgs` specs of the metrics flags. */
export const METRICS_OPTIONS = {
  "metrics-token": { type: "string" },
  "metrics-listen": { type: "string" },
} as const;

/** How `/metrics` is served; undefined when it is off. */
export interface MetricsSettings {
  token?: string;
  listen?: { host: string; port: number };
}

/** Reads the metrics flags; a bad value is a `usage` error naming the flag. @internal */
export function readMetricsSettings(args: ParsedArgs, env: NodeJS.ProcessEnv): MetricsSettings | undefined {
  const token = _str(args, "metrics-token") ?? (env.HOOKLINE_METRICS_TOKEN || undefined);
  const listenText = _str(args, "metrics-listen") ?? (env.HOOKLINE_METRICS_LISTEN || undefined);
  if (token !== undefined && token.length < 16) {
    throw new CliError("usage", "--metrics-token: use at least 16 characters (a random string)");
  }
  let listen: MetricsSettings["listen"];
  if (listenText !== undefined) {
    const match = /^(?:(.+):)?(\d{1,5})$/.exec(listenText.trim());
    const port = Number(match?.[2]);
    if (!match || port > 65535) {
      throw new CliError(
        "usage",
        `--metrics-listen ${JSON.stringify(listenText)}: expected host:port or a port, such as 127.0.0.1:9464`,
      );
    }
    listen = { host: (match[1] ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1"), port };
  }
  return token || listen ? { ...(token ? { token } : {}), ...(listen ? { listen } : {}) } : undefined;
}

/**
 * What `timedClient` reports to before the metrics exist (the store opens first): statements in
 * flight are counted here, durations forwarded once `to` is set. @internal
 */
export function statementSink(): StatementObserver & { to?: HooklineMetrics; inFlight: number } {
  const sink: StatementObserver & { to?: HooklineMetrics; inFlight: number } = {
    inFlight: 0,
    observeStatement: (durationMs, failed) => sink.to?.observeStatement(durationMs, failed),
    statementsInFlight: {
      inc: () => {
        sink.inFlight++;
      },
      dec: () => {
        sink.inFlight--;
      },
    },
  };
  return sink;
}

/** The metrics of a running server, wired to the handler and, when asked, a listener of their own. @internal */
export async function startMetrics(
  hookline: Hookline,
  settings: MetricsSettings,
  store: {
    sink?: ReturnType<typeof statementSink>;
    pool?: { totalCount: number; idleCount: number; waitingCount: number };
  },
): Promise<{
  metrics: HooklineMetrics;
  handler: Pick<HandlerOptions, "metrics">;
  server?: Server;
  line: string;
}> {
  const { createMetrics, metricsHandler } = await import("@hookline/http/metrics");
  const { sink, pool } = store;
  const metrics = createMetrics(hookline, {
    ...(sink ? { statementsInFlight: () => sink.inFlight } : {}),
    ...(pool
      ? { pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }) }
      : {}),
  });
  if (sink) sink.to = metrics;
  const lines: string[] = [];
  const handler: Pick<HandlerOptions, "metrics"> = {};
  if (settings.token) {
    handler.metrics = { source: metrics, token: settings.token };
    lines.push("/metrics on the API's address (Authorization: Bearer <metrics token>)");
  }
  let server: Server | undefined;
  if (settings.listen) {
    const { toNodeListener } = await import("@hookline/http/node");
    const { host, port } = settings.listen;
    const own = createServer(toNodeListener(metricsHandler(metrics)));
    server = own;
    await new Promise<void>((ok, fail) => {
      own.once("error", (error: NodeJS.ErrnoException) =>
        fail(
          error.code === "EADDRINUSE"
            ? new CliError("address_in_use", `--metrics-listen ${host}:${port} is already in use`)
            : error,
        ),
      );
      own.listen(port, host, ok);
    });
    const address = own.address() as AddressInfo;
    const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
    lines.push(`http://${shown}:${address.port}/metrics (no token: keep this address private)`);
  }
  return { metrics, handler, ...(server ? { server } : {}), line: lines.join("; ") };
}
