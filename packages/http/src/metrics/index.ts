/**
 * `@hookline/http/metrics`: Hookline's Prometheus metrics over `prom-client`. `createMetrics`
 * registers every series (docs/operations.md lists them), counts what the engine reports
 * (`hookline.events`: emits, runs, executions, delivery attempts, replaced threads) and what the
 * handler reports of each request (`observer`), and reads the gauges (queue depth, sandbox pool,
 * store pool) only when scraped.
 *
 * @packageDocumentation
 */
import type { Hookline, HooklineEvents } from "@hookline/engine";
import type { QueueDepth } from "@hookline/store";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { MetricsSource, RequestInfo, RequestObserver } from "../_ops.js";
import { metricsResponse } from "../_ops.js";

/** How busy the store's connections are, read at each scrape (a `pg` pool's counts fit). */
export interface PoolUse {
  /** Connections open. */
  total: number;
  /** Connections open and idle. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** The registry to register in (default: a new one). */
  registry?: Registry;
  /** Node's process metrics (`process_cpu_seconds_total`, heap, event loop lag...), on by default. */
  processMetrics?: boolean;
  /** The store's connection pool, read at each scrape (`hookline_store_connections`). */
  pool?: () => PoolUse;
  /** Store statements sent and not answered yet, read at each scrape (`timedClient` counts them). */
  statementsInFlight?: () => number;
}

/** What {@link createMetrics} returns. */
export interface HooklineMetrics extends MetricsSource {
  /** The registry holding every series. */
  readonly registry: Registry;
  /** Pass as `createHandler`'s `observer`: counts requests, their latency and the ingress. */
  readonly observer: RequestObserver;
  /**
   * Records one store statement (see `timedClient` of `@hookline/store-sql`): its duration and
   * whether it failed.
   */
  observeStatement(durationMs: number, failed: boolean): void;
  /** Stops listening to the engine's events. */
  close(): void;
}

const SECOND_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const FAST_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/** `2xx`, `4xx`...: the class of a status (few label values). */
const statusClass = (status: number | undefined): string =>
  status === undefined ? "error" : `${Math.floor(status / 100)}xx`;

/**
 * Creates Hookline's metrics for one engine and registers them.
 *
 * @example
 * ```ts
 * import { createHandler } from "@hookline/http";
 * import { createMetrics } from "@hookline/http/metrics";
 *
 * const metrics = createMetrics(hookline);
 * const handler = createHandler(hookline, {
 *   observer: metrics.observer,
 *   metrics: { source: metrics, token: process.env.METRICS_TOKEN! },
 * });
 * ```
 */
export function createMetrics(hookline: Hookline, options: MetricsOptions = {}): HooklineMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "hookline_" });

  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[],
  ) => new Histogram<L>({ name, help, labelNames, buckets, registers });
  const requests = counter(
    "hookline_http_requests_total",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"] as const,
  );
  const requestSeconds = histogram(
    "hookline_http_request_duration_seconds",
    "Time from a request's arrival to its response's headers, by method and route template.",
    ["method", "route"] as const,
    SECOND_BUCKETS,
  );
  const ingress = counter(
    "hookline_ingress_requests_total",
    "Requests to HTTP endpoints (/http/...), by the endpoint's owner (source, workflow, unknown) and status class.",
    ["kind", "status"] as const,
  );
  const limited = counter(
    "hookline_ingress_rate_limited_total",
    "Requests to HTTP endpoints refused with 429 by the ingress guard, per endpoint or per workspace.",
    ["scope"] as const,
  );
  for (const scope of ["endpoint", "workspace"]) limited.inc({ scope }, 0);
  const emits = counter(
    "hookline_emits_total",
    "Events stored by this node, by emitter kind (source, workflow).",
    ["emitter"] as const,
  );
  const invocations = counter(
    "hookline_source_runs_total",
    "Source runs on this node, by trigger and outcome.",
    ["trigger", "outcome"] as const,
  );
  const runSeconds = histogram(
    "hookline_source_run_duration_seconds",
    "Time of a source's run (sandbox, logs, emits), by trigger.",
    ["trigger"] as const,
    SECOND_BUCKETS,
  );
  const attempts = counter(
    "hookline_delivery_attempts_total",
    "Delivery attempts by this node's worker, by outcome (succeeded, pending: to retry, failed: final) and status class.",
    ["outcome", "status"] as const,
  );
  const attemptSeconds = histogram(
    "hookline_delivery_attempt_duration_seconds",
    "Time of one delivery attempt (request to response or error), by outcome.",
    ["outcome"] as const,
    SECOND_BUCKETS,
  );
  const disabled = counter(
    "hookline_webhooks_disabled_total",
    "Webhooks disabled by a delivery attempt, by reason (gone, failing, secret_undecryptable).",
    ["reason"] as const,
  );
  const circuits = counter(
    "hookline_delivery_circuits_opened_total",
    "Times this node's worker opened a webhook's circuit (paused it after failures in a row).",
  );
  const runs = counter(
    "hookline_workflow_runs_total",
    "Workflow runs ended or paused on this node, by status.",
    ["status"] as const,
  );
  const stepSeconds = histogram(
    "hookline_workflow_step_duration_seconds",
    "Time of one workflow step, by its status.",
    ["status"] as const,
    SECOND_BUCKETS,
  );
  const replaced = counter(
    "hookline_sandbox_threads_replaced_total",
    "Sandbox threads terminated (a component that could not be interrupted) and replaced.",
  );
  const statementSeconds = histogram(
    "hookline_store_statement_duration_seconds",
    "Time of one store statement (or pipeline, or transaction's statement), by outcome.",
    ["outcome"] as const,
    FAST_BUCKETS,
  );
  gauges(hookline, registers, options);

  const observer: RequestObserver = (info: RequestInfo) => {
    requests.inc({ method: info.method, route: info.route, status: info.status });
    requestSeconds.observe({ method: info.method, route: info.route }, info.durationMs / 1000);
    if (info.ingress) ingress.inc({ kind: info.ingress, status: statusClass(info.status) });
    if (info.limited) limited.inc({ scope: info.limited });
  };

  const on = hookline.events;
  const handlers: { [K in keyof HooklineEvents]?: (e: HooklineEvents[K]) => void } = {
    emit: (e) => {
      if (!e.remote) emits.inc({ emitter: e.sourceId.startsWith("p_") ? "workflow" : "source" });
    },
    invocation: (e) => {
      if (e.kind !== "run") return;
      const trigger = e.trigger ?? "manual";
      invocations.inc({ trigger, outcome: e.error ? "failed" : "succeeded" });
      runSeconds.observe({ trigger }, e.durationMs / 1000);
    },
    attempt: (e) => {
      attempts.inc({ outcome: e.outcome, status: statusClass(e.status) });
      attemptSeconds.observe({ outcome: e.outcome }, e.durationMs / 1000);
      if (e.webhookDisabled) disabled.inc({ reason: e.webhookDisabled });
      if (e.circuitOpenUntil !== undefined) circuits.inc();
    },
    execution: (e) => {
      // Only the end of a run carries its steps (acceptance does not).
      if (!e.steps) return;
      runs.inc({ status: e.status });
      for (const step of e.steps) stepSeconds.observe({ status: step.status }, step.durationMs / 1000);
    },
    sandbox: () => replaced.inc(),
  };
  for (const [type, handler] of Object.entries(handlers))
    on.on(type as keyof HooklineEvents, handler as never);

  return {
    registry,
    contentType: registry.contentType,
    metrics: () => registry.metrics(),
    observer,
    observeStatement(durationMs, failed) {
      statementSeconds.observe({ outcome: failed ? "failed" : "succeeded" }, durationMs / 1000);
    },
    close() {
      for (const [type, handler] of Object.entries(handlers))
        on.off(type as keyof HooklineEvents, handler as never);
    },
  };
}

/** The gauges read at scrape time: the delivery queue, the sandbox pool, the store's pool. */
function gauges(hookline: Hookline, registers: Registry[], options: MetricsOptions): void {
  const { pool, statementsInFlight } = options;
  const queueDepth = hookline.store.queue.deliveries.depth?.bind(hookline.store.queue.deliveries);
  // Both queue gauges are collected side by side at a scrape: one read of the store serves both.
  let read: { at: number; depth: Promise<QueueDepth> } | undefined;
  const depth = (now: number): Promise<QueueDepth> | undefined => {
    if (!queueDepth) return undefined;
    if (!read || now - read.at > 1000) read = { at: now, depth: queueDepth(now) };
    return read.depth;
  };
  new Gauge({
    name: "hookline_delivery_queue_depth",
    help: "Deliveries in the queue (every node's), by state: pending (due or not), due, delivering, paused.",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      const d = await depth(Date.now());
      if (!d) return;
      for (const state of ["pending", "due", "delivering", "paused"] as const) this.set({ state }, d[state]);
    },
  });
  new Gauge({
    name: "hookline_delivery_queue_oldest_due_age_seconds",
    help: "How long the oldest due delivery has waited for a worker (0 when none is due).",
    registers,
    async collect() {
      const now = Date.now();
      const d = await depth(now);
      if (d) this.set(d.oldestDueAt === undefined ? 0 : Math.max(0, now - d.oldestDueAt) / 1000);
    },
  });
  new Gauge({
    name: "hookline_sandbox_pool",
    help: "The sandbox pool: threads alive, calls in flight (running or queued), sandboxes mounted.",
    labelNames: ["measure"] as const,
    registers,
    collect() {
      const stats = hookline.sandboxStats();
      if (!stats) return;
      this.set({ measure: "threads" }, stats.size);
      this.set({ measure: "calls_in_flight" }, stats.inFlight);
      this.set({ measure: "mounts" }, stats.mounts);
    },
  });
  new Gauge({
    name: "hookline_sandbox_memory_bytes",
    help: "QuickJS memory of the mounted sandboxes, as each last reported it.",
    registers,
    collect() {
      const stats = hookline.sandboxStats();
      if (stats) this.set(stats.memoryBytes);
    },
  });
  if (statementsInFlight) {
    new Gauge({
      name: "hookline_store_statements_in_flight",
      help: "Store statements sent and not answered yet (PGlite runs one at a time: the rest wait).",
      registers,
      collect() {
        this.set(statementsInFlight());
      },
    });
  }
  if (pool) {
    new Gauge({
      name: "hookline_store_connections",
      help: "The store's connection pool: total, idle, and callers waiting for a connection.",
      labelNames: ["state"] as const,
      registers,
      collect() {
        const use = pool();
        this.set({ state: "total" }, use.total);
        this.set({ state: "idle" }, use.idle);
        this.set({ state: "waiting" }, use.waiting);
      },
    });
  }
}

/**
 * A fetch handler serving only `GET /metrics` (and `/healthz`), with no authentication: for a
 * listener of its own on an address only the scraper reaches (`pd serve --metrics-listen`).
 *
 * @example
 * ```ts
 * createServer(toNodeListener(metricsHandler(metrics))).listen(9464, "127.0.0.1");
 * ```
 */
export function metricsHandler(source: MetricsSource): (request: Request) => Promise<Response> {
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === "/metrics" && (request.method === "GET" || request.method === "HEAD"))
      return metricsResponse(source);
    return new Response(
      JSON.stringify({ error: { code: "route_not_found", message: "This listener serves GET /metrics" } }),
      { status: 404, headers: { "content-type": "application/json; charset=utf-8" } },
    );
  };
}
