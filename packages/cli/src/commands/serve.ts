/** `pd serve`: the whole service (REST API, HTTP interfaces, timers, delivery worker) in one process. */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Duplex } from "node:stream";
// Only types at the top: the engine loads when `pd serve` runs, so other commands start fast.
import type { Store } from "@hookline/store";
import type { StatementObserver } from "@hookline/store-sql";
import type { Logger } from "pino";
import { _flag, _int, _str, _strs } from "../_args.js";
import { defineCommand } from "../_command.js";
import { DEFAULT_DATA_DIR, URL_FILE } from "../_config.js";
import { CliError, note, out, style } from "../_output.js";
import { _npmOptions, _packagesOptions } from "../_packages.js";
import { _destinationsLine, _serveDestinations } from "../_serve-destinations.js";
import { _ensureApiKey, _writeSecret } from "../_serve-keys.js";
import {
  createServeLogger,
  LOG_OPTIONS,
  logEngineEvents,
  readLogSettings,
  requestLog,
} from "../_serve-logs.js";
import { METRICS_OPTIONS, readMetricsSettings, startMetrics, statementSink } from "../_serve-metrics.js";
import { outboundLine, readServeSettings, SETTING_OPTIONS } from "../_serve-settings.js";
import { _publishAtStart } from "../_startup-registry.js";

/** The address a client on this machine connects to: loopback for a wildcard listen. @internal */
function _connectHost(address: AddressInfo): string {
  if (address.address === "0.0.0.0") return "127.0.0.1";
  if (address.address === "::") return "[::1]";
  return address.family === "IPv6" ? `[${address.address}]` : address.address;
}

/** The secrets key: HOOKLINE_SECRETS_KEY, else `<data-dir>/secrets.key` (made once), else random. @internal */
function _secretsKey(dataDir: string | undefined): { key: string; from: string } {
  if (process.env.HOOKLINE_SECRETS_KEY)
    return { key: process.env.HOOKLINE_SECRETS_KEY, from: "HOOKLINE_SECRETS_KEY" };
  if (!dataDir) return { key: randomBytes(32).toString("base64url"), from: "random (memory store)" };
  const path = join(dataDir, "secrets.key");
  if (existsSync(path)) return { key: readFileSync(path, "utf8").trim(), from: path };
  const key = randomBytes(32).toString("base64url");
  _writeSecret(path, key);
  return { key, from: `${path} (new)` };
}

/**
 * The store: Postgres (`--database-url`/DATABASE_URL), memory (`--memory`) or PGlite in the data
 * folder; its statements timed for the metrics when `timed` is given. @internal
 */
async function _openStore(opts: {
  memory: boolean;
  databaseUrl: string | undefined;
  dataDir: string;
  timed: StatementObserver | undefined;
  logger: Logger;
}): Promise<{ store: Store; label: string; close: () => Promise<void>; pool?: import("pg").Pool }> {
  if (opts.memory) {
    const { createMemoryStore } = await import("@hookline/store");
    const store = createMemoryStore();
    return { store, label: "memory (nothing is kept)", close: () => store.close() };
  }
  if (opts.databaseUrl) {
    const sql = await import("@hookline/store-sql");
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: opts.databaseUrl });
    // An idle connection that breaks is the pool's to replace; /readyz reports an unreachable store.
    pool.on("error", (error) => opts.logger.warn({ err: error }, "Postgres connection lost"));
    const client = sql.pgPoolClient(pool);
    const store = await sql.createSqlStore(opts.timed ? sql.timedClient(client, opts.timed) : client);
    const safe = opts.databaseUrl.replace(/\/\/[^@/]*@/, "//***@");
    return {
      store,
      pool,
      label: `Postgres ${safe}`,
      close: async () => {
        await store.close();
        await pool.end();
      },
    };
  }
  const dir = join(opts.dataDir, "pglite");
  // PGlite on a thread of its own, so that its statements never hold the server's event loop. The
  // thread starts from a small entry, before the store's other modules load (PGlite opens meanwhile).
  const thread = await import("@hookline/store-sql/pglite-thread");
  const opening = thread.openPgliteThread(dir).catch((error: unknown) => {
    // Another server holds the folder (PGlite is one process): say which, and how to go on.
    if (error instanceof thread.DataDirLockedError) {
      throw new CliError("data_dir_locked", `${error.message} (--data-dir ${opts.dataDir})`);
    }
    throw error;
  });
  opening.catch(() => undefined);
  const sql = await import("@hookline/store-sql");
  const db = await opening;
  const store = await sql.createSqlStore(opts.timed ? sql.timedClient(db, opts.timed) : db);
  return {
    store,
    label: `PGlite ${dir}`,
    close: async () => {
      await store.close();
      await db.close();
    },
  };
}

export default defineCommand({
  name: "serve",
  summary: "Run the Hookline server: REST API, HTTP interfaces, timers and the delivery worker.",
  examples: [
    "pd serve --dev                     # webhooks may reach this machine (loopback)",
    "pd serve --port 4200 --data-dir ./data",
    "pd serve --memory --allow-url 10.0.0.0/8",
  ],
  usage:
    "serve [--port 4100] [--host 127.0.0.1] [--data-dir ./.hookline] [--memory] [--database-url URL] [--public-url URL] [--dev] [--allow-private-urls] [--allow-url HOST|CIDR ...] [--no-worker] [--no-api] [--no-npm] [--npm-registry URL] [--import PACKAGE]... [--no-essentials] [--log-format json|pretty] [--log-level info] [--metrics-token TOKEN] [--metrics-listen HOST:PORT] [limits: see docs/cli.md]",
  options: {
    port: { type: "string" },
    host: { type: "string" },
    "data-dir": { type: "string" },
    memory: { type: "boolean" },
    "database-url": { type: "string" },
    "public-url": { type: "string" },
    "no-worker": { type: "boolean" },
    "no-api": { type: "boolean" },
    ...SETTING_OPTIONS,
    ..._npmOptions,
    import: { type: "string", multiple: true },
    "no-essentials": { type: "boolean" },
    ...LOG_OPTIONS,
    ...METRICS_OPTIONS,
  },
  async run(args) {
    const settings = readServeSettings(args, process.env);
    const logSettings = readLogSettings(args, process.env, process.stderr.isTTY === true);
    const metricsSettings = readMetricsSettings(args, process.env);
    const { logger, flush } = await createServeLogger(logSettings);
    const sink = metricsSettings ? statementSink() : undefined;
    const port = _int(args, "port", Number(process.env.PORT ?? 4100), 0, 65535);
    const host = _str(args, "host") ?? process.env.HOST ?? "127.0.0.1";
    const memory = _flag(args, "memory");
    const databaseUrl = _str(args, "database-url") ?? (memory ? undefined : process.env.DATABASE_URL);
    const noApi = _flag(args, "no-api");
    const dataDir = memory ? undefined : resolve(_str(args, "data-dir") ?? DEFAULT_DATA_DIR);
    if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });

    // The store opens while the server's modules load (PGlite compiles its WebAssembly meanwhile):
    // a restart's two longest steps overlap. A start refused below closes it again.
    const opening = _openStore({ memory, databaseUrl, dataDir: dataDir ?? "", timed: sink, logger });
    opening.catch(() => undefined);
    const refuse = async (error: unknown): Promise<never> => {
      await opening.then((o) => o.close()).catch(() => undefined);
      throw error;
    };
    const [
      { createHookline, destinationsFromEnv },
      { createHandler },
      { onClientError, toNodeListener },
      { withUi, isUiBuilt },
    ] = await Promise.all([
      import("@hookline/engine"),
      import("@hookline/http"),
      import("@hookline/http/node"),
      import("@hookline/ui"),
    ]).catch(refuse);
    // A misconfigured destination stops the start (before the engine starts anything).
    let destinations: ReturnType<typeof _serveDestinations>;
    let npm: ReturnType<typeof _packagesOptions>;
    let secrets: ReturnType<typeof _secretsKey>;
    try {
      destinations = _serveDestinations(process.env, destinationsFromEnv);
      npm = _packagesOptions(args, join(dataDir ?? tmpdir(), dataDir ? "packages" : "hookline-packages"));
      secrets = _secretsKey(dataDir);
    } catch (error) {
      return refuse(error);
    }
    const opened = await opening;

    // Listen first so `--port 0` knows its port before the engine builds endpoint URLs.
    const listening = noApi ? undefined : await listenFirst(host, port, onClientError, () => opened.close());
    const baseUrl = (
      _str(args, "public-url") ??
      process.env.HOOKLINE_PUBLIC_URL ??
      listening?.url ??
      `http://${host}:${port}`
    ).replace(/\/+$/, "");

    const hookline = createHookline({
      ...settings.engine,
      store: opened.store,
      secretsKey: secrets.key,
      baseUrl,
      worker: _flag(args, "no-worker")
        ? false
        : {
            ...settings.engine.worker,
            onError: (error: unknown) => logger.error({ err: error }, "delivery worker error"),
          },
      packages: npm.packages,
      destinations,
    });
    logEngineEvents(hookline, logger);
    // Checks the secrets key against the store first: a node with another key refuses to start.
    await hookline.start().catch(async (error: unknown) => {
      await hookline.close().catch(() => undefined);
      await opened.close().catch(() => undefined);
      const code = (error as { code?: unknown }).code;
      if (code === "configuration_error")
        throw new CliError("secrets_key_mismatch", (error as Error).message);
      throw error;
    });
    const key = await _ensureApiKey(
      hookline,
      opened.store,
      dataDir,
      dataDir ? join(dataDir, "api-key") : undefined,
    );
    const imports = [..._strs(args, "import"), ...(process.env.HOOKLINE_IMPORT ?? "").split(",")];
    const registryLines = await _publishAtStart(hookline, {
      essentials: !_flag(args, "no-essentials"),
      imports: imports.map((spec) => spec.trim()).filter(Boolean),
      packages: npm.packages,
    });
    const served = metricsSettings
      ? await startMetrics(hookline, metricsSettings, { ...(sink ? { sink } : {}), ...opened })
      : undefined;
    const logRequest = requestLog(logger);
    const observe = served?.metrics.observer;
    // The web application at the root; /v1 and /http go to the API.
    listening?.handle(
      toNodeListener(
        withUi(
          createHandler(hookline, {
            ...settings.handler,
            ...served?.handler,
            observer: observe
              ? (info) => {
                  observe(info);
                  logRequest(info);
                }
              : logRequest,
            onError: (error, requestId) =>
              logger.error({ err: error, request_id: requestId }, "request failed"),
          }),
        ),
      ),
    );

    printStarted({
      baseUrl,
      noApi,
      uiBuilt: isUiBuilt(),
      store: opened.label,
      worker: !_flag(args, "no-worker"),
      outbound: outboundLine(settings),
      sends: _destinationsLine(destinations),
      logs: logSettings,
      metrics: served?.line,
      given: settings.given,
      npm,
      registryLines,
      key,
    });
    // `pd` run in this folder calls this server when no profile or variable names another.
    if (dataDir && listening) writeFileSync(join(dataDir, URL_FILE), `${listening.localUrl}\n`);
    stopOnSignals({
      logger,
      flush,
      hookline,
      opened,
      server: listening?.server,
      metricsServer: served?.server,
    });
    // Keep running until a signal arrives (also with --no-api, where no socket holds the loop).
    setInterval(() => undefined, 1 << 30);
    await new Promise<never>(() => undefined);
  },
});

/**
 * The API's HTTP server, listening on `host:port` before the engine starts (so that `--port 0`
 * knows its port when endpoint URLs are built); requests answer 503 until `handle` gives their
 * listener. A port in use is `address_in_use`; a failed listen closes the store (`close`).
 */
async function listenFirst(
  host: string,
  port: number,
  onClientError: (error: Error, socket: Duplex) => void,
  close: () => Promise<void>,
): Promise<{
  server: Server;
  /** The URL it is reached at as listened (`public-url` overrides it). */
  url: string;
  /** The URL a `pd` on this machine calls it at. */
  localUrl: string;
  handle(listener: (req: IncomingMessage, res: ServerResponse) => void): void;
}> {
  let listener: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    if (listener) listener(req, res);
    else res.writeHead(503).end();
  });
  // Oversized headers and malformed HTTP answered as JSON, as the API answers.
  server.on("clientError", onClientError);
  await new Promise<void>((ok, fail) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      fail(
        error.code === "EADDRINUSE"
          ? new CliError("address_in_use", `${host}:${port} is already in use; pick another with --port`)
          : error,
      ),
    );
    server.listen(port, host, ok);
  }).catch(async (error) => {
    await close();
    throw error;
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    localUrl: `http://${_connectHost(address)}:${address.port}`,
    handle: (given) => {
      listener = given;
    },
  };
}

/** What `pd serve` prints once it runs: where, with what, and the API key. */
function printStarted(s: {
  baseUrl: string;
  noApi: boolean;
  uiBuilt: boolean;
  store: string;
  worker: boolean;
  outbound: string;
  sends: string;
  logs: { format: string; level: string };
  metrics: string | undefined;
  given: string[];
  npm: { label: string; packages: { cacheDir: string } };
  registryLines: string[];
  key: Awaited<ReturnType<typeof _ensureApiKey>>;
}): void {
  const { baseUrl, key } = s;
  out(
    `${style.bold("Hookline")} ${s.noApi ? "worker running (no HTTP API)" : `listening on ${style.cyan(baseUrl)}`}`,
  );
  if (!s.noApi) {
    out(`  API:      ${baseUrl}/v1`);
    out(
      `  UI:       ${baseUrl}/sources${s.uiBuilt ? "" : " (not built: run npm run build -w @hookline/ui)"}`,
    );
  }
  out(`  Store:    ${s.store}`);
  out(`  Worker:   ${s.worker ? "on" : "off (--no-worker)"}`);
  out(`  Outbound: ${s.outbound}`);
  out(`  Sends:    ${s.sends}`);
  out(`  Logs:     ${s.logs.format} on stderr, level ${s.logs.level}`);
  out(`  Metrics:  ${s.metrics ?? "off (--metrics-token or --metrics-listen: docs/operations.md)"}`);
  if (s.given.length > 0) out(`  Settings: ${s.given.join(" ")}`);
  out(`  npm:      ${s.npm.label}; packages cached in ${s.npm.packages.cacheDir}`);
  for (const line of s.registryLines) out(`  Registry: ${line}`);
  if (key.created) {
    out(`  API key:  ${style.yellow(key.created)}`);
    out(
      `            shown once; ${key.where}; an operator key: it also manages workspaces and keys (pd workspaces, pd keys)`,
    );
  } else {
    out(`  API key:  ${key.where}`);
  }
  if (key.operator) {
    out(`  Operator: ${style.yellow(key.operator.key)}`);
    out(
      `            a new operator key (manages workspaces and keys: pd workspaces, pd keys), shown once; ${key.operator.where}`,
    );
  }
}

/**
 * Stops the server on SIGTERM or SIGINT: no new requests, deliveries in flight finished
 * (`hookline.close`), the store closed, then exits; a second signal forces the exit.
 */
function stopOnSignals(parts: {
  logger: Logger;
  flush: () => void;
  hookline: { close(): Promise<void> };
  opened: { close(): Promise<void> };
  server: Server | undefined;
  metricsServer: Server | undefined;
}): void {
  const { logger, flush, hookline, opened, server } = parts;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      note("forced exit");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "stopping (finishing deliveries in flight)");
    parts.metricsServer?.close();
    const closed = server
      ? new Promise<void>((ok) => {
          server.close(() => ok());
          server.closeIdleConnections();
          // Streams (SSE) never end by themselves.
          setTimeout(() => server.closeAllConnections(), 1000).unref();
        })
      : Promise.resolve();
    try {
      await hookline.close();
      await closed;
      await opened.close();
    } catch (error) {
      logger.error({ err: error }, "error while stopping");
      flush();
      process.exit(1);
    }
    logger.info("stopped");
    flush();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}
