/**
 * `createHookline()`: the composition root. It owns workspaces and API keys, saved and deployed
 * components, their lifecycle hooks, HTTP and timer triggers, the emit pipeline (metadata, `ts`
 * ordering, dedupe, the transactional outbox write, retention) and logs, and exposes them as one
 * object that the REST adapter, the CLI and embedders call.
 */
import { createHash, randomUUID } from "node:crypto";
import {
  applyDedupe,
  type ComponentDescription,
  channelOf,
  type DedupeState,
  type EmitMeta,
  HooklineError,
  newId,
  nextFireAt,
  orderEmits,
  type Problem,
  type PropDescription,
  planTick,
  type TimerConfig,
  timerEvent,
  uniqueSlug,
  validateEmitMeta,
  validatePropValues,
  validateRespond,
} from "@hookline/core";
import {
  createDeliveryWorker,
  createTransport,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
  type Transport,
} from "@hookline/delivery";
import {
  type BridgeRequest,
  type BridgeResponse,
  createRuntime,
  type HostBridges,
  type InvocationResult,
  type Limits,
  type MountedComponent,
  nodeModulesResolver,
  type OptionsArgs,
  type Runtime,
} from "@hookline/runtime";
import {
  type Account,
  type ApiKey,
  createMemoryStore,
  type DeployedComponent,
  type LogLine,
  type Page,
  type SavedComponent,
  type Store,
  type StoredEvent,
  type Workspace,
} from "@hookline/store";
import mitt, { type Emitter } from "mitt";
import { apiKeyHint, generateApiKey, hashApiKey } from "./api-keys.js";
import { type AppsContext, checkAppProps, DEFAULT_NO_AUTH_APPS, openAuth } from "./apps.js";
import { type Clock, systemClock } from "./clock.js";
import { dynamicPropsOf, finalProps, withDynamicProps } from "./dynamic-props.js";
import type { HooklineEvents } from "./events.js";
import { startFanout } from "./fanout.js";
import { type IngressRequest, toHttpEvent } from "./http-event.js";
import { createRegistry, parseComponentKey, type RegistryApi } from "./registry.js";
import { createSecretBox } from "./secrets.js";
import { createWebhooksApi, type SubscriptionsApi, type WebhooksApi } from "./webhooks.js";

/** Options of the delivery worker the engine runs (see `createDeliveryWorker` in `@hookline/delivery`). */
export type EngineWorkerOptions = Omit<
  DeliveryWorkerOptions,
  "store" | "transport" | "decryptSecret" | "clock"
>;

/** Options of {@link createHookline}. */
export interface HooklineOptions {
  /** Where everything is kept (default: a new in-memory store). */
  store?: Store;
  /** The sandbox runtime (default: one resolving bare imports from `./node_modules`). */
  runtime?: Runtime;
  /**
   * Outbound HTTP: webhook deliveries, components' `fetch`/`axios`, code by URL. Default: the
   * SSRF-guarded transport of `@hookline/delivery` (private addresses refused unless
   * `allowPrivateUrls`).
   */
  transport?: Transport;
  /** Let the default transport reach private, loopback and link-local addresses (development). */
  allowPrivateUrls?: boolean;
  /** Addresses, host names or CIDR ranges the default transport may reach although private. */
  allowList?: string[];
  /**
   * The delivery worker: its options, or `false` for a node that only serves the API (another
   * node's worker delivers). It starts with {@link Hookline.start}.
   */
  worker?: EngineWorkerOptions | false;
  /** The clock (default: the wall clock); tests pass {@link createFakeClock}. */
  clock?: Clock;
  /**
   * The key that encrypts secrets at rest (secret props, account credentials, webhook secrets):
   * 32 bytes, or any string (hashed to 32 bytes). Default: a random key per process, so secrets
   * do not survive a restart; servers must pass one.
   */
  secretsKey?: string | Uint8Array;
  /** The public base URL, used to build HTTP endpoints (`<baseUrl>/http/<endpoint_id>`). */
  baseUrl?: string;
  /** How much history each source keeps. */
  retention?: { events?: number; logs?: number };
  /** Limits of every invocation. */
  limits?: Partial<Limits>;
  /** Timers: how often due ticks are looked for once {@link Hookline.start} ran (default 1,000 ms). */
  timerPollMs?: number;
  /**
   * App name slugs whose app props need no connected account, like Pipedream's `http` app
   * (default {@link DEFAULT_NO_AUTH_APPS}). Other required app props fail with `account_required`.
   */
  noAuthApps?: readonly string[];
}

/** A saved component as the engine returns it (code and bundle left out). */
export interface ComponentView {
  id: string;
  workspaceId: string;
  codeHash: string;
  filename: string;
  /** The code as uploaded (one file; what the web UI's Configuration tab edits). */
  code: string;
  /** The registry key, for a published component (else see `description.key`). */
  key?: string;
  /** The published version, for a published component (else see `description.version`). */
  version?: string;
  /** For a published component: `private` (its workspace only) or `public` (every workspace). */
  visibility?: "private" | "public";
  description: ComponentDescription;
  createdAt: number;
}

/** A deployed source as the engine returns it. Secret prop values are masked. */
export interface SourceView {
  id: string;
  workspaceId: string;
  componentId: string;
  name: string;
  slug: string;
  active: boolean;
  /** The public URL of the HTTP interface, when the component has one. */
  endpoint?: string;
  endpointId?: string;
  props: Record<string, unknown>;
  description: ComponentDescription;
  createdAt: number;
  updatedAt: number;
}

/** Code to save: a file's text and name, plus sibling files it imports by relative path. */
export interface CodeInput {
  code: string;
  filename?: string;
  files?: Record<string, string>;
}

/** What {@link Hookline.sources}.deploy takes: a saved component id, a registry key or code, and prop values. */
export interface DeployInput {
  componentId?: string;
  /**
   * A published component's registry key (`github-new-star`), deployed at its newest visible
   * version, or pinned: `github-new-star@1.2.0` or with {@link DeployInput.componentVersion}. A
   * public component of another workspace is first copied into this workspace as a saved component.
   */
  componentKey?: string;
  /** The version of `componentKey` to deploy (default: the newest visible one). */
  componentVersion?: string;
  code?: CodeInput;
  name?: string;
  props?: Record<string, unknown>;
  /** Start active (default true). */
  active?: boolean;
}

/** What {@link Hookline.sources}.update takes. Props given replace those values; others are kept. */
export interface UpdateInput {
  componentId?: string;
  /** Move to a published component by key (`key` or `key@version`), as {@link DeployInput.componentKey}. */
  componentKey?: string;
  /** The version of `componentKey` (default: the newest visible one). */
  componentVersion?: string;
  code?: CodeInput;
  name?: string;
  props?: Record<string, unknown>;
  active?: boolean;
}

/** A connected account as the engine returns it: never its credentials. */
export interface AccountView {
  id: string;
  workspaceId: string;
  app: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

/** The engine's answer to an HTTP-interface request. */
export interface IngressResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

/** The result of a manual run. */
export interface RunSummary {
  emitted: StoredEvent[];
  error?: { code: string; name: string; message: string; stack?: string };
  durationMs: number;
}

/** The Hookline engine. */
export interface Hookline {
  /** Typed internal events for observers. */
  readonly events: Emitter<HooklineEvents>;
  /** The store in use. */
  readonly store: Store;
  /** Workspaces (tenants). */
  readonly workspaces: {
    /** Creates a workspace. */
    create(input: { name: string; id?: string }): Promise<Workspace>;
    /** A workspace, or undefined. */
    get(id: string): Promise<Workspace | undefined>;
    /** Every workspace. */
    list(): Promise<Workspace[]>;
  };
  /** API keys, stored hashed. */
  readonly apiKeys: {
    /** Creates a key; the plain key is in the result only this once. */
    create(workspaceId: string, input?: { name?: string }): Promise<{ key: string; apiKey: ApiKey }>;
    /** The workspace's keys (hashes and hints only), revoked ones included. */
    list(workspaceId: string): Promise<ApiKey[]>;
    /** Revokes a key; false when there was none. */
    revoke(workspaceId: string, id: string): Promise<boolean>;
    /** The workspace a key belongs to, or undefined for an unknown or revoked key. */
    resolve(key: string): Promise<Workspace | undefined>;
  };
  /** Connected accounts (`apn_...`): `$auth` credentials per app, encrypted at rest, never returned. */
  readonly accounts: {
    /** Connects an account: `credentials` become the app's `$auth`, encrypted at rest. */
    create(
      workspaceId: string,
      input: { app: string; name?: string; credentials: Record<string, unknown> },
    ): Promise<AccountView>;
    /** An account (404 `not_found` when absent). */
    get(workspaceId: string, id: string): Promise<AccountView>;
    /** The workspace's accounts, optionally of one app. */
    list(workspaceId: string, filter?: { app?: string }): Promise<AccountView[]>;
    /** Refused with `account_in_use` (409) while a source's app prop uses the account. */
    delete(workspaceId: string, id: string): Promise<void>;
  };
  /** Saved components (`sc_...`). */
  readonly components: {
    /** Bundles, validates and saves code (422 with every problem when invalid). */
    save(workspaceId: string, input: CodeInput): Promise<ComponentView>;
    /**
     * A saved component by id, or by key (`key` or `key@1.2.3`): the published component visible
     * to the workspace (see {@link Hookline.registry}), else the workspace's most recently saved
     * component whose code has that key. 404 `not_found` when there is none.
     */
    get(workspaceId: string, idOrKey: string): Promise<ComponentView>;
    /** The workspace's saved components. */
    list(workspaceId: string): Promise<ComponentView[]>;
    /**
     * Fetches component code from a URL through the guarded transport (private addresses are
     * refused unless the transport allows them); at most 1 MB, 2xx only.
     */
    fetchCode(url: string): Promise<string>;
    /**
     * The props of a saved component (id or key) after `additionalProps()` ran with the values
     * configured so far (SPEC's `reloadProps`): the component's own props merged with the
     * additional ones, which replace any earlier result. `previous` (the additional props of the
     * last call) is merged into the `previousPropDefs` that `additionalProps` receives. A
     * `ConfigurationError` thrown there is `configuration_error` (422) with its message as is.
     *
     * @example
     * ```ts
     * const props = await hookline.components.reloadProps(ws.id, saved.id, { mode: "advanced" });
     * Object.keys(props); // ["mode", "color"]: "color" came from additionalProps()
     * ```
     */
    reloadProps(
      workspaceId: string,
      componentId: string,
      configured: Record<string, unknown>,
      options?: { previous?: Record<string, PropDescription> },
    ): Promise<Record<string, PropDescription>>;
  };
  /** The component registry: publish by key and semantic version, privately or publicly; list; read. */
  readonly registry: RegistryApi;
  /** Deployed sources (`dc_...`). */
  readonly sources: {
    /**
     * Deploys a source from a saved component, a registry key or code: props validated (app props
     * need a connected account unless their app needs none: `account_required`), `deploy()` then
     * `activate()`; all or nothing (docs/engine.md).
     */
    deploy(workspaceId: string, input: DeployInput): Promise<SourceView>;
    /** A source by id or slug (404 `not_found` when absent). */
    get(workspaceId: string, idOrSlug: string): Promise<SourceView>;
    /** The workspace's sources. */
    list(workspaceId: string): Promise<SourceView[]>;
    /** Replaces code and/or props: `deactivate()`, then `activate()` on the new instance; same id. */
    update(workspaceId: string, idOrSlug: string, input: UpdateInput): Promise<SourceView>;
    /** Activates a source (`activate()` hook). */
    activate(workspaceId: string, idOrSlug: string): Promise<SourceView>;
    /** Deactivates a source (`deactivate()` hook): it stops running and its endpoint answers 404. */
    deactivate(workspaceId: string, idOrSlug: string): Promise<SourceView>;
    /** Deletes a source; a `deactivate()` hook that throws is logged and does not stop it. */
    delete(workspaceId: string, idOrSlug: string): Promise<{ warnings: string[] }>;
    /** Runs a source now (a timer source gets a timer event, others `event` or `{}`). */
    run(workspaceId: string, idOrSlug: string, event?: unknown): Promise<RunSummary>;
    /** Stored events, newest first. */
    events(
      workspaceId: string,
      idOrSlug: string,
      options?: { limit?: number; before?: string; after?: string; channel?: string },
    ): Promise<Page<StoredEvent>>;
    /** Deletes the given events, or all of them; returns how many. */
    deleteEvents(workspaceId: string, idOrSlug: string, ids?: string[]): Promise<number>;
    /** Log lines, oldest first. */
    logs(
      workspaceId: string,
      idOrSlug: string,
      options?: { limit?: number; after?: string },
    ): Promise<Page<LogLine>>;
    /** Async options of a prop, with the configured values so far (saved component or deployed source). */
    options(
      workspaceId: string,
      target: { componentId?: string; sourceId?: string },
      prop: string,
      args?: OptionsArgs & { props?: Record<string, unknown> },
    ): Promise<{ options: unknown[]; context?: unknown }>;
  };
  /** Webhooks: where events are delivered. */
  readonly webhooks: WebhooksApi;
  /** Subscriptions: which webhook gets which source's events. */
  readonly subscriptions: SubscriptionsApi;
  /** The HTTP-interface ingress: `/http/{endpointId}[/...]`. Needs no API key. */
  ingress(endpointId: string, request: IngressRequest): Promise<IngressResponse>;
  /** Timers. */
  readonly timers: {
    /** Runs every timer due now, once each; resolves with how many fired. */
    tick(): Promise<number>;
  };
  /** Starts the timer loop and the delivery worker. */
  start(): void;
  /** The delivery worker (undefined when `worker: false`); tests drive it with `runOnce()`. */
  readonly worker: DeliveryWorker | undefined;
  /**
   * Stops the loops, drains in-flight deliveries (releasing what does not finish), unmounts every
   * sandbox and closes the runtime and transport it created (the store is the caller's).
   */
  close(): Promise<void>;
}

const HTTP = "$.interface.http";
const TIMER = "$.interface.timer";

function json(status: number, body: unknown): IngressResponse {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

function propsProblemMessage(problems: Problem[]): string {
  return problems.map((p) => `${p.path || "props"}: ${p.message}`).join("; ");
}

function hookError(hook: string, result: InvocationResult): HooklineError {
  const error = result.error;
  return new HooklineError(
    "hook_failed",
    `The ${hook}() hook failed: ${error?.name ?? "Error"}: ${error?.message ?? ""}`,
    { hook, error, logs: result.logs },
  );
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
  const store = options.store ?? createMemoryStore();
  const ownsRuntime = options.runtime === undefined;
  const runtime =
    options.runtime ??
    createRuntime({
      resolvers: [nodeModulesResolver(process.cwd())],
      ...(options.limits ? { limits: options.limits } : {}),
    });
  const clock = options.clock ?? systemClock;
  const box = createSecretBox(options.secretsKey ?? randomUUID());
  const appsCtx: AppsContext = {
    store,
    box,
    noAuthApps: new Set(options.noAuthApps ?? DEFAULT_NO_AUTH_APPS),
  };
  const ownsTransport = options.transport === undefined;
  const transport =
    options.transport ??
    createTransport({
      ...(options.allowPrivateUrls ? { allowPrivate: true } : {}),
      ...(options.allowList ? { allowList: options.allowList } : {}),
    });
  const worker: DeliveryWorker | undefined =
    options.worker === false
      ? undefined
      : createDeliveryWorker({
          ...options.worker,
          store,
          transport,
          decryptSecret: (v) => box.open(v),
          clock,
        });
  const wakeWorker = () => worker?.wake();
  const baseUrl = (options.baseUrl ?? "http://localhost:4100").replace(/\/+$/, "");
  const keepEvents = options.retention?.events ?? 10_000;
  const keepLogs = options.retention?.logs ?? 1_000;
  const events = mitt<HooklineEvents>();
  // Events and logs stored by other nodes sharing the store reach this node's observers too (SSE).
  const fanout = startFanout(store, events);
  const nodeId = `node_${randomUUID()}`;
  const mounts = new Map<string, { mounted: MountedComponent; version: string }>();
  const queues = new Map<string, Promise<unknown>>();
  let timerLoop: NodeJS.Timeout | undefined;
  let closed = false;

  const notify = <K extends keyof HooklineEvents>(type: K, payload: HooklineEvents[K]) => {
    try {
      events.emit(type, payload);
    } catch {
      // An observer's error never fails the operation.
    }
  };

  /** Runs `fn` after every earlier task of the same source: one invocation at a time per source. */
  function serialized<T>(sourceId: string, fn: () => Promise<T>): Promise<T> {
    const previous = queues.get(sourceId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.catch(() => undefined);
    queues.set(sourceId, tail);
    void tail.then(() => {
      if (queues.get(sourceId) === tail) queues.delete(sourceId);
    });
    return next;
  }

  // ---------------------------------------------------------------- components

  function componentView(saved: SavedComponent): ComponentView {
    const view: ComponentView = {
      id: saved.id,
      workspaceId: saved.workspaceId,
      codeHash: saved.codeHash,
      filename: saved.filename,
      code: saved.code,
      description: saved.description as ComponentDescription,
      createdAt: saved.createdAt,
    };
    if (saved.key !== undefined) {
      view.key = saved.key;
      view.visibility = saved.published;
    }
    if (saved.version !== undefined) view.version = saved.version;
    return view;
  }

  async function saveCode(workspaceId: string, input: CodeInput): Promise<SavedComponent> {
    if (typeof input.code !== "string" || input.code.trim() === "") {
      throw new HooklineError("bad_request", "component code is required");
    }
    const filename = input.filename ?? "component.mjs";
    const loaded = await runtime.load({
      code: input.code,
      filename,
      ...(input.files ? { files: input.files } : {}),
    });
    return store.savedComponents.create({
      workspaceId,
      code: input.code,
      codeHash: createHash("sha256").update(input.code).digest("hex"),
      filename,
      bundle: loaded.bundle,
      description: loaded.description,
    });
  }

  async function savedOrThrow(workspaceId: string, id: string): Promise<SavedComponent> {
    const saved = await store.savedComponents.get(workspaceId, id);
    if (!saved) throw new HooklineError("not_found", `No component ${id} in this workspace`);
    return saved;
  }

  const registry = createRegistry({
    store,
    load: (input) =>
      runtime.load({
        code: input.code,
        filename: input.filename ?? "component.mjs",
        ...(input.files ? { files: input.files } : {}),
      }),
    view: componentView,
  });

  /** A saved component by id, or by key (`key`, `key@version`): published first, then saved code. */
  async function componentFor(workspaceId: string, ref: string): Promise<SavedComponent> {
    const own = await store.savedComponents.get(workspaceId, ref);
    if (own) return own;
    if (!ref.startsWith("sc_") && ref !== "") {
      const { key, version } = parseComponentKey(ref);
      const published = await registry.resolve(workspaceId, key, version);
      if (published) return published;
      const saved = (await store.savedComponents.list(workspaceId)).filter((c) => {
        const d = c.description as ComponentDescription;
        return d.key === key && (version === undefined || d.version === version);
      });
      const latest = saved[saved.length - 1];
      if (latest) return latest;
    }
    throw new HooklineError("not_found", `No component ${ref} in this workspace`);
  }

  /**
   * The published component to deploy for a key: the newest visible version or the pinned one. A
   * public component of another workspace is copied into this one (sources only run their own
   * workspace's saved components; the copy also outlives the publisher's workspace).
   */
  async function savedFromKey(workspaceId: string, ref: string, version?: string): Promise<SavedComponent> {
    const parsed = parseComponentKey(ref, version);
    const found = await registry.resolve(workspaceId, parsed.key, parsed.version);
    if (!found) {
      const what = parsed.version === undefined ? parsed.key : `${parsed.key}@${parsed.version}`;
      throw new HooklineError("not_found", `No published component ${what} is visible to this workspace`);
    }
    if (found.workspaceId === workspaceId) return found;
    // Deploying the same public version again reuses the copy made the first time.
    const copies = await store.savedComponents.list(workspaceId);
    const copy = copies.find((c) => c.key === undefined && c.codeHash === found.codeHash);
    if (copy) return copy;
    return store.savedComponents.create({
      workspaceId,
      code: found.code,
      codeHash: found.codeHash,
      filename: found.filename,
      bundle: found.bundle,
      description: found.description,
    });
  }

  /**
   * Runs `additionalProps(previous)` with the values configured so far and returns the props it
   * adds (none when the component has no additionalProps). `ConfigurationError`:
   * `configuration_error` with the component's message as is.
   */
  async function additionalPropsFor(
    workspaceId: string,
    saved: SavedComponent,
    configured: Record<string, unknown>,
    previous: Record<string, PropDescription>,
  ): Promise<Record<string, PropDescription>> {
    const description = saved.description as ComponentDescription;
    if (!description.hasAdditionalProps) return {};
    const mounted = await mountSource(
      { id: `${saved.id}:reload`, workspaceId, props: configured, endpointId: undefined },
      saved,
      new Map(),
    );
    try {
      const result = await mounted.additionalProps(previous);
      if (result.error) {
        const code = result.error.code === "configuration_error" ? "configuration_error" : "bad_request";
        throw new HooklineError(code, result.error.message, { error: result.error, logs: result.logs });
      }
      return (result.returnValue ?? {}) as Record<string, PropDescription>;
    } finally {
      mounted.dispose();
    }
  }

  // ---------------------------------------------------------------- sources

  async function sourceOrThrow(workspaceId: string, idOrSlug: string): Promise<DeployedComponent> {
    const dc =
      (await store.deployedComponents.get(workspaceId, idOrSlug)) ??
      (await store.deployedComponents.getBySlug(workspaceId, idOrSlug));
    if (!dc) throw new HooklineError("not_found", `No source ${idOrSlug} in this workspace`);
    return dc;
  }

  const endpointUrl = (endpointId: string) => `${baseUrl}/http/${endpointId}`;

  function maskProps(
    declared: Record<string, PropDescription>,
    props: Record<string, unknown>,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(props)) {
      out[name] = declared[name]?.secret && value !== undefined ? "********" : value;
    }
    return out;
  }

  async function sourceView(dc: DeployedComponent, saved?: SavedComponent): Promise<SourceView> {
    const component = saved ?? (await savedOrThrow(dc.workspaceId, dc.savedComponentId));
    const saveDescription = component.description as ComponentDescription;
    // The final prop set: the component's props and what additionalProps() added at configuration.
    const description = { ...saveDescription, props: finalProps(saveDescription, dynamicPropsOf(dc.meta)) };
    const view: SourceView = {
      id: dc.id,
      workspaceId: dc.workspaceId,
      componentId: dc.savedComponentId,
      name: dc.name,
      slug: dc.slug,
      active: dc.active,
      props: maskProps(description.props, dc.props),
      description,
      createdAt: dc.createdAt,
      updatedAt: dc.updatedAt,
    };
    if (dc.endpointId) {
      view.endpointId = dc.endpointId;
      view.endpoint = endpointUrl(dc.endpointId);
    }
    return view;
  }

  /** Validates prop values; returns the stored form (secrets sealed) and the runtime form. */
  async function prepareProps(
    workspaceId: string,
    declared: Record<string, PropDescription>,
    given: Record<string, unknown>,
  ): Promise<{ stored: Record<string, unknown> }> {
    const { values, problems } = validatePropValues(declared, given);
    if (problems.length > 0) {
      throw new HooklineError("invalid_prop_value", `Invalid props: ${propsProblemMessage(problems)}`, {
        problems,
      });
    }
    // App props: a connected account of the right app, unless the app needs none (apps.ts).
    const stored: Record<string, unknown> = await checkAppProps(appsCtx, workspaceId, declared, values);
    for (const [name, value] of Object.entries(values)) {
      const prop = declared[name];
      if (prop?.type === "app") continue;
      if (prop?.secret && typeof value === "string") stored[name] = box.seal(value);
      else stored[name] = value;
    }
    return { stored };
  }

  /** Turns stored prop values into what the sandbox gets: secrets opened, endpoints, `$auth`. */
  async function runtimeProps(
    workspaceId: string,
    declared: Record<string, PropDescription>,
    stored: Record<string, unknown>,
    endpointId: string | undefined,
  ): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(declared)) {
      const value = stored[name];
      if (prop.type === HTTP) out[name] = { endpoint: endpointId ? endpointUrl(endpointId) : undefined };
      else if (prop.type === "app")
        out[name] = { $auth: await openAuth(appsCtx, workspaceId, name, prop, value) };
      // Stored secrets are sealed; values being configured (options, reloadProps) are still plain.
      else if (prop.secret && box.isSealed(value)) out[name] = box.open(value);
      else if (value !== undefined) out[name] = value;
    }
    // Values of props not declared (yet): what a user configures before additionalProps() adds them.
    for (const [name, value] of Object.entries(stored)) {
      if (!(name in declared) && value !== undefined) out[name] = value;
    }
    return out;
  }

  function dbBridge(componentId: string, staged?: Map<string, unknown>): NonNullable<HostBridges["db"]> {
    return {
      async entries() {
        const rows = Object.fromEntries((await store.kv.list(componentId)).map((e) => [e.key, e.value]));
        if (staged)
          for (const [k, v] of staged)
            if (v === undefined) delete rows[k];
            else rows[k] = v;
        return rows;
      },
      async set(key, value) {
        if (staged) staged.set(key, value);
        else if (value === undefined) await store.kv.delete(componentId, key);
        else await store.kv.set(componentId, key, value);
      },
    };
  }

  async function flushStaged(componentId: string, staged: Map<string, unknown>): Promise<void> {
    for (const [key, value] of staged) {
      if (value === undefined) await store.kv.delete(componentId, key);
      else await store.kv.set(componentId, key, value);
    }
  }

  const fetchBridge = async (request: BridgeRequest): Promise<BridgeResponse> => {
    const body =
      request.body === undefined
        ? undefined
        : request.bodyEncoding === "base64"
          ? Buffer.from(request.body, "base64")
          : request.body;
    const res = await transport.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(body !== undefined && request.method !== "GET" && request.method !== "HEAD" ? { body } : {}),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString("utf8");
    const binary = !Buffer.from(text, "utf8").equals(bytes);
    return {
      status: res.status,
      statusText: res.statusText,
      headers: Object.fromEntries(res.headers),
      body: binary ? bytes.toString("base64") : text,
      bodyEncoding: binary ? "base64" : "utf8",
    };
  };

  async function mountSource(
    dc: Pick<DeployedComponent, "id" | "workspaceId" | "props" | "endpointId" | "meta">,
    saved: SavedComponent,
    staged?: Map<string, unknown>,
  ): Promise<MountedComponent> {
    const description = saved.description as ComponentDescription;
    const declared = finalProps(description, dynamicPropsOf(dc.meta));
    const bridges: HostBridges = { db: dbBridge(dc.id, staged), fetch: fetchBridge };
    return runtime.mount({
      id: dc.id,
      bundle: saved.bundle,
      description,
      props: await runtimeProps(dc.workspaceId, declared, dc.props, dc.endpointId),
      bridges,
      ...(options.limits ? { limits: options.limits } : {}),
    });
  }

  /** The mounted instance of a stored source, rebuilt when the source changed. */
  async function mountedFor(dc: DeployedComponent): Promise<MountedComponent> {
    const version = `${dc.savedComponentId}:${dc.updatedAt}:${JSON.stringify(dc.props)}`;
    const cached = mounts.get(dc.id);
    if (cached && cached.version === version) return cached.mounted;
    cached?.mounted.dispose();
    const saved = await savedOrThrow(dc.workspaceId, dc.savedComponentId);
    const mounted = await mountSource(dc, saved);
    mounts.set(dc.id, { mounted, version });
    return mounted;
  }

  function unmount(id: string): void {
    mounts.get(id)?.mounted.dispose();
    mounts.delete(id);
  }

  async function writeLogs(
    workspaceId: string,
    sourceId: string,
    lines: InvocationResult["logs"],
  ): Promise<void> {
    if (lines.length === 0) return;
    const stored = await store.logs.append(workspaceId, sourceId, lines);
    await store.logs.trim(sourceId, keepLogs);
    notify("log", { workspaceId, sourceId, lines: stored });
  }

  async function systemLog(
    workspaceId: string,
    sourceId: string,
    level: "info" | "warn" | "error",
    message: string,
  ) {
    await writeLogs(workspaceId, sourceId, [{ level, message, ts: clock.now() }]);
  }

  /**
   * The emit pipeline: metadata validated (an invalid emit is logged and dropped), `ts` ordering,
   * dedupe (state in the store), one outbox append (events + their delivery rows), retention.
   */
  async function storeEmits(
    dc: Pick<DeployedComponent, "id" | "workspaceId">,
    description: ComponentDescription,
    emits: InvocationResult["emits"],
  ): Promise<StoredEvent[]> {
    if (emits.length === 0) return [];
    const valid: { event: unknown; meta: EmitMeta }[] = [];
    for (const emit of emits) {
      const problems = validateEmitMeta(emit.meta);
      if (problems.length > 0) {
        await systemLog(
          dc.workspaceId,
          dc.id,
          "error",
          `invalid_emit: event dropped: ${propsProblemMessage(problems)}`,
        );
      } else valid.push(emit as { event: unknown; meta: EmitMeta });
    }
    let kept = orderEmits(valid);
    if (description.dedupe) {
      const state = (await store.dedupe.get(dc.id)) as DedupeState | undefined;
      try {
        const result = applyDedupe(description.dedupe, state, kept);
        kept = result.emitted;
        await store.dedupe.set(dc.id, result.state);
      } catch (error) {
        await systemLog(
          dc.workspaceId,
          dc.id,
          "error",
          `${(error as Error).message}: no event of this run was stored`,
        );
        return [];
      }
    }
    if (kept.length === 0) return [];
    const now = clock.now();
    const appended = await store.events.append(
      dc.workspaceId,
      dc.id,
      kept.map(({ event, meta }) => {
        const input: Parameters<Store["events"]["append"]>[2][number] = {
          channel: channelOf(meta),
          ts: meta.ts ?? now,
          body: event ?? null,
        };
        if (meta.summary !== undefined) input.summary = meta.summary;
        if (meta.id !== undefined) input.eventId = String(meta.id);
        return input;
      }),
      { now },
    );
    await store.events.trim(dc.id, keepEvents);
    for (const { deliveryIds, ...event } of appended) {
      notify("emit", { workspaceId: dc.workspaceId, sourceId: dc.id, event, deliveryIds });
    }
    if (appended.some((e) => e.deliveryIds.length > 0)) wakeWorker();
    return appended.map(({ deliveryIds: _ignored, ...event }) => event);
  }

  /** Runs a stored source (serialized per source) and feeds the result through the pipeline. */
  async function invokeRun(
    dc: DeployedComponent,
    event: unknown,
    trigger: "http" | "timer" | "manual",
  ): Promise<{ result: InvocationResult; stored: StoredEvent[] }> {
    return serialized(dc.id, async () => {
      const saved = await savedOrThrow(dc.workspaceId, dc.savedComponentId);
      const mounted = await mountedFor(dc);
      const result = await mounted.run(event);
      await writeLogs(dc.workspaceId, dc.id, result.logs);
      const stored = await storeEmits(dc, saved.description as ComponentDescription, result.emits);
      notify("invocation", {
        workspaceId: dc.workspaceId,
        sourceId: dc.id,
        kind: "run",
        trigger,
        durationMs: result.durationMs,
        ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
      });
      return { result, stored };
    });
  }

  function timerPropOf(description: ComponentDescription): string | undefined {
    return Object.entries(description.props).find(([, p]) => p.type === TIMER)?.[0];
  }

  async function scheduleTimer(dc: DeployedComponent, description: ComponentDescription): Promise<void> {
    const name = timerPropOf(description);
    if (!name || !dc.active) {
      await store.timers.delete(dc.id);
      return;
    }
    const config = dc.props[name] as TimerConfig;
    await store.timers.upsert({
      componentId: dc.id,
      workspaceId: dc.workspaceId,
      nextAt: nextFireAt(config, clock.now()),
    });
  }

  async function runHook(
    mounted: MountedComponent,
    dc: Pick<DeployedComponent, "id" | "workspaceId">,
    name: "deploy" | "activate" | "deactivate",
  ): Promise<InvocationResult> {
    const result = await mounted.hook(name);
    notify("invocation", {
      workspaceId: dc.workspaceId,
      sourceId: dc.id,
      kind: name,
      durationMs: result.durationMs,
      ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    });
    return result;
  }

  async function deploy(workspaceId: string, input: DeployInput): Promise<SourceView> {
    if (!(await store.workspaces.get(workspaceId)))
      throw new HooklineError("not_found", `No workspace ${workspaceId}`);
    let saved: SavedComponent;
    if (input.componentId) saved = await savedOrThrow(workspaceId, input.componentId);
    else if (input.componentKey)
      saved = await savedFromKey(workspaceId, input.componentKey, input.componentVersion);
    else if (input.code) saved = await saveCode(workspaceId, input.code);
    else throw new HooklineError("bad_request", "deploy needs a componentId, a componentKey or code");
    const description = saved.description as ComponentDescription;
    if (description.type !== "source") {
      throw new HooklineError(
        "bad_request",
        `${description.name} is an action: only sources can be deployed`,
      );
    }
    // additionalProps() (when the component has it) adds props given the values configured.
    const dynamic = await additionalPropsFor(workspaceId, saved, input.props ?? {}, description.props);
    const meta = withDynamicProps(undefined, dynamic);
    const { stored } = await prepareProps(workspaceId, finalProps(description, dynamic), input.props ?? {});
    const existing = (await store.deployedComponents.list(workspaceId)).map((d) => d.slug);
    const name = input.name ?? description.name;
    const active = input.active ?? true;
    const draft = {
      id: newId("dc", clock.now()),
      workspaceId,
      props: stored,
      endpointId: Object.values(description.props).some((p) => p.type === HTTP)
        ? newId("en", clock.now())
        : undefined,
      meta,
    };
    // Hooks run against staged db writes; nothing is stored unless every hook succeeds.
    const staged = new Map<string, unknown>();
    const mounted = await mountSource(draft, saved, staged);
    const collected: InvocationResult[] = [];
    try {
      const deployed = await runHook(mounted, draft, "deploy");
      collected.push(deployed);
      if (deployed.error) throw hookError("deploy", deployed);
      if (active) {
        const activated = await runHook(mounted, draft, "activate");
        collected.push(activated);
        if (activated.error) {
          await runHook(mounted, draft, "deactivate").catch(() => undefined);
          throw hookError("activate", activated);
        }
      }
    } catch (error) {
      mounted.dispose();
      throw error;
    }
    const dc = await store.deployedComponents.create({
      id: draft.id,
      workspaceId,
      savedComponentId: saved.id,
      name,
      slug: uniqueSlug(name, existing),
      props: stored,
      active,
      ...(draft.endpointId ? { endpointId: draft.endpointId } : {}),
      ...(meta ? { meta } : {}),
      customResponse: Object.values(description.props).some(
        (p) => p.type === HTTP && p.customResponse === true,
      ),
    });
    await flushStaged(dc.id, staged);
    mounted.dispose();
    for (const result of collected) {
      await writeLogs(workspaceId, dc.id, result.logs);
      await storeEmits(dc, description, result.emits);
    }
    await scheduleTimer(dc, description);
    notify("source", { workspaceId, sourceId: dc.id, change: "deployed" });
    return sourceView(dc, saved);
  }

  async function update(workspaceId: string, idOrSlug: string, input: UpdateInput): Promise<SourceView> {
    const dc = await sourceOrThrow(workspaceId, idOrSlug);
    return serialized(dc.id, async () => {
      const current = (await store.deployedComponents.get(workspaceId, dc.id)) as DeployedComponent;
      const oldSaved = await savedOrThrow(workspaceId, current.savedComponentId);
      let saved = oldSaved;
      if (input.componentId) saved = await savedOrThrow(workspaceId, input.componentId);
      else if (input.componentKey)
        saved = await savedFromKey(workspaceId, input.componentKey, input.componentVersion);
      else if (input.code) saved = await saveCode(workspaceId, input.code);
      const description = saved.description as ComponentDescription;
      if (description.type !== "source")
        throw new HooklineError("bad_request", "only sources can be deployed");
      const codeChanged = saved.id !== oldSaved.id;
      const propsChanged = input.props !== undefined;
      const active = input.active ?? current.active;
      // Keep earlier values (still sealed) for props not given; validate the merged set.
      const oldDescription = oldSaved.description as ComponentDescription;
      const oldDeclared = finalProps(oldDescription, dynamicPropsOf(current.meta));
      const opened = await runtimeProps(workspaceId, oldDeclared, current.props, current.endpointId);
      const merged: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(description.props)) {
        if (prop.type === HTTP || prop.type === "$.service.db" || prop.type === "alert") continue;
        if (input.props && name in input.props) merged[name] = input.props[name];
        else if (prop.type === "app") merged[name] = current.props[name];
        else if (opened[name] !== undefined) merged[name] = opened[name];
      }
      // Dynamic props: values given or kept for props additionalProps() returns with these values.
      let dynamic: Record<string, PropDescription> = {};
      if (description.hasAdditionalProps) {
        const configured: Record<string, unknown> = { ...merged };
        for (const name of Object.keys(dynamicPropsOf(current.meta))) {
          if (!(name in description.props) && opened[name] !== undefined) configured[name] = opened[name];
        }
        for (const [name, value] of Object.entries(input.props ?? {})) {
          if (!(name in description.props)) configured[name] = value;
        }
        const previous = codeChanged ? description.props : oldDeclared;
        dynamic = await additionalPropsFor(workspaceId, saved, configured, previous);
        // Values of props that no longer exist are dropped, unless given now (then unknown_prop).
        for (const [name, value] of Object.entries(configured)) {
          if (name in dynamic || (input.props && name in input.props)) merged[name] = value;
        }
      }
      const meta = withDynamicProps(current.meta, dynamic);
      const { stored } = await prepareProps(workspaceId, finalProps(description, dynamic), merged);
      const needsEndpoint = Object.values(description.props).some((p) => p.type === HTTP);
      const endpointId = needsEndpoint ? (current.endpointId ?? newId("en", clock.now())) : undefined;
      const next = { id: current.id, workspaceId, props: stored, endpointId, meta };
      const changedInstance = codeChanged || propsChanged || next.endpointId !== current.endpointId;

      const oldMounted = current.active || changedInstance ? await mountedFor(current) : undefined;
      const logs: InvocationResult[] = [];
      // 1. deactivate() the running instance (when it is active and something changes).
      if (current.active && (changedInstance || !active) && oldMounted) {
        const deactivated = await runHook(oldMounted, current, "deactivate");
        logs.push(deactivated);
        if (deactivated.error) {
          await writeLogs(workspaceId, current.id, deactivated.logs);
          throw hookError("deactivate", deactivated);
        }
      }
      // 2. activate() the new instance, with staged db writes.
      const staged = new Map<string, unknown>();
      let newMounted: MountedComponent | undefined;
      if (active && (changedInstance || !current.active)) {
        // Reactivating an inactive source with nothing else changed reuses (or builds) its instance.
        newMounted = changedInstance
          ? await mountSource(next, saved, staged)
          : (oldMounted ?? (await mountedFor(current)));
        const activated = await runHook(newMounted, next, "activate");
        logs.push(activated);
        if (activated.error) {
          if (changedInstance) newMounted?.dispose();
          // Put the old instance back the way it was.
          if (current.active && oldMounted) {
            const restored = await runHook(oldMounted, current, "activate");
            logs.push(restored);
          }
          for (const r of logs) await writeLogs(workspaceId, current.id, r.logs);
          throw hookError("activate", activated);
        }
      }
      const patch: Parameters<Store["deployedComponents"]["update"]>[2] = {
        savedComponentId: saved.id,
        props: stored,
        active,
        endpointId: endpointId ?? null,
        meta: meta ?? null,
        customResponse: Object.values(description.props).some(
          (p) => p.type === HTTP && p.customResponse === true,
        ),
      };
      if (input.name !== undefined && input.name !== current.name) {
        const others = (await store.deployedComponents.list(workspaceId)).filter((d) => d.id !== current.id);
        patch.name = input.name;
        patch.slug = uniqueSlug(
          input.name,
          others.map((d) => d.slug),
        );
      }
      const updated = await store.deployedComponents.update(workspaceId, current.id, patch);
      if (!updated) throw new HooklineError("not_found", `No source ${idOrSlug} in this workspace`);
      await flushStaged(updated.id, staged);
      if (newMounted && changedInstance) {
        newMounted.dispose();
        unmount(updated.id);
      } else if (changedInstance) unmount(updated.id);
      for (const r of logs) {
        await writeLogs(workspaceId, updated.id, r.logs);
        await storeEmits(updated, description, r.emits);
      }
      await scheduleTimer(updated, description);
      const change =
        changedInstance || input.name !== undefined ? "updated" : active ? "activated" : "deactivated";
      notify("source", { workspaceId, sourceId: updated.id, change });
      return sourceView(updated, saved);
    });
  }

  async function remove(workspaceId: string, idOrSlug: string): Promise<{ warnings: string[] }> {
    const dc = await sourceOrThrow(workspaceId, idOrSlug);
    return serialized(dc.id, async () => {
      const warnings: string[] = [];
      if (dc.active) {
        try {
          const mounted = await mountedFor(dc);
          const result = await runHook(mounted, dc, "deactivate");
          if (result.error) warnings.push(`deactivate() failed: ${result.error.message}`);
        } catch (error) {
          warnings.push(`deactivate() could not run: ${(error as Error).message}`);
        }
      }
      unmount(dc.id);
      await store.events.delete(workspaceId, dc.id);
      await store.timers.delete(dc.id);
      await store.deployedComponents.delete(workspaceId, dc.id);
      notify("source", { workspaceId, sourceId: dc.id, change: "deleted" });
      return { warnings };
    });
  }

  async function ingress(endpointId: string, request: IngressRequest): Promise<IngressResponse> {
    const dc = await store.deployedComponents.getByEndpoint(endpointId);
    if (!dc?.active) {
      return json(404, {
        error: {
          code: "not_found",
          message: dc
            ? "This source is inactive: activate it to receive requests"
            : "No source listens at this endpoint",
        },
      });
    }
    const { result } = await invokeRun(dc, toHttpEvent(request), "http");
    if (!dc.customResponse) return json(200, { success: true });
    const first = result.responds[0];
    if (!first) {
      return json(result.error ? 500 : 502, {
        error: result.error
          ? { code: "run_failed", message: `The source failed before responding: ${result.error.message}` }
          : { code: "no_response", message: "The source finished without calling respond()" },
      });
    }
    const { value, problems, warnings } = validateRespond(first);
    for (const warning of warnings) await systemLog(dc.workspaceId, dc.id, "warn", warning);
    if (!value) {
      const message = `respond(): ${problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ")}`;
      await systemLog(dc.workspaceId, dc.id, "error", `invalid_respond: ${message}`);
      return json(502, { error: { code: "invalid_respond", message } });
    }
    const headers: Record<string, string> = { ...value.headers };
    let body: string | Uint8Array = "";
    const raw = value.body as unknown;
    if (raw && typeof raw === "object" && "$bytes" in (raw as object)) {
      body = Buffer.from(String((raw as { $bytes: string }).$bytes), "base64");
    } else if (typeof raw === "string") body = raw;
    else if (raw !== undefined) {
      body = JSON.stringify(raw);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
        headers["content-type"] = "application/json";
      }
    }
    return { status: value.status, headers, body };
  }

  async function tick(): Promise<number> {
    const now = clock.now();
    const due = await store.timers.claimDue(now, nodeId, 60_000, 100);
    let fired = 0;
    for (const timer of due) {
      const dc = await store.deployedComponents.get(timer.workspaceId, timer.componentId);
      if (!dc?.active) {
        await store.timers.delete(timer.componentId);
        continue;
      }
      const saved = await savedOrThrow(dc.workspaceId, dc.savedComponentId);
      const name = timerPropOf(saved.description as ComponentDescription);
      if (!name) continue;
      const config = dc.props[name] as TimerConfig;
      const plan = planTick(config, timer.nextAt, now);
      if (!(await store.timers.advance(dc.id, nodeId, timer.nextAt, plan.next))) continue;
      if (!plan.fire) continue;
      if (plan.missed > 0) {
        await systemLog(
          dc.workspaceId,
          dc.id,
          "warn",
          `timer: ${plan.missed} tick(s) missed while down; one catch-up run`,
        );
      }
      fired++;
      await invokeRun(dc, timerEvent(config, timer.nextAt), "timer");
    }
    return fired;
  }

  async function resolveKey(key: string): Promise<Workspace | undefined> {
    if (typeof key !== "string" || key === "") return undefined;
    const found = await store.apiKeys.findByHash(hashApiKey(key));
    return found ? store.workspaces.get(found.workspaceId) : undefined;
  }

  async function options_(
    workspaceId: string,
    target: { componentId?: string; sourceId?: string },
    prop: string,
    args: OptionsArgs & { props?: Record<string, unknown> } = {},
  ): Promise<{ options: unknown[]; context?: unknown }> {
    let saved: SavedComponent;
    let base: Pick<DeployedComponent, "id" | "workspaceId" | "props" | "endpointId" | "meta">;
    if (target.sourceId) {
      const dc = await sourceOrThrow(workspaceId, target.sourceId);
      saved = await savedOrThrow(workspaceId, dc.savedComponentId);
      base = dc;
    } else if (target.componentId) {
      saved = await componentFor(workspaceId, target.componentId);
      base = { id: `${saved.id}:options`, workspaceId, props: {}, endpointId: undefined };
    } else throw new HooklineError("bad_request", "options need a componentId or a sourceId");
    const description = saved.description as ComponentDescription;
    if (!(prop in description.props) && !description.hasAdditionalProps) {
      throw new HooklineError("not_found", `The component has no prop "${prop}"`);
    }
    // Earlier configured values (unvalidated: the user is still filling the form).
    const props = { ...base.props, ...(args.props ?? {}) };
    const mounted = await mountSource({ ...base, props }, saved, new Map());
    try {
      const { props: _omit, ...optionArgs } = args;
      const result = await mounted.options(prop, optionArgs);
      if (result.error) {
        const code =
          result.error.code === "configuration_error"
            ? "configuration_error"
            : result.error.code === "unknown_prop"
              ? "not_found"
              : "bad_request";
        throw new HooklineError(code, result.error.message, { error: result.error, logs: result.logs });
      }
      return result.returnValue as { options: unknown[]; context?: unknown };
    } finally {
      mounted.dispose();
    }
  }

  const accountView = (a: Account): AccountView => ({
    id: a.id,
    workspaceId: a.workspaceId,
    app: a.app,
    name: a.name,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  });

  const { webhooks, subscriptions } = createWebhooksApi(store, box, clock, wakeWorker);

  return {
    events,
    store,
    webhooks,
    subscriptions,
    registry: registry.api,
    accounts: {
      async create(workspaceId, input) {
        if (typeof input.app !== "string" || !/^[a-z0-9_]+$/.test(input.app)) {
          throw new HooklineError("bad_request", "app must be an app name slug such as github");
        }
        if (
          typeof input.credentials !== "object" ||
          input.credentials === null ||
          Array.isArray(input.credentials)
        ) {
          throw new HooklineError("bad_request", "credentials must be an object (the app's $auth)");
        }
        const account = await store.accounts.create({
          workspaceId,
          app: input.app,
          name: input.name ?? input.app,
          credentials: box.seal(JSON.stringify(input.credentials)),
        });
        return accountView(account);
      },
      async get(workspaceId, id) {
        const account = await store.accounts.get(workspaceId, id);
        if (!account) throw new HooklineError("not_found", `No account ${id} in this workspace`);
        return accountView(account);
      },
      async list(workspaceId, filter) {
        return (await store.accounts.list(workspaceId, filter)).map(accountView);
      },
      async delete(workspaceId, id) {
        if (!(await store.accounts.get(workspaceId, id)))
          throw new HooklineError("not_found", `No account ${id} in this workspace`);
        const users = (await store.deployedComponents.list(workspaceId)).filter((dc) =>
          Object.values(dc.props).some(
            (v) => (v as { authProvisionId?: unknown } | null)?.authProvisionId === id,
          ),
        );
        if (users.length > 0) {
          throw new HooklineError(
            "account_in_use",
            `Account ${id} is used by ${users.map((u) => u.slug).join(", ")}: update or delete those sources first`,
            { sources: users.map((u) => u.id) },
          );
        }
        await store.accounts.delete(workspaceId, id);
      },
    },
    workspaces: {
      create: (input) => store.workspaces.create(input),
      get: (id) => store.workspaces.get(id),
      list: () => store.workspaces.list(),
    },
    apiKeys: {
      async create(workspaceId, input = {}) {
        if (!(await store.workspaces.get(workspaceId)))
          throw new HooklineError("not_found", `No workspace ${workspaceId}`);
        const key = generateApiKey();
        const apiKey = await store.apiKeys.create({
          workspaceId,
          name: input.name ?? "default",
          hash: hashApiKey(key),
          hint: apiKeyHint(key),
        });
        return { key, apiKey };
      },
      list: (workspaceId) => store.apiKeys.list(workspaceId),
      revoke: (workspaceId, id) => store.apiKeys.revoke(workspaceId, id),
      resolve: resolveKey,
    },
    components: {
      async save(workspaceId, input) {
        return componentView(await saveCode(workspaceId, input));
      },
      async get(workspaceId, idOrKey) {
        return componentView(await componentFor(workspaceId, idOrKey));
      },
      async list(workspaceId) {
        return (await store.savedComponents.list(workspaceId)).map(componentView);
      },
      async fetchCode(url) {
        let res: Response;
        try {
          res = await transport.fetch(url, { method: "GET", signal: AbortSignal.timeout(15_000) });
        } catch (error) {
          const code = (error as { code?: string }).code;
          throw new HooklineError("bad_request", `Could not fetch ${url}: ${(error as Error).message}`, {
            ...(code ? { cause: code } : {}),
          });
        }
        if (res.status < 200 || res.status > 299) {
          throw new HooklineError("bad_request", `Fetching ${url} answered ${res.status}`);
        }
        const text = await res.text();
        if (text.length > 1024 * 1024)
          throw new HooklineError("payload_too_large", "component code is over 1 MB");
        return text;
      },
      async reloadProps(workspaceId, componentId, configured, reloadOptions = {}) {
        const saved = await componentFor(workspaceId, componentId);
        const description = saved.description as ComponentDescription;
        const previous = { ...description.props, ...(reloadOptions.previous ?? {}) };
        return finalProps(description, await additionalPropsFor(workspaceId, saved, configured, previous));
      },
    },
    sources: {
      deploy,
      async get(workspaceId, idOrSlug) {
        return sourceView(await sourceOrThrow(workspaceId, idOrSlug));
      },
      async list(workspaceId) {
        return Promise.all((await store.deployedComponents.list(workspaceId)).map((dc) => sourceView(dc)));
      },
      update,
      activate: (workspaceId, idOrSlug) => update(workspaceId, idOrSlug, { active: true }),
      deactivate: (workspaceId, idOrSlug) => update(workspaceId, idOrSlug, { active: false }),
      delete: remove,
      async run(workspaceId, idOrSlug, event) {
        const dc = await sourceOrThrow(workspaceId, idOrSlug);
        const saved = await savedOrThrow(workspaceId, dc.savedComponentId);
        const timerProp = timerPropOf(saved.description as ComponentDescription);
        const payload =
          event ?? (timerProp ? timerEvent(dc.props[timerProp] as TimerConfig, clock.now()) : {});
        const { result, stored } = await invokeRun(dc, payload, "manual");
        const summary: RunSummary = { emitted: stored, durationMs: result.durationMs };
        if (result.error) summary.error = result.error;
        return summary;
      },
      async events(workspaceId, idOrSlug, listOptions) {
        const dc = await sourceOrThrow(workspaceId, idOrSlug);
        return store.events.list(workspaceId, dc.id, listOptions);
      },
      async deleteEvents(workspaceId, idOrSlug, ids) {
        const dc = await sourceOrThrow(workspaceId, idOrSlug);
        return store.events.delete(workspaceId, dc.id, ids);
      },
      async logs(workspaceId, idOrSlug, listOptions) {
        const dc = await sourceOrThrow(workspaceId, idOrSlug);
        return store.logs.list(workspaceId, dc.id, listOptions);
      },
      options: options_,
    },
    ingress,
    worker,
    timers: { tick },
    start() {
      if (timerLoop || closed) return;
      worker?.start();
      const loop = () => {
        timerLoop = setTimeout(() => {
          tick()
            .catch(() => undefined)
            .finally(() => {
              if (!closed) loop();
            });
        }, options.timerPollMs ?? 1000);
        timerLoop.unref?.();
      };
      loop();
    },
    async close() {
      closed = true;
      await fanout.close();
      if (timerLoop) clearTimeout(timerLoop);
      await Promise.all([...queues.values()]);
      await worker?.stop();
      for (const id of [...mounts.keys()]) unmount(id);
      if (ownsRuntime) await runtime.close();
      if (ownsTransport) transport.close();
    },
  };
}
