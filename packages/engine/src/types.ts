/**
 * The engine's public option, input and result types (everything but the {@link Hookline}
 * interface itself and the views). A leaf module: it imports no other engine module but the clock,
 * and retention's options, so every engine module can use these types without an import circle.
 */
import type { DeliveryWorkerOptions, Destinations, Transport } from "@hookline/delivery";
import type { Limits, PackagesOptions, PoolOptions, Runtime } from "@hookline/runtime";
import type { Store, StoredEvent } from "@hookline/store";
import type { Clock } from "./clock.js";
import type { OAuthOptions } from "./oauth/options.js";
import type { RetentionOptions } from "./retention.js";

/** Options of the delivery worker the engine runs (see `createDeliveryWorker` in `@hookline/delivery`). */
export type EngineWorkerOptions = Omit<
  DeliveryWorkerOptions,
  "store" | "transport" | "decryptSecret" | "clock"
>;

/**
 * The engine's own limits, next to the sandbox's (docs/engine.md, "Limits"). Each bounds what one
 * source can make the engine hold or store.
 */
export interface EngineLimits {
  /**
   * Invocations of one source that may wait behind the running one (runs from HTTP requests,
   * timers and manual runs; default 100). Over it the call fails with `source_busy` (429) and an
   * HTTP request to the source's endpoint is answered 429 with `Retry-After`.
   */
  maxQueuedInvocations: number;
  /** `$emit` calls one invocation may make (default 1,000); the events past it are refused. */
  maxEmitsPerRun: number;
  /** Largest event, in bytes of its JSON text (default 1 MB, 1,048,576); larger ones are refused. */
  maxEventBytes: number;
  /** Keys one data store may hold (default 10,000); a new key past it fails with `data_store_full`. */
  maxDataStoreKeys: number;
  /**
   * Largest data store value, in bytes of its JSON text (default 256 KB, 262,144); a larger one
   * fails with `data_store_value_too_large`.
   */
  maxDataStoreValueBytes: number;
  /**
   * Largest workflow run, in bytes (default 6 MB, 6,291,456): its trigger event plus the return
   * values, exports and logs of its steps. An HTTP trigger over it answers 413
   * `execution_too_large`; a step that brings the run over it fails with that code.
   */
  maxExecutionBytes: number;
}

/** The engine's limits when none are given. */
export const DEFAULT_ENGINE_LIMITS: Readonly<EngineLimits> = Object.freeze({
  maxQueuedInvocations: 100,
  maxEmitsPerRun: 1_000,
  maxEventBytes: 1024 * 1024,
  maxDataStoreKeys: 10_000,
  maxDataStoreValueBytes: 256 * 1024,
  maxExecutionBytes: 6 * 1024 * 1024,
});

/** Options of {@link createHookline}. */
export interface HooklineOptions {
  /** Where everything is kept (default: a new in-memory store). */
  store?: Store;
  /** The sandbox runtime (default: one resolving bare imports as `packages` says). */
  runtime?: Runtime;
  /**
   * Where the default runtime runs sandboxes: `{ mode: "thread" }` (the default) in this thread,
   * or `{ mode: "pool", size }` in worker threads, so that a component that cannot be interrupted
   * never holds up the API, the other sources or delivery (`pd serve` uses the pool). See
   * `RuntimeOptions.mode` and `PoolOptions` in `@hookline/runtime`.
   */
  sandboxes?: { mode?: "thread" | "pool" } & PoolOptions;
  /**
   * Where the default runtime finds npm packages for bare imports: `./node_modules`, then the
   * package cache (default `./node_modules/.cache/hookline/packages`), then the npm registry
   * (`registry: false` turns it off). See `PackagesOptions` in `@hookline/runtime`.
   */
  packages?: PackagesOptions;
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
  /**
   * The public base URL, used to build HTTP endpoints (`<baseUrl>/http/<endpoint_id>`): where the
   * server is reached (the address it listens on, or the public one behind a proxy). Default
   * `http://localhost:4100`, right only for a server there.
   */
  baseUrl?: string;
  /**
   * How much history each source keeps: events and log lines by count and by bytes, trimmed off the
   * emit path within `intervalMs` of a write (see {@link RetentionOptions}).
   */
  retention?: RetentionOptions;
  /**
   * Limits: those of every invocation in the sandbox (time, memory, result size) and the engine's
   * own (queued invocations per source, emits per run, event size), each optional.
   *
   * @example
   * ```ts
   * createHookline({ limits: { runTimeoutMs: 10_000, maxEmitsPerRun: 500, maxEventBytes: 256 * 1024 } });
   * ```
   */
  limits?: Partial<Limits> & Partial<EngineLimits>;
  /**
   * Where workflows' `$.send.email` and `$.send.s3` go (see `Destinations` in `@hookline/delivery`;
   * `destinationsFromEnv(process.env)` reads them as `pd serve` does). A kind left out fails the
   * step with `destination_not_configured`. The engine closes them when it closes.
   *
   * @example
   * ```ts
   * createHookline({ destinations: destinationsFromEnv(process.env) });
   * ```
   */
  destinations?: Destinations;
  /** Timers: how often due ticks are looked for once {@link Hookline.start} ran (default 1,000 ms). */
  timerPollMs?: number;
  /**
   * Workflows: how long a node holds a running execution before another node may take it over
   * (default 5 minutes, renewed as its steps end). A node that dies mid-step delays its runs by at
   * most this long; a step that runs longer than it may run twice.
   */
  executionLeaseMs?: number;
  /** This node's name in leases (`leaseOwner`), unique among the nodes on one store (default random). */
  nodeId?: string;
  /**
   * App name slugs whose app props need no connected account, like Pipedream's `http` app
   * (default {@link DEFAULT_NO_AUTH_APPS}). Other required app props fail with `account_required`.
   */
  noAuthApps?: readonly string[];
  /**
   * Managed authentication over OAuth: origins a connect flow may return to besides the server's,
   * and how early tokens are refreshed (docs/accounts.md).
   */
  oauth?: OAuthOptions;
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

/** The engine's answer to an HTTP-interface request. */
export interface IngressResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Who the endpoint belongs to, once found (for logs and metrics; not sent to the caller). */
  target?: IngressTarget;
}

/** The owner of an HTTP endpoint: a source or a workflow, and its workspace. */
export interface IngressTarget {
  kind: "source" | "workflow";
  workspaceId: string;
  /** The source (`dc_...`) or workflow (`p_...`): the emitter of what the request causes. */
  emitterId: string;
}

/**
 * How many events of one invocation the emit pipeline refused, by reason (docs/engine.md, "The
 * emit pipeline"). Each reason also wrote one line to the source's logs.
 */
export interface RefusedEmits {
  /** Every refused event. */
  total: number;
  /** Invalid `$emit` metadata, such as a channel name outside the rule of `validateChannelName`. */
  invalid: number;
  /** Past `limits.maxEmitsPerRun`. */
  overEmitLimit: number;
  /** Larger than `limits.maxEventBytes` once serialized. */
  tooLarge: number;
}

/** The result of a manual run. */
export interface RunSummary {
  emitted: StoredEvent[];
  error?: { code: string; name: string; message: string; stack?: string };
  durationMs: number;
  /** Present when the emit pipeline refused some of the run's events: how many, and why. */
  refused?: RefusedEmits;
}
