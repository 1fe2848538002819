/**
 * A mounted component whose sandbox lives in a pool thread. It keeps the in-thread contract: one
 * invocation at a time, in call order; the db read before and written after each invocation (here
 * on the main thread, so the invocation is one message each way); a failure in `result.error`.
 * It is pinned to one thread; when that thread is stuck or replaced it is mounted again on another
 * (its `/tmp` files do not follow).
 */
import { type ComponentDescription, HooklineError, type PropDescription } from "@hookline/core";
import { createCallQueue } from "../call-queue.js";
import { dbAfter, dbBefore, declaresDb } from "../db-bridge.js";
import { type NetCommand, SocketHost } from "../net/socket-host.js";
import type {
  ActionRunOptions,
  HostBridges,
  InvocationContext,
  InvocationResult,
  Limits,
  MountedComponent,
  MountOptions,
  OptionsArgs,
} from "../types.js";
import type { PoolThread, Reply, ThreadPool } from "./threads.js";

type Method = "run" | "runAction" | "hook" | "options" | "additionalProps";

let mountKeys = 0;

/** Turns a worker's serialized error back into the error the in-thread runtime throws. */
export function rethrow(error: { code: string; message: string; details?: unknown }): never {
  throw new HooklineError(
    error.code as ConstructorParameters<typeof HooklineError>[0],
    error.message,
    error.details as ConstructorParameters<typeof HooklineError>[2],
  );
}

/** The result of an invocation the pool ended (thread terminated). */
function endedResult(overdue: boolean, started: number, timeoutMs: number): InvocationResult {
  const error = overdue
    ? {
        code: "timeout",
        name: "TimeoutError",
        message: `The invocation exceeded its deadline (${timeoutMs} ms) and could not be interrupted: its sandbox thread was replaced`,
      }
    : {
        code: "interrupted",
        name: "Error",
        message:
          "The invocation was stopped: another component on its sandbox thread could not be interrupted and the thread was replaced",
      };
  return {
    emits: [],
    exports: {},
    responds: [],
    sends: [],
    logs: [{ level: "error", message: `${error.name}: ${error.message}`, ts: Date.now() }],
    error,
    durationMs: performance.now() - started,
  };
}

/** A component mounted in a pool thread. */
export class RemoteMount implements MountedComponent {
  readonly id: string;
  readonly key = ++mountKeys;
  description!: ComponentDescription;
  thread: PoolThread | undefined;
  /** Where to mount next: the replacement of the thread this component's invocation got killed. */
  private quarantine: PoolThread | undefined;
  onDispose: (() => void) | undefined;
  private hasDb = false;
  private memory = 0;
  private disposed = false;
  private readonly inTurn = createCallQueue();
  readonly bridges: HostBridges;
  /** The sockets of its sandbox, here in the pool's thread (the worker relays; net/remote-link.ts). */
  private sockets: { link: string; host: SocketHost } | undefined;

  constructor(
    private readonly pool: ThreadPool,
    private readonly mountOptions: MountOptions,
    private readonly limits: Limits,
  ) {
    this.id = mountOptions.id;
    this.bridges = mountOptions.bridges ?? {};
    if (mountOptions.description) this.setDescription(mountOptions.description);
  }

  private setDescription(description: ComponentDescription): void {
    this.description = description;
    this.hasDb = declaresDb(description);
  }

  /**
   * Mounts the sandbox in a thread (again, after its thread was stuck or replaced). A component
   * whose invocation got its thread terminated goes to that thread's replacement, so that it does
   * not take the other components' threads with it next time.
   */
  async start(avoid?: PoolThread): Promise<PoolThread> {
    const since = Date.now();
    for (let attempt = 0; ; attempt++) {
      const preferred = this.quarantine;
      this.quarantine = undefined;
      const thread = preferred && !preferred.dead ? preferred : this.pool.pick(avoid);
      const { bridges: _, ...rest } = this.mountOptions;
      const options = this.description ? { ...rest, description: this.description } : rest;
      thread.mounts.add(this.key);
      const reply = await thread.request(
        {
          t: "mount",
          key: this.key,
          options,
          bridges: {
            db: !!this.bridges.db,
            fetch: !!this.bridges.fetch,
            dataStore: !!this.bridges.dataStore,
            http: !!this.bridges.http,
            net: !!this.bridges.net,
          },
        },
        this.limits.runTimeoutMs,
      );
      if (reply.kind === "done") {
        if (reply.error) {
          thread.mounts.delete(this.key);
          rethrow(reply.error);
        }
        this.setDescription(reply.value as ComponentDescription);
        if (reply.memory !== undefined) this.memory = reply.memory;
        this.thread = thread;
        return thread;
      }
      thread.mounts.delete(this.key);
      if (reply.kind === "killed" && reply.overdue) {
        throw new HooklineError(
          "load_failed",
          `The component did not finish mounting within ${this.limits.runTimeoutMs} ms and could not be interrupted`,
        );
      }
      // Moved off a stuck thread, or its thread replaced because of another component: wait a turn.
      avoid = thread;
      await this.pool.waitTurn(since, attempt, "mounted");
    }
  }

  /** Forgets the thread (terminated): the next invocation mounts the component elsewhere. */
  lostThread(): void {
    this.thread = undefined;
    this.closeSockets();
  }

  /**
   * A socket command of its sandbox `link`: a new sandbox's first command replaces the sockets of
   * the one before; `reset`: that sandbox is gone, and its sockets with it.
   */
  socketCommand(link: string, cmd: NetCommand | { op: "reset" }): void {
    if (cmd.op === "reset") {
      if (this.sockets?.link === link) this.closeSockets();
    } else if (!this.disposed) this.socketHost(link).command(cmd);
  }

  /** Its sandbox waits for socket events (an older sandbox's wait gets nothing), or looks a name up. */
  socketCall(op: "net.poll" | "dns", request: { link: string; hostname?: string }): Promise<unknown> {
    if (this.disposed)
      return op === "net.poll"
        ? Promise.resolve([])
        : Promise.reject(new Error("the component is unmounted"));
    if (op === "net.poll")
      return this.sockets?.link === request.link ? this.sockets.host.poll() : Promise.resolve([]);
    return this.socketHost(request.link).lookup(request as { hostname: string; family?: 4 | 6 });
  }

  private socketHost(link: string): SocketHost {
    if (this.sockets?.link !== link) {
      this.closeSockets();
      this.sockets = { link, host: new SocketHost(this.bridges.net, this.limits) };
    }
    return this.sockets.host;
  }

  private closeSockets(): void {
    this.sockets?.host.close();
    this.sockets = undefined;
  }

  private enqueue(method: Method, args: unknown[], timeoutMs: number): Promise<InvocationResult> {
    return this.inTurn(() => this.invoke(method, args, timeoutMs));
  }

  private async invoke(method: Method, args: unknown[], timeoutMs: number): Promise<InvocationResult> {
    if (this.disposed) throw new HooklineError("internal_error", `component ${this.id} is unmounted`);
    const started = performance.now();
    const db = await dbBefore(this.bridges, this.hasDb);
    this.sockets?.host.begin();
    let avoid: PoolThread | undefined;
    for (;;) {
      let thread = this.thread;
      // Its thread is stuck in another component's code: move now rather than wait for it.
      if (thread && !thread.dead && thread !== avoid && thread.stalled() && this.pool.elsewhere(thread))
        avoid = thread;
      if (!thread || thread.dead || thread === avoid) {
        if (thread && !thread.dead) this.release(thread);
        thread = await this.start(avoid);
      }
      const reply: Reply = await thread.request(
        { t: "invoke", key: this.key, method, args, ...(db ? { db } : {}) },
        timeoutMs,
      );
      if (reply.kind === "moved") {
        avoid = thread;
        continue;
      }
      if (reply.kind === "killed") {
        this.thread = undefined;
        if (reply.overdue) this.quarantine = thread.replacement;
        return endedResult(reply.overdue, started, timeoutMs);
      }
      if (reply.error) rethrow(reply.error);
      if (reply.memory !== undefined) this.memory = reply.memory;
      const result = reply.value as InvocationResult & { dbWrites?: [string, unknown][] };
      const writes = result.dbWrites ?? [];
      delete result.dbWrites;
      await dbAfter(this.bridges, writes);
      result.durationMs = performance.now() - started;
      return result;
    }
  }

  /** Unpins from `thread` and frees the sandbox there (when its event loop gets to it). */
  private release(thread: PoolThread): void {
    this.closeSockets();
    thread.mounts.delete(this.key);
    thread.post({ t: "dispose", key: this.key });
    if (this.thread === thread) this.thread = undefined;
  }

  run(event: unknown, context?: InvocationContext): Promise<InvocationResult> {
    if (this.description.type === "action") return this.runAction(event as Record<string, unknown>);
    const timeout = context?.trigger === "http" ? this.limits.httpTimeoutMs : this.limits.runTimeoutMs;
    return this.enqueue("run", context ? [event, context] : [event], timeout);
  }

  runAction(steps: Record<string, unknown> = {}, options?: ActionRunOptions): Promise<InvocationResult> {
    // A workflow step's per-run props and expressions go to the thread with the steps.
    return this.enqueue("runAction", options ? [steps, options] : [steps], this.limits.runTimeoutMs);
  }

  hook(name: "deploy" | "activate" | "deactivate"): Promise<InvocationResult> {
    return this.enqueue("hook", [name], this.limits.runTimeoutMs);
  }

  options(prop: string, args: OptionsArgs): Promise<InvocationResult> {
    return this.enqueue("options", [prop, args], this.limits.optionsTimeoutMs);
  }

  additionalProps(previousPropDefs: Record<string, PropDescription>): Promise<InvocationResult> {
    return this.enqueue("additionalProps", [previousPropDefs], this.limits.optionsTimeoutMs);
  }

  /** The heap size reported by the thread (refreshed at most once a second). */
  memoryUsage(): number {
    return this.disposed ? 0 : this.memory;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.thread && !this.thread.dead) this.release(this.thread);
    this.closeSockets();
    this.onDispose?.();
  }
}
