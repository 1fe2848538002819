/**
 * `createRuntime()`: loads component code (bundle + describe) and mounts deployed components in
 * their own QuickJS sandboxes. A mounted component runs one invocation at a time; its sandbox is
 * rebuilt after a limit was hit, after an unrecoverable error, or every `recycleAfter` calls.
 */
import {
  type ComponentDescription,
  describeComponent,
  describeProblems,
  HooklineError,
  type PropDescription,
} from "@hookline/core";
import { LRUCache } from "lru-cache";
import { describeBundle, describeLoaded, loadComponent, toHooklineError } from "./_load.js";
import { createBundler } from "./bundler/esbuild-bundler.js";
import { packageResolvers } from "./bundler/packages.js";
import type { Bundler } from "./bundler/types.js";
import { createCallQueue } from "./call-queue.js";
import { dbAfter, dbBefore, declaresDb } from "./db-bridge.js";
import { type InternalMountOptions, SocketHost, type SocketLink } from "./net/socket-host.js";
import type { RuntimeOptions } from "./options.js";
import { createPoolRuntime } from "./pool/pool-runtime.js";
import { DEFAULT_LIMITS, type GuestResult, Sandbox } from "./sandbox/sandbox.js";
import type {
  ActionRunOptions,
  HostBridges,
  InvocationContext,
  InvocationResult,
  Limits,
  LoadedComponent,
  LoadInput,
  MountedComponent,
  MountOptions,
  OptionsArgs,
  Runtime,
} from "./types.js";

/**
 * Creates a runtime.
 *
 * @example
 * ```ts
 * const runtime = createRuntime({ resolvers: [nodeModulesResolver(process.cwd())] });
 * const loaded = await runtime.load({ filename: "hi.mjs", code: source });
 * const mounted = await runtime.mount({ id: "dc_1", bundle: loaded.bundle, props: {} });
 * const result = await mounted.run({ hello: "world" });
 * result.emits; // what the component emitted
 * ```
 */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  if (options.mode === "pool") return createPoolRuntime(options);
  if (options.mode !== undefined && options.mode !== "thread")
    throw new HooklineError("bad_request", `The runtime mode is "thread" or "pool", got "${options.mode}"`);
  const defaults: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const recycleAfter = options.recycleAfter ?? 10_000;
  const descriptions = new LRUCache<string, ComponentDescription>({ max: options.cacheSize ?? 500 });
  let bundlerPromise: Promise<Bundler> | undefined = options.bundler
    ? Promise.resolve(options.bundler)
    : undefined;
  const mounted = new Set<MountedInstance>();

  const bundler = () => {
    bundlerPromise ??= createBundler({
      resolvers: options.resolvers ?? (options.packages ? packageResolvers(options.packages) : []),
      engine: options.engine ?? "auto",
    });
    return bundlerPromise;
  };

  return {
    load(input: LoadInput): Promise<LoadedComponent> {
      return loadComponent(bundler, input, descriptions, (bundle) => describeBundle(bundle, defaults));
    },

    async mount(mountOptions: MountOptions): Promise<MountedComponent> {
      const instance = new MountedInstance(
        mountOptions,
        { ...defaults, ...mountOptions.limits },
        recycleAfter,
      );
      await instance.start();
      mounted.add(instance);
      instance.onDispose = () => mounted.delete(instance);
      return instance;
    },

    async close() {
      for (const instance of [...mounted]) instance.dispose();
      if (bundlerPromise) await (await bundlerPromise).close();
    },
  };
}

let mountSeq = 0;

class MountedInstance implements MountedComponent {
  readonly id: string;
  /** Its private /tmp, kept while it is mounted (across rebuilt sandboxes). */
  private readonly tmpKey: string;
  description!: ComponentDescription;
  onDispose: (() => void) | undefined;
  private sandbox: Sandbox | undefined;
  private readonly inTurn = createCallQueue();
  private hasDb = false;
  private disposed = false;
  private readonly bridges: HostBridges;
  /** The sockets of the current sandbox (closed with it). */
  private link: SocketLink | undefined;

  constructor(
    private readonly mountOptions: MountOptions,
    private readonly limits: Limits,
    private readonly recycleAfter: number,
  ) {
    this.id = mountOptions.id;
    this.tmpKey = `${mountOptions.id}#${++mountSeq}`;
    this.bridges = mountOptions.bridges ?? {};
  }

  async start(): Promise<void> {
    if (this.mountOptions.description) this.setDescription(this.mountOptions.description);
    await this.fresh();
  }

  private setDescription(description: ComponentDescription): void {
    this.description = description;
    this.hasDb = declaresDb(description);
  }

  private async fresh(): Promise<Sandbox> {
    this.sandbox?.dispose();
    this.sandbox = undefined;
    this.link?.close();
    const { netLink } = this.mountOptions as InternalMountOptions;
    this.link = netLink?.() ?? (this.bridges.net ? new SocketHost(this.bridges.net, this.limits) : undefined);
    let created: Awaited<ReturnType<typeof Sandbox.create>>;
    try {
      created = await Sandbox.create({
        id: this.mountOptions.id,
        bundle: this.mountOptions.bundle,
        limits: this.limits,
        bridges: this.bridges,
        tmp: { key: this.tmpKey, maxBytes: this.limits.tmpBytes },
        ...(this.link ? { net: this.link } : {}),
        // Described once: from the caller's description, else by the first sandbox.
        describe: !this.description,
      });
    } catch (error) {
      throw toHooklineError(error);
    }
    if (!this.description) this.setDescription(describeLoaded(created.definition));
    try {
      created.sandbox.mount(this.mountOptions.props);
    } catch (error) {
      created.sandbox.dispose();
      throw toHooklineError(error);
    }
    this.sandbox = created.sandbox;
    return created.sandbox;
  }

  /** Runs invocations one at a time, in call order. */
  private enqueue(
    kind: string,
    arg: Record<string, unknown>,
    timeoutMs: number,
    memoryBytes?: number,
  ): Promise<InvocationResult> {
    return this.inTurn(() => this.invoke(kind, arg, timeoutMs, memoryBytes));
  }

  private async invoke(
    kind: string,
    arg: Record<string, unknown>,
    timeoutMs: number,
    memoryBytes?: number,
  ): Promise<InvocationResult> {
    if (this.disposed) throw new HooklineError("internal_error", `component ${this.id} is unmounted`);
    const started = performance.now();
    let sandbox = this.sandbox;
    if (!sandbox || sandbox.broken || sandbox.invocations >= this.recycleAfter) sandbox = await this.fresh();
    const db = await dbBefore(this.bridges, this.hasDb);
    if (db) arg.db = db;
    this.link?.begin();
    const raw = await sandbox.invoke(kind, arg, timeoutMs, memoryBytes);
    await dbAfter(
      this.bridges,
      raw.dbWrites.map(([key, value, deleted]) => [key, deleted ? undefined : value]),
    );
    return toInvocationResult(raw, performance.now() - started);
  }

  run(event: unknown, context?: InvocationContext): Promise<InvocationResult> {
    if (this.description.type === "action") return this.runAction(event as Record<string, unknown>);
    if (context?.trigger !== "http") return this.enqueue("run", { event }, this.limits.runTimeoutMs);
    const { httpTimeoutMs, httpMemoryBytes, memoryBytes } = this.limits;
    return this.enqueue("run", { event }, httpTimeoutMs, Math.min(httpMemoryBytes, memoryBytes));
  }

  runAction(steps: Record<string, unknown> = {}, options: ActionRunOptions = {}): Promise<InvocationResult> {
    const arg: Record<string, unknown> = { steps };
    if (options.props) arg.props = options.props;
    if (options.exprs && options.exprs.length > 0) {
      arg.exprs = options.exprs;
      arg.env = options.env ?? {};
    }
    if (options.context) arg.context = options.context;
    if (options.flow) arg.flow = options.flow;
    return this.enqueue("action", arg, this.limits.runTimeoutMs);
  }

  hook(name: "deploy" | "activate" | "deactivate"): Promise<InvocationResult> {
    return this.enqueue("hook", { name }, this.limits.runTimeoutMs);
  }

  options(prop: string, args: OptionsArgs): Promise<InvocationResult> {
    return this.enqueue("options", { prop, ...args }, this.limits.optionsTimeoutMs);
  }

  async additionalProps(previousPropDefs: Record<string, PropDescription>): Promise<InvocationResult> {
    const result = await this.enqueue(
      "additionalProps",
      { previous: previousPropDefs },
      this.limits.optionsTimeoutMs,
    );
    if (result.error) return result;
    // Describe the returned props with the same rules as a component's own props.
    const { description, problems } = describeComponent({
      name: "additionalProps",
      version: "0.0.0",
      type: this.description.type,
      run: { $fn: true },
      props: result.returnValue ?? {},
    });
    if (description) result.returnValue = description.props;
    else {
      delete result.returnValue;
      const summary = describeProblems(problems);
      result.error = {
        code: "invalid_component",
        name: "TypeError",
        message: `additionalProps() returned invalid props: ${summary}`,
      };
    }
    return result;
  }

  memoryUsage(): number {
    return this.sandbox?.memoryUsage() ?? 0;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.sandbox?.dispose();
    this.sandbox = undefined;
    this.link?.close();
    Sandbox.releaseTmp(this.tmpKey);
    this.onDispose?.();
  }
}

function toInvocationResult(raw: GuestResult, durationMs: number): InvocationResult {
  const result: InvocationResult = {
    emits: raw.emits as InvocationResult["emits"],
    exports: raw.exports,
    responds: raw.responds,
    sends: raw.sends,
    logs: raw.logs,
    durationMs,
  };
  if (raw.returnValue !== undefined) result.returnValue = raw.returnValue;
  if (raw.flowExit) result.flowExit = raw.flowExit;
  if (raw.pause) result.pause = raw.pause;
  if (raw.error) {
    result.error = raw.error;
    const { name, message, stack } = raw.error;
    result.logs.push({
      level: "error",
      message: `${name}: ${message}${stack ? `\n${stack}` : ""}`,
      ts: Date.now(),
    });
  }
  return result;
}
