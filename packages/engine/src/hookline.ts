/**
 * `createHookline()`: the composition root. It builds the engine's context (context.ts) from the
 * options and wires the modules into one object that the REST adapter, the CLI and embedders call:
 *
 * - workspaces.ts (workspaces, API keys), accounts.ts, components.ts, registry.ts;
 * - sources.ts over lifecycle.ts (deploy, update, delete, hooks), props.ts (prop values, options,
 *   dynamic props) and runs.ts (a run in the source's queue, then emit-pipeline.ts);
 * - ingress.ts (HTTP interface) and timers.ts (timer interface);
 * - mounts.ts (sandboxes, host bridges and the one per-source invocation queue);
 * - webhooks.ts (webhooks, subscriptions, deliveries) and the delivery worker;
 * - data-stores.ts (named key-value stores, the `dataStore` bridge) and apphook.ts (sources fed
 *   by other sources' events).
 *
 * docs/architecture.md draws how they fit.
 */
import { randomUUID } from "node:crypto";
import { closeDestinations, type DeliveryWorker } from "@hookline/delivery";
import type { PoolRuntime, PoolStats } from "@hookline/runtime";
import { createMemoryStore, type Store } from "@hookline/store";
import mitt, { type Emitter } from "mitt";
import { type AccountsApi, createAccountsApi } from "./accounts.js";
import { createApphooks } from "./apphook.js";
import { type AppsContext, DEFAULT_NO_AUTH_APPS } from "./apps.js";
import { systemClock } from "./clock.js";
import { type ComponentsApi, createComponentsApi } from "./components.js";
import type { EngineContext } from "./context.js";
import { createDataStoresApi, type DataStoresApi } from "./data-stores.js";
import { createEndpointRegistry } from "./endpoints.js";
import type { HooklineEvents } from "./events.js";
import { startFanout } from "./fanout.js";
import { checkHealth, type HealthReport } from "./health.js";
import type { IngressRequest } from "./http-event.js";
import { handleIngress } from "./ingress.js";
import { createMounts } from "./mounts.js";
import { type ConnectApi, type ConnectTokensApi, createOAuth, type OAuthClientsApi } from "./oauth/index.js";
import { createRegistry, type RegistryApi } from "./registry.js";
import {
  createRuntimeOf,
  createTransportOf,
  createUrlWarnerOf,
  createWorkerOf,
  splitLimits,
} from "./resolve-options.js";
import { createRetention } from "./retention.js";
import { createSecretBox } from "./secrets.js";
import { checkSecretsKey } from "./secrets-check.js";
import { createSourcesApi, type SourcesApi } from "./sources.js";
import { createTimerLoop, tick } from "./timers.js";
import type { HooklineOptions, IngressResponse } from "./types.js";
import { componentView } from "./views.js";
import { createWebhookTester } from "./webhook-test.js";
import { createWebhooksApi, type SubscriptionsApi, type WebhooksApi } from "./webhooks.js";
import { createWorkflows } from "./workflows/api.js";
import type { EnvApi, WorkflowsApi } from "./workflows/types.js";
import { type ApiKeysApi, createApiKeysApi, createWorkspacesApi, type WorkspacesApi } from "./workspaces.js";

/** The Hookline engine. */
export interface Hookline {
  /** Typed internal events for observers. */
  readonly events: Emitter<HooklineEvents>;
  /** The store in use. */
  readonly store: Store;
  /** Workspaces (tenants). */
  readonly workspaces: WorkspacesApi;
  /** API keys, stored hashed. */
  readonly apiKeys: ApiKeysApi;
  /** Connected accounts (`apn_...`): `$auth` credentials per app, encrypted at rest, never returned. */
  readonly accounts: AccountsApi;
  /** OAuth clients (the operator's OAuth apps), one per app slug, and the built-in catalogue. */
  readonly oauthClients: OAuthClientsApi;
  /**
   * The OAuth connect flow: start (an authorization URL), finish (the callback), status.
   *
   * @example
   * ```ts
   * await hookline.oauthClients.put(ws.id, "github", { client_id: "Iv1.abc", client_secret: "s3cret" });
   * const { authorizeUrl } = await hookline.connect.start(ws.id, { app: "github" });
   * ```
   */
  readonly connect: ConnectApi;
  /** Connect tokens (`ctok_...`): an embedding app's end user's reach (their connect flow and accounts). */
  readonly connectTokens: ConnectTokensApi;
  /**
   * OAuth tokens are refreshed when used within `oauth.refreshSkewMs` of their expiry, and ahead of
   * use by a loop that `start()` runs every `oauth.refreshIntervalMs`; `refreshDue()` runs one pass
   * now and resolves with how many tokens it refreshed.
   */
  readonly oauth: {
    /** Refreshes every token due now; resolves with how many it refreshed. */
    refreshDue(): Promise<number>;
  };
  /** Saved components (`sc_...`). */
  readonly components: ComponentsApi;
  /** The component registry: publish by key and semantic version, privately or publicly; list; read. */
  readonly registry: RegistryApi;
  /** Deployed sources (`dc_...`). */
  readonly sources: SourcesApi;
  /** Webhooks: where events are delivered. */
  readonly webhooks: WebhooksApi;
  /** Subscriptions: which webhook gets which source's (or workflow's) events. */
  readonly subscriptions: SubscriptionsApi;
  /**
   * Data stores (`ds_...`): the named key-value stores of a workspace that `data_store` props use.
   *
   * @example
   * ```ts
   * await hookline.dataStores.create(ws.id, "customers");
   * await hookline.dataStores.putRecord(ws.id, "customers", "ada", { plan: "pro" }, 3600);
   * (await hookline.dataStores.getRecord(ws.id, "customers", "ada")).value; // { plan: "pro" }
   * ```
   */
  readonly dataStores: DataStoresApi;
  /**
   * Workflows (`p_...`): a trigger (HTTP, timer, source, manual) and ordered action steps; their
   * executions (`exe_...`) and what they emit.
   *
   * @example
   * ```ts
   * const wf = await hookline.workflows.create(ws.id, {
   *   name: "double",
   *   trigger: { type: "manual" },
   *   steps: [{ name: "double", component_code:
   *     "export default defineComponent({ async run({ steps, $ }) { $.export('$summary', 'doubled'); return steps.trigger.event.n * 2 } })" }],
   * });
   * const exe = await hookline.workflows.run(ws.id, wf.id, { event: { n: 21 } });
   * exe.steps[0]?.returnValue; // 42
   * ```
   */
  readonly workflows: WorkflowsApi;
  /**
   * The workspace's environment variables, read by workflow expressions as `{{process.env.NAME}}`;
   * values encrypted at rest and never returned.
   *
   * @example
   * ```ts
   * await hookline.env.set(ws.id, "GREETING", "hello");
   * ```
   */
  readonly env: EnvApi;
  /**
   * The HTTP-interface ingress: `/http/{endpointId}[/...]`. Needs no API key. When the source
   * already has `limits.maxQueuedInvocations` invocations waiting, the answer is 429
   * `source_busy` with `Retry-After` (seconds).
   */
  ingress(endpointId: string, request: IngressRequest): Promise<IngressResponse>;
  /** Timers. */
  readonly timers: {
    /** Runs every timer due now, once each; resolves with how many fired. */
    tick(): Promise<number>;
  };
  /**
   * Retention runs by itself within `retention.intervalMs` of a write (and at close); `sweep()`
   * trims every source written since the last sweep now and resolves with the rows it deleted.
   */
  readonly retention: {
    /** Applies retention to the sources written since the last sweep. */
    sweep(): Promise<number>;
  };
  /**
   * Starts the timer loop and the delivery worker, once the secrets key is checked against the store
   * (when `secretsKey` was given): a key other than the one the store's secrets were encrypted with
   * rejects with `configuration_error` naming `HOOKLINE_SECRETS_KEY`, and nothing starts.
   */
  start(): Promise<void>;
  /**
   * Readiness: the store answers (within 2 s), its migrations are current, `start()` ran and the
   * delivery worker runs. What `GET /readyz` reports.
   *
   * @example
   * ```ts
   * const { ready, checks } = await hookline.health();
   * if (!ready) console.error(checks.store.detail);
   * ```
   */
  health(): Promise<HealthReport>;
  /**
   * The sandbox pool's figures (threads, calls in flight, mounts, memory) when the engine's runtime
   * runs sandboxes in worker threads (`sandboxes: { mode: "pool" }`); undefined otherwise.
   */
  sandboxStats(): PoolStats | undefined;
  /** The delivery worker (undefined when `worker: false`); `start()` starts it. */
  readonly worker: DeliveryWorker | undefined;
  /**
   * Stops the loops, drains in-flight deliveries (releasing what does not finish), unmounts every
   * sandbox and closes the runtime and transport it created and the destinations (the store is the
   * caller's).
   */
  close(): Promise<void>;
}

/**
 * Creates the engine.
 *
 * @example
 * ```ts
 * const hookline = createHookline({ secretsKey: process.env.HOOKLINE_SECRETS_KEY });
 * const ws = await hookline.workspaces.create({ name: "acme" });
 * const source = await hookline.sources.deploy(ws.id, {
 *   code: { filename: "hello.mjs", code: `export default { name: "Hello", version: "0.1.0",
 *     props: { http: "$.interface.http" }, run(e) { this.$emit(e.body) } }` },
 * });
 * await hookline.ingress(source.endpointId!, { method: "POST", path: "/", headers: {}, body: "{}" });
 * ```
 */
export function createHookline(options: HooklineOptions = {}): Hookline {
  const limits = splitLimits(options.limits);
  const store = options.store ?? createMemoryStore();
  const events = mitt<HooklineEvents>();
  const ownsRuntime = options.runtime === undefined;
  const runtime = options.runtime ?? createRuntimeOf(options, limits.sandbox, events);
  const clock = options.clock ?? systemClock;
  const box = createSecretBox(options.secretsKey ?? randomUUID());
  // Credentials go through the OAuth refresher, made once the context exists (below).
  let oauth: ReturnType<typeof createOAuth> | undefined;
  const apps: AppsContext = {
    store,
    box,
    noAuthApps: new Set(options.noAuthApps ?? DEFAULT_NO_AUTH_APPS),
    credentials: (account, log) =>
      (oauth as ReturnType<typeof createOAuth>).refresher.credentials(account, log),
    authDue: (account) => oauth?.refresher.due(account) ?? false,
  };
  const ownsTransport = options.transport === undefined;
  const transport = options.transport ?? createTransportOf(options);
  const worker = createWorkerOf(options, { store, transport, box, clock, events });
  const wakeWorker = () => worker?.wake();
  const baseUrl = (options.baseUrl ?? "http://localhost:4100").replace(/\/+$/, "");
  // Events and logs stored by other nodes sharing the store reach this node's observers too (SSE).
  const fanout = startFanout(store, events);

  const ctx: EngineContext = {
    store,
    runtime,
    transport,
    clock,
    destinations: options.destinations ?? {},
    box,
    apps,
    registry: createRegistry({
      store,
      packages: options.packages ?? {},
      load: (input) =>
        runtime.load({
          code: input.code,
          filename: input.filename ?? "component.mjs",
          ...(input.files ? { files: input.files } : {}),
        }),
      view: componentView,
    }),
    mounts: createMounts({
      store,
      runtime,
      transport,
      apps,
      clock,
      dataStoreLimits: limits.engine,
      baseUrl,
      sandboxLimits: limits.sandbox,
      maxQueuedInvocations: limits.engine.maxQueuedInvocations,
    }),
    endpoints: createEndpointRegistry(store),
    limits: limits.engine,
    retention: createRetention(store, options.retention),
    baseUrl,
    nodeId: options.nodeId ?? `node_${randomUUID()}`,
    notify(type, payload) {
      try {
        events.emit(type, payload);
      } catch {
        // An observer's error never fails the operation.
      }
    },
    wakeWorker,
  };
  oauth = createOAuth(ctx, options.oauth);
  // An account changed on this node: sandboxes holding its old `$auth` are rebuilt on their next run.
  events.on("account", (e) => {
    if (e.change !== "refresh_failed") ctx.mounts.forgetAccount(e.accountId);
  });
  // Source triggers: the workflows listening to a source hear its events stored on this node.
  const workflows = createWorkflows(ctx, options.executionLeaseMs, (handler) =>
    events.on("emit", (e) => {
      if (!e.remote) handler(e.workspaceId, e.sourceId, e.event);
    }),
  );
  // Sources listening to sources ($.interface.apphook): fed from this node's stored events.
  const apphooks = createApphooks(ctx);
  events.on("emit", (e) => {
    if (!e.remote) apphooks.emitted(e.workspaceId, e.sourceId);
  });
  const runTick = () => tick(ctx, (timer) => workflows.tick(timer));
  const timerLoop = createTimerLoop(runTick, options.timerPollMs ?? 1000);
  // With its own transport the engine knows the SSRF guard's settings and warns of refused URLs.
  const { webhooks, subscriptions } = createWebhooksApi(
    store,
    box,
    clock,
    wakeWorker,
    createWebhookTester(transport, box, clock),
    ownsTransport ? createUrlWarnerOf(options) : undefined,
  );
  let started: Promise<void> | undefined;
  let closed = false;
  const loops = { started: false, closed: false };

  return {
    events,
    store,
    workspaces: createWorkspacesApi(store),
    apiKeys: createApiKeysApi(store, () => clock.now()),
    accounts: createAccountsApi(ctx),
    oauthClients: oauth.clients,
    connect: oauth.connect,
    connectTokens: oauth.connectTokens,
    oauth: { refreshDue: () => (oauth as ReturnType<typeof createOAuth>).refresher.refreshDue() },
    components: createComponentsApi(ctx),
    registry: ctx.registry.api,
    sources: createSourcesApi(ctx),
    webhooks,
    subscriptions: {
      ...subscriptions,
      // A source listener (dc_...) is an apphook source: fed by the engine, not by the delivery worker.
      create: (workspaceId, input) =>
        input.listenerId.startsWith("dc_")
          ? apphooks.subscribe(workspaceId, input)
          : subscriptions.create(workspaceId, input),
    },
    dataStores: createDataStoresApi({ store, clock, limits: limits.engine }),
    workflows: workflows.api,
    env: workflows.env,
    async ingress(endpointId, request) {
      // One lookup (endpoints.ts): a workflow's endpoint, else a source's (or nothing: 404).
      const owner = await ctx.endpoints.resolve(endpointId);
      if (owner?.kind === "workflow") return workflows.ingress(owner.workflow, request);
      return handleIngress(ctx, owner?.source, request);
    },
    timers: { tick: runTick },
    retention: { sweep: () => ctx.retention.sweep() },
    worker,
    start() {
      started ??= (async () => {
        if (options.secretsKey !== undefined) await checkSecretsKey(store, box);
        if (closed) return;
        worker?.start();
        timerLoop.start();
        oauth?.loop.start();
        await apphooks.catchUp();
        workflows.start(options.timerPollMs ?? 1000);
        loops.started = true;
      })();
      return started;
    },
    health: () => checkHealth(store, worker, loops),
    sandboxStats: () => (runtime as Partial<PoolRuntime>).threads,
    async close() {
      closed = true;
      loops.closed = true;
      await fanout.close();
      timerLoop.stop();
      await oauth?.loop.stop();
      await apphooks.close();
      await ctx.mounts.drain();
      await workflows.close();
      await ctx.retention.close();
      await worker?.stop();
      ctx.mounts.disposeAll();
      if (ownsRuntime) await runtime.close();
      if (ownsTransport) transport.close();
      await closeDestinations(ctx.destinations);
    },
  };
}
