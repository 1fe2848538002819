/**
 * One QuickJS runtime and context holding one loaded component. The host talks to the guest
 * through the functions the guest prelude returns (`load`, `mount`, `invoke`, `complete`), with
 * JSON strings. The prelude (guest/core.js + guest/api.js) is compiled in every new context, so it
 * holds only what every component needs; the other guest files (Buffer, URL, crypto, fetch,
 * console, timers, ...) are compiled on first use, their source handed over by the sync host
 * operation `shim`. Limits: a deadline and a memory ceiling enforced from the interrupt handler,
 * the package's own memory limit for large single allocations, and a result size cap.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten";
import type { SocketLink } from "../net/socket-host.js";
import type { FlowPause, HostBridges, InvocationError, Limits, LogLine } from "../types.js";
import { AsyncOps } from "./_async-ops.js";
import { prelude, shimSource } from "./_guest-source.js";
import { runHostOp } from "./_host-ops.js";
import { discardModule, getModule } from "./_module.js";
import { HOST_OVERFLOW, isHostStackOverflow, overflowError, STACK_BYTES } from "./_overflow.js";
import { createStackMapper, type StackMapper } from "./_source-map.js";
import { openTmp, releaseTmp, type TmpOptions, type TmpVolume } from "./volume.js";

export { DEFAULT_LIMITS } from "./_limits.js";

let anonymousTmp = 0;

const BUNDLE_FILE = "component.bundle.js";
const BUNDLE_PREFIX = "(function (module, exports, require) {";

/** What the guest returns from an invocation, before the host post-processes it. */
type EmitMeta = Record<string, unknown>;

/**
 * The emits of a result from their metas and the events' texts (newline-separated, an empty line
 * for an undefined event): each event parsed once, its text kept as the guest wrote it.
 */
function withTexts(metas: EmitMeta[], texts: string): GuestResult["emits"] {
  const lines = texts.split("\n");
  return metas.map((meta, i) => {
    const text = lines[i] ?? "";
    return text === "" ? { event: undefined, meta } : { event: JSON.parse(text), json: text, meta };
  });
}

export interface GuestResult {
  /** Each `$emit`: the event, its JSON text as the guest wrote it (absent for undefined), its meta. */
  emits: { event: unknown; json?: string; meta: Record<string, unknown> }[];
  exports: Record<string, unknown>;
  /** respond() calls as the component made them; validated by the caller (core's validateRespond). */
  responds: unknown[];
  sends: { kind: "http" | "email" | "s3" | "emit" | "sse"; payload: unknown }[];
  logs: LogLine[];
  dbWrites: [string, unknown, boolean][];
  flowExit?: { reason?: string };
  pause?: FlowPause;
  returnValue?: unknown;
  error?: InvocationError;
}

/** Options of {@link Sandbox.create}. */
export interface SandboxOptions {
  id: string;
  bundle: string;
  limits: Limits;
  bridges: HostBridges;
  /**
   * Serialize the definition for the host to describe (true by default). A mount whose caller
   * already has the description passes false: the definition is then neither walked nor sent.
   */
  describe?: boolean;
  /**
   * The `/tmp` volume to use (in this thread), kept across sandboxes of the same key until
   * {@link Sandbox.releaseTmp}. Absent: a volume of its own, capped at `limits.tmpBytes` and freed
   * with the sandbox.
   */
  tmp?: TmpOptions;
  /** Its sockets' host end (kept across its invocations; the owner closes it). */
  net?: SocketLink;
}

/** A loaded component in its own QuickJS runtime. */
export class Sandbox {
  /** True once a limit was hit or the guest is otherwise unusable: the owner builds a new one. */
  broken = false;
  /** Number of invocations run, for recycling. */
  invocations = 0;

  private deadline = 0;
  private lastMemoryCheck = 0;
  private interruptReason: "timeout" | "memory" | undefined;
  /** The memory cap in force (QuickJS's limit): `limits.memoryBytes`, or an invocation's own. */
  private memoryCap: number;
  private wake: (() => void) | undefined;
  private disposed = false;
  /** The host's stack ran out inside QuickJS: never free this runtime (it would abort). */
  private poisoned = false;
  private readonly mapStack: StackMapper;
  private api:
    | { load: QuickJSHandle; mount: QuickJSHandle; invoke: QuickJSHandle; complete: QuickJSHandle }
    | undefined;
  private readonly owned: QuickJSHandle[] = [];
  /** The invocation kinds as guest strings, made once per sandbox (freed with `owned`). */
  private readonly kinds = new Map<string, QuickJSHandle>();
  /** Its `/tmp`, opened on the first `fs` call (most components never make one). */
  private tmp: TmpVolume | undefined;
  /** The guest's calls that answer later: timers, bridges, sockets... */
  private readonly ops: AsyncOps;

  private constructor(
    private readonly rt: QuickJSRuntime,
    private readonly ctx: QuickJSContext,
    private readonly options: SandboxOptions,
  ) {
    this.mapStack = createStackMapper(options.bundle, BUNDLE_FILE, BUNDLE_PREFIX.length);
    this.memoryCap = options.limits.memoryBytes;
    this.ops = new AsyncOps(ctx, options, {
      wake: () => this.wake?.(),
      remainingMs: () => this.deadline - Date.now(),
    });
  }

  private fsCall(arg: string): string {
    this.tmp ??= openTmp(
      this.options.tmp ?? { key: `sandbox:${++anonymousTmp}`, maxBytes: this.options.limits.tmpBytes },
    );
    return this.tmp.call(arg);
  }

  /** Frees the `/tmp` volume of `key` in this thread (its mounted component is gone). */
  static releaseTmp(key: string): void {
    releaseTmp(key);
  }

  /**
   * Creates the runtime, evaluates the prelude and the bundle, and returns the sandbox with the
   * serialized definition (functions as `{"$fn": true}`; undefined when `describe` is false) and any
   * logs written while loading.
   * Throws an error with `code` `load_failed` when the component's module code throws.
   */
  static async create(
    options: SandboxOptions,
  ): Promise<{ sandbox: Sandbox; definition: unknown; logs: LogLine[] }> {
    const { module } = await getModule();
    const rt = module.newRuntime();
    rt.setMemoryLimit(options.limits.memoryBytes);
    rt.setMaxStackSize(STACK_BYTES);
    const ctx = rt.newContext();
    const sandbox = new Sandbox(rt, ctx, options);
    try {
      const loaded = sandbox.boot();
      return { sandbox, definition: loaded.definition, logs: loaded.logs };
    } catch (error) {
      if (isHostStackOverflow(error)) {
        sandbox.poison();
        throw Object.assign(new Error(`The component threw while loading: ${HOST_OVERFLOW.message}`), {
          code: "load_failed",
        });
      }
      sandbox.dispose();
      throw error;
    }
  }

  private boot(): { definition: unknown; logs: LogLine[] } {
    const { ctx, rt } = this;
    rt.setInterruptHandler(() => this.shouldInterrupt());
    this.startDeadline(this.options.limits.runTimeoutMs);
    try {
      const hostCall = ctx.newFunction("hostCall", (opH, argH) => {
        const op = ctx.getString(opH);
        const arg = ctx.getString(argH);
        const out =
          op === "shim"
            ? shimSource(arg)
            : op === "fs"
              ? this.fsCall(arg)
              : (this.ops.io.call(op, arg) ?? runHostOp(op, arg));
        return ctx.newString(out);
      });
      const hostAsync = ctx.newFunction("hostAsync", (opH, argH) =>
        this.ops.start(ctx.getString(opH), ctx.getString(argH)),
      );
      const cfg = ctx.newString(JSON.stringify({ id: this.options.id }));
      const factory = ctx.unwrapResult(ctx.evalCode(prelude(), "hookline:prelude.js"));
      const api = ctx.unwrapResult(ctx.callFunction(factory, ctx.undefined, hostCall, hostAsync, cfg));
      for (const h of [hostCall, hostAsync, cfg, factory]) h.dispose();
      this.api = {
        load: ctx.getProp(api, "load"),
        mount: ctx.getProp(api, "mount"),
        invoke: ctx.getProp(api, "invoke"),
        complete: ctx.getProp(api, "complete"),
      };
      api.dispose();
      this.owned.push(this.api.load, this.api.mount, this.api.invoke, this.api.complete);

      const wrapped = `${BUNDLE_PREFIX}${this.options.bundle}\n})`;
      const evaluated = ctx.evalCode(wrapped, BUNDLE_FILE);
      if (evaluated.error) throw this.loadError(evaluated.error);
      // Compiling the prelude and the bundle is the sandbox's work, not the component's: its
      // deadline starts when its module code does (a large SDK bundle takes a while to parse).
      this.startDeadline(this.options.limits.runTimeoutMs);
      const describe = this.options.describe === false ? ctx.false : ctx.true;
      const result = ctx.callFunction(this.api.load, ctx.undefined, evaluated.value, describe);
      evaluated.value.dispose();
      if (result.error) throw this.loadError(result.error);
      const json = ctx.getString(result.value);
      result.value.dispose();
      return JSON.parse(json) as { definition: unknown; logs: LogLine[] };
    } finally {
      this.deadline = 0;
    }
  }

  private loadError(handle: QuickJSHandle): Error {
    const dumped = this.ctx.dump(handle) as { name?: string; message?: string; stack?: string } | string;
    handle.dispose();
    const info = typeof dumped === "object" && dumped !== null ? dumped : { message: String(dumped) };
    const reason = this.interruptReason;
    const message = reason
      ? `loading the component exceeded its ${reason === "timeout" ? "time" : "memory"} limit`
      : `${info.name ?? "Error"}: ${info.message ?? ""}`;
    const error = new Error(`The component threw while loading: ${message}`) as Error & {
      code: string;
      stack?: string;
    };
    error.code = "load_failed";
    if (info.stack) error.stack = `${error.message}\n${this.mapStack(info.stack)}`;
    return error;
  }

  /** Configures `this` with the given prop values (already decrypted and resolved). */
  mount(props: Record<string, unknown>): void {
    const { ctx } = this;
    const api = this.requireApi();
    const arg = ctx.newString(JSON.stringify(props));
    this.startDeadline(this.options.limits.runTimeoutMs);
    try {
      const result = ctx.callFunction(api.mount, ctx.undefined, arg);
      if (result.error) throw this.loadError(result.error);
      result.value.dispose();
    } catch (error) {
      if (!isHostStackOverflow(error)) throw error;
      this.poison();
      throw Object.assign(new Error(`The component threw while mounting: ${HOST_OVERFLOW.message}`), {
        code: "load_failed",
      });
    } finally {
      arg.dispose();
      this.deadline = 0;
    }
  }

  /**
   * Runs one invocation (`run`, `action`, `hook`, `options`, `additionalProps`). The guest's
   * `invoke` returns what the component returned; once that is settled (after running the pending
   * jobs, and waiting for host operations while some are pending), its `complete` turns it into
   * the result's JSON text. `memory` caps the heap during this invocation (an HTTP run's is
   * smaller than the sandbox's); the sandbox's own cap applies again to the next one.
   */
  async invoke(kind: string, arg: unknown, timeoutMs: number, memory?: number): Promise<GuestResult> {
    const { ctx, rt } = this;
    const api = this.requireApi();
    this.invocations++;
    const cap = memory ?? this.options.limits.memoryBytes;
    if (cap !== this.memoryCap) rt.setMemoryLimit(cap);
    this.memoryCap = cap;
    this.startDeadline(timeoutMs);
    let kindH = this.kinds.get(kind);
    if (!kindH) {
      kindH = ctx.newString(kind);
      this.kinds.set(kind, kindH);
      this.owned.push(kindH);
    }
    const argH = ctx.newString(JSON.stringify(arg ?? {}));
    let promise: QuickJSHandle | undefined;
    try {
      const called = ctx.callFunction(api.invoke, ctx.undefined, kindH, argH);
      if (called.error) return this.failure(called.error);
      promise = called.value;
      for (;;) {
        if (rt.hasPendingJob()) {
          const jobs = rt.executePendingJobs();
          if (jobs.error) jobs.error.dispose();
        }
        const state = ctx.getPromiseState(promise);
        if (state.type !== "pending") {
          // A value that is not a promise comes back as itself, owned by `promise`.
          const failed = state.type === "rejected";
          const value = failed ? state.error : state.value;
          const done = ctx.callFunction(api.complete, ctx.undefined, value, failed ? ctx.true : ctx.false);
          if (value !== promise) value.dispose();
          if (done.error) return this.failure(done.error);
          const json = ctx.getString(done.value);
          done.value.dispose();
          return this.finish(json);
        }
        if (this.interruptReason) return this.limitResult();
        if (this.ops.idle()) {
          this.broken = true;
          return errorResult({
            code: "stalled",
            name: "Error",
            message: "The invocation awaited a promise that can never settle",
          });
        }
        const remaining = this.deadline - Date.now();
        if (remaining <= 0) {
          this.interruptReason = "timeout";
          return this.limitResult();
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    } catch (error) {
      if (!isHostStackOverflow(error)) throw error;
      this.poison();
      promise = undefined;
      return errorResult({ ...HOST_OVERFLOW });
    } finally {
      if (!this.poisoned) {
        promise?.dispose();
        argH.dispose();
      }
      this.ops.cancel(this.poisoned);
      this.deadline = 0;
    }
  }

  private requireApi() {
    if (!this.api || this.disposed) throw new Error("sandbox is disposed");
    return this.api;
  }

  private startDeadline(timeoutMs: number): void {
    this.deadline = Date.now() + timeoutMs;
    this.lastMemoryCheck = Date.now();
    this.interruptReason = undefined;
  }

  private shouldInterrupt(): boolean {
    if (this.deadline === 0) return false;
    if (this.interruptReason) return true;
    const now = Date.now();
    if (now > this.deadline) {
      this.interruptReason = "timeout";
      return true;
    }
    // computeMemoryUsage walks the heap (about 0.15 ms on a small one): poll every 10 ms only.
    if (now - this.lastMemoryCheck >= 10) {
      this.lastMemoryCheck = now;
      if (this.memoryUsed() > this.memoryCap) {
        this.interruptReason = "memory";
        return true;
      }
    }
    return false;
  }

  /** Bytes the guest heap uses now. */
  memoryUsage(): number {
    return this.disposed ? 0 : this.memoryUsed();
  }

  private memoryUsed(): number {
    const handle = this.rt.computeMemoryUsage();
    try {
      const usage = this.ctx.dump(handle) as { memory_used_size?: number };
      return usage.memory_used_size ?? 0;
    } finally {
      handle.dispose();
    }
  }

  private finish(json: string): GuestResult {
    if (json.length > this.options.limits.resultBytes) {
      return errorResult({
        code: "result_too_large",
        name: "RangeError",
        message: `The invocation's result is ${json.length} bytes, over the ${this.options.limits.resultBytes} byte limit`,
      });
    }
    // The guest leaves out empty fields; the events' JSON texts follow the record, one per line.
    const cut = json.indexOf("\n");
    const result = JSON.parse(cut < 0 ? json : json.slice(0, cut)) as GuestResult;
    if (cut >= 0) result.emits = withTexts(result.emits as unknown as EmitMeta[], json.slice(cut + 1));
    result.exports ??= {};
    result.responds ??= [];
    result.sends ??= [];
    result.logs ??= [];
    result.dbWrites ??= [];
    if (result.error) {
      if (result.error.name === "InternalError" && /out of memory/.test(result.error.message)) {
        result.error.code = "memory";
        this.broken = true;
      }
      if (this.interruptReason) return this.limitResult(result.logs);
      overflowError(result.error);
      if (result.error.stack) result.error.stack = this.mapStack(result.error.stack);
    }
    return result;
  }

  private failure(handle: QuickJSHandle): GuestResult {
    const dumped = this.ctx.dump(handle) as { name?: string; message?: string; stack?: string };
    handle.dispose();
    if (this.interruptReason) return this.limitResult();
    this.broken = true;
    const message = dumped?.message ?? String(dumped);
    const oom = /out of memory/.test(message);
    const error: InvocationError = {
      code: oom ? "memory" : "error",
      name: dumped?.name ?? "Error",
      message,
      ...(dumped?.stack ? { stack: dumped.stack } : {}),
    };
    overflowError(error);
    if (error.stack) error.stack = this.mapStack(error.stack);
    return errorResult(error);
  }

  private limitResult(logs: LogLine[] = []): GuestResult {
    this.broken = true;
    const timeout = this.interruptReason === "timeout";
    const result = errorResult(
      timeout
        ? { code: "timeout", name: "TimeoutError", message: "The invocation exceeded its deadline" }
        : {
            code: "memory",
            name: "RangeError",
            message: `The invocation exceeded its memory limit of ${this.memoryCap} bytes`,
          },
    );
    result.logs = logs;
    return result;
  }

  /**
   * The host's stack ran out inside this runtime: it is unusable and cannot be freed (QuickJS
   * would abort on its inconsistent state), so it is dropped with the module it lives in; the
   * next sandboxes load a fresh module.
   */
  private poison(): void {
    if (this.poisoned) return;
    this.poisoned = true;
    this.broken = true;
    discardModule();
  }

  /** Frees the runtime. Never throws: an abort inside QuickJS discards the shared module. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.ops.dispose(this.poisoned);
    if (this.tmp && !this.options.tmp) releaseTmp(this.tmp.options.key);
    if (this.poisoned) return;
    try {
      for (const h of this.owned) if (h.alive) h.dispose();
      this.ctx.dispose();
      this.rt.dispose();
    } catch {
      discardModule();
    }
  }
}

function errorResult(error: InvocationError): GuestResult {
  return { emits: [], exports: {}, responds: [], sends: [], logs: [], dbWrites: [], error };
}
