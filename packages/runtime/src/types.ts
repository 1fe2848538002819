/**
 * The public contract of `@hookline/runtime`: what the engine (and embedders) call.
 *
 * The runtime knows nothing of storage or HTTP. Everything with a side effect outside the sandbox
 * goes through {@link HostBridges} that the caller passes in.
 */

import type { ComponentDescription, PropDescription, TlsSettings } from "@hookline/core";

export type { ComponentDescription, PropDescription };

/** Source files handed to {@link Runtime.load}. */
export interface LoadInput {
  /** The component's code. */
  code: string;
  /** Its file name; the extension picks the loader: `.js`, `.mjs`, `.cjs` or `.ts`. */
  filename: string;
  /**
   * Sibling files the component imports by relative path, keyed by their path relative to the
   * component file's folder (`"../github.app.mjs"`, `"common/utils.mjs"`).
   */
  files?: Record<string, string>;
}

/** What {@link Runtime.load} returns: a bundle ready to mount, and its description. */
export interface LoadedComponent {
  /** The bundled code (one script, bare imports resolved), what {@link MountOptions.bundle} takes. */
  bundle: string;
  /** Content hash (sha256 hex) of the bundle; the runtime's caches are keyed by it. */
  hash: string;
  description: ComponentDescription;
  /**
   * The npm packages bundled in, with the versions used and the range the component's own import
   * named (`import x from "pkg@^1.2"`; several are comma-separated), if any. SPEC: such pins apply
   * to sources only.
   */
  packages: { name: string; version: string; range?: string; offline?: string }[];
}

/** An HTTP request a component makes through `fetch` or `axios`, handed to the host. */
export interface BridgeRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** The body as text (base64 when `bodyEncoding` is `base64`). */
  body?: string;
  bodyEncoding?: "utf8" | "base64";
}

/** The host's answer to a {@link BridgeRequest}. */
export interface BridgeResponse {
  status: number;
  statusText?: string;
  headers: Record<string, string>;
  body: string;
  bodyEncoding?: "utf8" | "base64";
}

/** TLS settings of a component's `https` request or `tls` socket (core's {@link TlsSettings}). */
export type BridgeTlsOptions = TlsSettings;

/** A request a component makes through Node's `http`/`https` modules, handed to the host whole. */
export interface HttpBridgeRequest {
  url: string;
  method: string;
  /** Header names as the component wrote them; a list sends the header once per value. */
  headers: Record<string, string | string[]>;
  /** The body, base64. */
  body?: string;
  tls?: BridgeTlsOptions;
  /** Give up after this long (the invocation's remaining time, or the component's own timeout). */
  timeoutMs: number;
  /** Fail (`response_too_large`) past this many body bytes (`limits.httpResponseBytes`). */
  maxResponseBytes: number;
}

/** The host's answer to an {@link HttpBridgeRequest}: Node's view of the response. */
export interface HttpBridgeResponse {
  status: number;
  statusText: string;
  httpVersion: string;
  /** Alternating names and values, as received. */
  rawHeaders: string[];
  /** The body, base64. */
  body: string;
  /** True when the body was longer than `maxResponseBytes` (then cut). */
  truncated?: boolean;
}

/** A socket a component opens with `net.connect` or `tls.connect`. */
export interface SocketRequest {
  host: string;
  port: number;
  tls?: BridgeTlsOptions;
  family?: 4 | 6;
  timeoutMs?: number;
}

/**
 * Opens components' sockets on the host. `connect` must apply the SSRF guard (the engine passes
 * its transport's guarded connector) and resolve once connected (TLS: once the handshake is done).
 * The runtime owns the sockets' caps, idle timeouts and closing (docs/security.md, "Sockets").
 */
export interface NetBridge {
  /** Opens a socket (TLS when `request.tls` is given); resolves once connected. */
  connect(request: SocketRequest): Promise<NetSocket>;
  /** Starts TLS on a connected socket (`tls.connect({ socket })`, STARTTLS). */
  upgrade(socket: NetSocket, options: BridgeTlsOptions & { timeoutMs?: number }): Promise<NetSocket>;
  /** `dns.lookup(hostname, { all: true })` behind the same guard. */
  lookup(hostname: string, options?: { family?: 4 | 6 }): Promise<{ address: string; family: number }[]>;
}

/** A connected host socket (a `net.Socket` or `tls.TLSSocket`). */
export type NetSocket = import("node:net").Socket;

/** Functions the caller supplies; the sandbox reaches the outside world only through these. */
export interface HostBridges {
  /**
   * The `$.service.db` store of this deployed component. Values are JSON. Before an invocation of
   * a component that declares a db prop, the runtime reads `entries()` once, so that
   * `this.db.get(key)` is synchronous, as in Pipedream; the `set`s of the invocation are written
   * back when it ends (also when it fails), all in one `write` call, in order.
   */
  db?: {
    /**
     * Every key and value of this component's db (the runtime only reads the object: a bridge may
     * keep it and answer with it again while the db has not changed).
     */
    entries(): Promise<Record<string, unknown>>;
    /** Stores an invocation's writes in order (`[key, value]`; `undefined` deletes the key). */
    write(writes: [key: string, value: unknown][]): Promise<void>;
  };
  /** Outbound HTTP (the engine passes the SSRF-guarded transport). Absent: fetch fails clearly. */
  fetch?: (request: BridgeRequest) => Promise<BridgeResponse>;
  /**
   * The named key-value stores of `data_store` props (Pipedream's data stores): one operation per
   * call, answered with its JSON result. Absent: a data store's methods fail clearly.
   */
  dataStore?: (request: DataStoreRequest) => Promise<unknown>;
  /**
   * Node's `http.request`/`https.request` (the engine passes its SSRF-guarded transport). Absent:
   * those requests fail clearly. Rejections keep their `code` (`ssrf_blocked`, `ECONNREFUSED`...).
   */
  http?: (request: HttpBridgeRequest) => Promise<HttpBridgeResponse>;
  /** Sockets (`net`, `tls`) and `dns.lookup`. Absent: they fail clearly. */
  net?: NetBridge;
}

/**
 * One call of a `data_store` prop's methods. Results: `get` the value (undefined when absent),
 * `has` and `delete` a boolean, `keys` the keys, `entries` `[key, value]` pairs, the others nothing.
 */
export interface DataStoreRequest {
  /** The store's name: the prop's configured value. */
  store: string;
  op: "get" | "set" | "has" | "delete" | "keys" | "entries" | "clear" | "setTtl";
  key?: string;
  /** For `set`: a JSON value. */
  value?: unknown;
  /** For `set` and `setTtl`: seconds until the record expires (`null`: never). */
  ttl?: number | null;
}

/** Per-invocation limits. */
export interface Limits {
  /** Deadline for `run` and hooks, ms (default 30,000). */
  runTimeoutMs: number;
  /**
   * Deadline for a `run` started by an HTTP request (`run(event, { trigger: "http" })`), ms
   * (default 10,000): shorter than timers and hooks, since a caller waits on it.
   */
  httpTimeoutMs: number;
  /** Deadline for `options` and `additionalProps`, ms (default 5,000). */
  optionsTimeoutMs: number;
  /** Memory per sandbox, bytes (default 64 MB): the cap of timers, hooks, actions and options. */
  memoryBytes: number;
  /**
   * Memory cap of a `run` started by an HTTP request, bytes (default 32 MB; `memoryBytes` when that
   * is smaller): the sandbox's heap, warm state included, may not grow past it during such a run.
   */
  httpMemoryBytes: number;
  /** Largest serialized result (emits, exports, return value...), bytes (default 8 MB). */
  resultBytes: number;
  /**
   * Size of the component's private, in-memory `/tmp` (the bytes of its files together), bytes
   * (default 64 MB). Writes past it fail with `ENOSPC`.
   */
  tmpBytes: number;
  /** Sockets (`net`, `tls`) a mounted component may have open at once (default 16). */
  sockets: number;
  /** Sockets an invocation may open (default 64). */
  socketsPerInvocation: number;
  /** Bytes sent and received on sockets during one invocation, bytes (default 64 MB). */
  socketBytes: number;
  /** A socket with no traffic either way for this long is closed, ms (default 300,000). */
  socketIdleMs: number;
  /** Largest body of a response to `http.request`, bytes (default 16 MB). */
  httpResponseBytes: number;
}

/** Everything needed to mount one deployed component. */
export interface MountOptions {
  /** The deployed component's id (`dc_...`), for logs and `process.env.PD_COMPONENT`. */
  id: string;
  /** The bundle from {@link Runtime.load}. */
  bundle: string;
  /**
   * Configured prop values, already decrypted and resolved by the caller:
   * user-input props -> their values; `$.interface.http` -> `{ endpoint }`;
   * `$.interface.timer` -> `{ intervalSeconds }` or `{ cron, timezone? }`;
   * `app` -> `{ $auth }` (the credentials; read-only in the sandbox); `$.service.db` -> omitted;
   * `data_store` -> the store's name (its methods go through {@link HostBridges.dataStore}).
   */
  props: Record<string, unknown>;
  bridges?: HostBridges;
  limits?: Partial<Limits>;
  /**
   * The description {@link Runtime.load} returned for this bundle. Given, mounting skips describing
   * the component again (walking and validating its definition); it must match the bundle.
   */
  description?: ComponentDescription;
}

/** Emit metadata, as passed to `this.$emit(event, meta)`. */
export interface EmitMeta {
  id?: string | number;
  name?: string;
  summary?: string;
  ts?: number;
}

/**
 * Arguments of `respond()` (HTTP interface) or `$.respond()` (actions), as the component passed
 * them (made JSON; bytes as `{ $bytes: "<base64>" }`). Not validated here: the caller checks them
 * with `validateRespond` from `@hookline/core`, the one owner of the rule.
 */
export type RespondCall = unknown;

/** One line of a component's console output or error, as logged during an invocation. */
export interface LogLine {
  level: "debug" | "info" | "log" | "warn" | "error";
  message: string;
  /** Epoch ms. */
  ts: number;
}

/** The error an invocation ended with. */
export interface InvocationError {
  /** `timeout`, `memory`, `configuration_error`, `result_too_large`, `invalid_respond`, `error`... */
  code: string;
  name: string;
  message: string;
  /** Stack with the component's own file names and lines. */
  stack?: string;
}

/** What happened during one invocation. Never throws for component errors: see `error`. */
export interface InvocationResult {
  /**
   * Each `this.$emit(event, meta)`, in order: the event, its JSON text as the sandbox wrote it
   * (`json`, absent when the event is undefined: the bytes a store keeps and a webhook receives) and
   * its metadata.
   */
  emits: { event: unknown; json?: string; meta: EmitMeta }[];
  exports: Record<string, unknown>;
  returnValue?: unknown;
  responds: RespondCall[];
  sends: { kind: "http" | "email" | "s3" | "emit" | "sse"; payload: unknown }[];
  flowExit?: { reason?: string };
  /** A `$.flow.delay`, `$.flow.suspend` or `$.flow.rerun` call (workflow steps): the pause asked for. */
  pause?: FlowPause;
  logs: LogLine[];
  error?: InvocationError;
  durationMs: number;
}

/** A pause a workflow step asked for with `$.flow.delay`, `$.flow.suspend` or `$.flow.rerun`. */
export interface FlowPause {
  kind: "delay" | "suspend" | "rerun";
  /** The delay (delay, rerun) or the timeout (suspend; absent: none given), in ms. */
  ms?: number;
  /** `$.flow.rerun`'s context (JSON). */
  context?: unknown;
  /** `$.flow.rerun`'s most reruns. */
  maxReruns?: number;
}

/** One `{{ }}` expression-bearing prop value of a workflow step (see {@link ActionRunOptions}). */
export interface StepExpression {
  /** Where the value goes in the props: `["text"]`, `["headers", "x-key"]`, `["ids", 0]`. */
  path: (string | number)[];
  /** Text and expressions (`{ code }`), in order, as core's `parseTemplate` splits them. */
  parts: (string | { code: string })[];
  /** One whole expression: the value keeps its type. Otherwise the parts are joined as text. */
  whole: boolean;
  /** How errors name the value, such as `configured_props.text`. */
  label: string;
}

/** Per-run options of {@link MountedComponent.runAction} (workflow steps). */
export interface ActionRunOptions {
  /** The prop values of this run, resolved by the caller (as {@link MountOptions.props}). */
  props?: Record<string, unknown>;
  /** Expressions evaluated in the sandbox and set into `props` before `run`. */
  exprs?: StepExpression[];
  /** The environment variables the expressions read, as `process.env.NAME`. */
  env?: Record<string, string>;
  /** `$.context` in the step (JSON): the execution id, the step, the attempt number... */
  context?: Record<string, unknown>;
  /** The URLs `$.flow.delay`/`suspend`/`rerun` return (without them those calls throw). */
  flow?: { resume_url: string; cancel_url: string };
}

/** Arguments of an async options call: SPEC's `{ page, prevContext, query }`. */
export interface OptionsArgs {
  page?: number;
  prevContext?: unknown;
  query?: string;
  /** For a prop that `additionalProps` defines: the prop definitions it gets as its argument. */
  previous?: Record<string, PropDescription>;
}

/** What started an invocation, for its limits: an HTTP request gets `limits.httpTimeoutMs`. */
export interface InvocationContext {
  trigger?: "http" | "timer" | "manual";
}

/** A mounted instance of one deployed component. */
export interface MountedComponent {
  readonly id: string;
  readonly description: ComponentDescription;
  /**
   * Source: `run(event)`. Action: `run({ $, steps })` with `event` as `steps` (see
   * {@link MountedComponent.runAction}). `context.trigger` picks the deadline.
   */
  run(event: unknown, context?: InvocationContext): Promise<InvocationResult>;
  /**
   * Action: `run({ $, steps })`. A workflow step passes `options`: its prop values for this run
   * (bound to `this` instead of the mount's) and the `{{ }}` expressions to evaluate over `steps`
   * and `env` in the sandbox first.
   */
  runAction(steps?: Record<string, unknown>, options?: ActionRunOptions): Promise<InvocationResult>;
  /** Runs a lifecycle hook; a hook the component does not define does nothing. */
  hook(name: "deploy" | "activate" | "deactivate"): Promise<InvocationResult>;
  /**
   * Async options of a prop. `returnValue` holds what the method returned, normalized to
   * `{ options: unknown[], context?: { nextPageToken?: unknown } }`.
   */
  options(prop: string, args: OptionsArgs): Promise<InvocationResult>;
  /** `additionalProps(previousPropDefs)`; `returnValue` holds the serializable prop descriptions. */
  additionalProps(previousPropDefs: Record<string, PropDescription>): Promise<InvocationResult>;
  /** Bytes the sandbox's JavaScript heap uses now (QuickJS `memory_used_size`); 0 when unmounted. */
  memoryUsage(): number;
  /** Frees the sandbox. */
  dispose(): void;
}

/** The runtime: load (bundle + describe) and mount components. */
export interface Runtime {
  /**
   * Bundles code and describes its definition. Throws a `HooklineError` with code
   * `bundle_failed`, `module_not_found` (with `missingFiles`: the relative imports not among
   * `files`, relative to the entry's folder), `load_failed` or `invalid_component` (with `problems`).
   */
  load(input: LoadInput): Promise<LoadedComponent>;
  /** Builds the sandbox of one deployed component and binds its prop values to `this`. */
  mount(options: MountOptions): Promise<MountedComponent>;
  /** Frees every sandbox and the bundler service. */
  close(): Promise<void>;
}
