/**
 * A sandbox's asynchronous host operations (`hostAsync(op, json)` in the guest): each returns a
 * guest promise that the host settles later. Timers (`sleep`) and bridge calls (`fetch`,
 * `dataStore`, `http`, `dns`, zlib streams) belong to the invocation that started them: what is
 * still pending when it ends is dropped. The wait for socket events (`net.poll`) is not: sockets
 * outlive invocations, and events that arrive in between are handed over when the guest next runs.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten";
import type { SocketLink } from "../net/socket-host.js";
import type { HostBridges, Limits } from "../types.js";
import { HostIo } from "./_host-io.js";

interface PendingOp {
  deferred: QuickJSDeferredPromise;
  timer?: NodeJS.Timeout;
}

/** What the operations need from their sandbox. */
interface Owner {
  /** An operation settled: the invocation loop looks again. */
  wake(): void;
  /** What is left of the invocation's time, ms. */
  remainingMs(): number;
}

/** One sandbox's pending asynchronous operations. */
export class AsyncOps {
  /** `http`, sockets, `dns` and `zlib` (guest/http.js, net.js, dns.js, zlib.js). */
  readonly io: HostIo;
  private readonly pending = new Set<PendingOp>();
  /** The guest's wait for socket events: it outlives invocations (sockets do). */
  private netPoll: QuickJSDeferredPromise | undefined;
  private disposed = false;

  constructor(
    private readonly ctx: QuickJSContext,
    private readonly options: { bridges: HostBridges; limits: Limits; net?: SocketLink },
    private readonly owner: Owner,
  ) {
    this.io = new HostIo(options);
  }

  /** True when nothing the guest waits for can settle (the invocation is stalled). */
  idle(): boolean {
    return this.pending.size === 0 && !this.netPoll;
  }

  /** Starts `op`; returns the guest promise. */
  start(op: string, argJson: string): QuickJSHandle {
    if (op === "net.poll") return this.startNetPoll();
    const deferred = this.ctx.newPromise();
    const entry: PendingOp = { deferred };
    this.pending.add(entry);
    const settle = (error: unknown, json?: string) => {
      if (this.disposed || !this.pending.has(entry)) return;
      this.pending.delete(entry);
      if (entry.timer) clearTimeout(entry.timer);
      if (error === undefined) {
        const value = this.ctx.newString(json ?? "");
        deferred.resolve(value);
        value.dispose();
      } else {
        const err = this.guestError(error);
        deferred.reject(err);
        err.dispose();
      }
      deferred.dispose();
      this.owner.wake();
    };
    try {
      const arg = JSON.parse(argJson) as unknown;
      const io = this.io.start(op, argJson, this.owner.remainingMs());
      if (io)
        io.then(
          (json) => settle(undefined, json),
          (error: unknown) => settle(error ?? new Error("failed")),
        );
      else if (op === "sleep") {
        const ms = Math.max(0, Math.min(Number(arg) || 0, 2_147_483_647));
        entry.timer = setTimeout(() => settle(undefined, ""), ms);
      } else if (op === "fetch" || op === "dataStore") {
        // A host bridge (outbound HTTP, data stores) answers a JSON value; "" stands for undefined.
        const bridge = this.options.bridges[op] as ((request: never) => Promise<unknown>) | undefined;
        if (!bridge) settle(new Error(`${op} is not available: this runtime has no ${op} bridge`));
        else
          bridge(arg as never).then(
            (value) => settle(undefined, value === undefined ? "" : JSON.stringify(value)),
            (error: unknown) => settle(error),
          );
      } else settle(new Error(`unknown async host operation ${op}`));
    } catch (error) {
      settle(error);
    }
    return deferred.handle;
  }

  /** A guest Error with the message and, when it has one, the `code` of `error` (ECONNREFUSED...). */
  private guestError(error: unknown): QuickJSHandle {
    const err = this.ctx.newError(error instanceof Error ? error.message : String(error));
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code === "string") {
      const codeH = this.ctx.newString(code);
      this.ctx.setProp(err, "code", codeH);
      codeH.dispose();
    }
    return err;
  }

  /** The guest waits for its sockets' next events (one wait at a time, across invocations). */
  private startNetPoll(): QuickJSHandle {
    const deferred = this.ctx.newPromise();
    this.netPoll?.dispose();
    this.netPoll = deferred;
    const resolve = (json: string) => {
      if (this.disposed || this.netPoll !== deferred) return;
      this.netPoll = undefined;
      const value = this.ctx.newString(json);
      deferred.resolve(value);
      value.dispose();
      deferred.dispose();
      this.owner.wake();
    };
    try {
      this.io
        .link()
        .poll()
        .then((events) => resolve(JSON.stringify(events)));
    } catch {
      // No socket link: nothing will ever come (the guest got the error opening its socket).
      resolve("[]");
    }
    return deferred.handle;
  }

  /** The invocation ended: its operations are dropped (the socket wait stays). */
  cancel(poisoned: boolean): void {
    for (const entry of this.pending) {
      if (entry.timer) clearTimeout(entry.timer);
      if (!poisoned) entry.deferred.dispose();
    }
    this.pending.clear();
  }

  /** The sandbox is disposed (a poisoned runtime's handles are never freed). */
  dispose(poisoned: boolean): void {
    this.cancel(poisoned);
    this.disposed = true;
    if (this.netPoll && !poisoned) this.netPoll.dispose();
    this.netPoll = undefined;
    this.io.dispose();
  }
}
