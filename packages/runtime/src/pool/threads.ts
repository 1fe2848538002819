/**
 * The worker threads of the sandbox pool: starting them, sending requests, and the watchdog.
 *
 * Every request (describe, mount, invoke) is one message with a sequence number, written into the
 * thread's claim table. The worker claims it when it starts it. Every `WATCH_MS` while requests are
 * in flight, the pool looks at each thread's heartbeat: a thread whose event loop has not run for
 * `stallMs` is stuck in some sandbox's synchronous code, and the requests it has not claimed yet
 * are cancelled and handed back to their callers to run on another thread (their components are
 * remounted there). A request claimed and still running `killAfterMs` past its deadline (plus
 * `STARTUP_MS` for mounts and describes) while the thread's event loop is held means the thread
 * cannot be interrupted: the thread is terminated and replaced; that request ends with `timeout`,
 * the other requests it was running with `interrupted`. (An invocation waiting on I/O is ended by
 * the sandbox's own deadline.)
 */

import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { HooklineError } from "@hookline/core";
import type { Limits } from "../types.js";
import {
  type CallOp,
  CLAIM_SLOTS,
  type PoolRequest,
  type WireError,
  type WorkerData,
  type WorkerMessage,
} from "./protocol.js";
import { workerBoot } from "./worker-boot.js";

/** How often the watchdog looks at the threads, ms. */
const WATCH_MS = 10;

/** What a mount or describe may take on top of its deadline (loading QuickJS in a new thread), ms. */
const STARTUP_MS = 1000;

/**
 * How long the pool waits, spinning, for the reply of an invocation when it is the only request in
 * flight, in ms. Waking the main thread's event loop for a reply costs about 50 us on the 2-core
 * machines measured (more than a warm sandbox run); reading the reply synchronously as it arrives
 * does not. Under load (two requests or more in flight) the pool never waits: its event loop has
 * other work, and the replies come as messages. A reply later than this comes as a message too.
 */
const SPIN_MS = 0.2;

/** `Omit` over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The outcome of a request. */
export type Reply =
  | { kind: "done"; value?: unknown; error?: WireError; memory?: number }
  /** Cancelled before it started: the thread was stuck. Run it elsewhere. */
  | { kind: "moved" }
  /** The thread was terminated; `overdue` when this request was the one past its deadline. */
  | { kind: "killed"; overdue: boolean };

interface Pending {
  seq: number;
  timeoutMs: number;
  /** Deadline plus the kill margin, epoch ms, from when the worker claimed it (0: not yet). */
  killAt: number;
  resolve(reply: Reply): void;
}

/** The `code` of a bridge's error (ECONNREFUSED, ssrf_blocked...), kept across threads. */
function wireCode(error: unknown): { code?: string } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? { code } : {};
}

/** Options of {@link ThreadPool}. */
export interface ThreadPoolOptions {
  size: number;
  limits: Limits;
  recycleAfter: number;
  stallMs: number;
  killAfterMs: number;
  /** How long a load or mount waits for a turn on a thread before it fails, ms. */
  waitMs: number;
  /** Answers a worker's bridge call (fetch, data stores, http, sockets' polls) for mount `key`. */
  onCall(key: number, op: CallOp, request: unknown): Promise<unknown>;
  /** Takes a worker's socket command for mount `key`. */
  onNet(message: Extract<WorkerMessage, { t: "net" }>): void;
  /** Told when a thread was terminated, with the mount keys it held. */
  onKilled(thread: PoolThread): void;
}

/** One worker thread. */
export class PoolThread {
  readonly worker: Worker;
  readonly beat: Float64Array;
  readonly claims: Int32Array;
  /** Messages the worker has posted (it counts them) and those read here. */
  private readonly sent: Int32Array;
  private received = 0;
  /** The pool's end of the worker's reply port. */
  private readonly replies: MessagePort;
  readonly pending = new Map<number, Pending>();
  /** Mount keys pinned here. */
  readonly mounts = new Set<number>();
  dead = false;
  private seq = 0;

  constructor(
    readonly index: number,
    private readonly pool: ThreadPool,
  ) {
    const beat = new SharedArrayBuffer(8);
    const claims = new SharedArrayBuffer(4 * CLAIM_SLOTS);
    // 0 until the worker has started (starting is not being stuck).
    this.beat = new Float64Array(beat);
    this.claims = new Int32Array(claims);
    const sent = new SharedArrayBuffer(4);
    this.sent = new Int32Array(sent);
    const channel = new MessageChannel();
    this.replies = channel.port1;
    const data: WorkerData = {
      limits: pool.options.limits,
      recycleAfter: pool.options.recycleAfter,
      beat,
      claims,
      sent,
      replies: channel.port2,
    };
    const boot = workerBoot();
    this.worker = new Worker(boot.entry, {
      ...boot.options,
      workerData: data,
      transferList: [channel.port2],
    });
    this.worker.unref();
    this.replies.unref();
    this.replies.on("message", (message: WorkerMessage) => {
      this.received++;
      this.onMessage(message);
    });
    this.worker.on("error", (error) => {
      if (process.env.HOOKLINE_POOL_DEBUG) console.error("pool worker error", error);
      pool.kill(this);
    });
    this.worker.on("exit", () => {
      if (!this.dead) pool.kill(this);
    });
  }

  /** True once the worker has started (its first heartbeat). */
  get ready(): boolean {
    return (this.beat[0] as number) !== 0;
  }

  /** The thread that replaced this one after it was terminated. */
  replacement: PoolThread | undefined;

  /** True while the thread's event loop has not run for `stallMs`: some sandbox holds it. */
  stalled(now = Date.now()): boolean {
    const last = this.beat[0] as number;
    return last !== 0 && now - last > this.pool.options.stallMs;
  }

  /** Sends a request and resolves with its reply. */
  request(
    message: DistributiveOmit<Extract<PoolRequest, { seq: number }>, "seq">,
    timeoutMs: number,
  ): Promise<Reply> {
    const seq = ++this.seq;
    const slot = seq % CLAIM_SLOTS;
    // A thread's first sandbox loads the QuickJS module: not the component's time.
    if (message.t !== "invoke") timeoutMs += STARTUP_MS;
    Atomics.store(this.claims, slot, seq);
    const reply = new Promise<Reply>((resolve) => {
      this.pending.set(seq, { seq, timeoutMs, killAt: 0, resolve });
      this.worker.postMessage({ ...message, seq });
      this.pool.watchdog();
    });
    if (message.t === "invoke" && this.pool.inFlight() === 1) this.await(seq);
    return reply;
  }

  /**
   * Spins up to `SPIN_MS` for the worker's messages while `seq` is pending, reading each as it
   * arrives (a bridge call as well as the reply).
   */
  private await(seq: number): void {
    const until = performance.now() + SPIN_MS;
    while (this.pending.has(seq) && performance.now() < until) {
      if (Atomics.load(this.sent, 0) === this.received) continue;
      const got = receiveMessageOnPort(this.replies);
      if (!got) continue;
      this.received++;
      this.onMessage(got.message as WorkerMessage);
    }
  }

  /** Closes the pool's end of the reply port (the thread is gone). */
  closePort(): void {
    this.replies.close();
  }

  /** A message with no reply (dispose, bridge answers). */
  post(message: PoolRequest): void {
    if (!this.dead) this.worker.postMessage(message);
  }

  /** True once the worker has started `seq`. */
  claimed(seq: number): boolean {
    return Atomics.load(this.claims, seq % CLAIM_SLOTS) === -seq;
  }

  /** Cancels `seq` if the worker has not claimed it. */
  cancel(seq: number): boolean {
    return Atomics.compareExchange(this.claims, seq % CLAIM_SLOTS, seq, 0) === seq;
  }

  private onMessage(message: WorkerMessage): void {
    if (message.t === "net") {
      this.pool.options.onNet(message);
      return;
    }
    if (message.t === "call") {
      this.pool.options.onCall(message.key, message.op, message.request).then(
        (value) =>
          this.post({
            t: "reply",
            call: message.call,
            ...(value === undefined ? {} : { value: JSON.stringify(value) }),
          }),
        (error: unknown) =>
          this.post({
            t: "reply",
            call: message.call,
            error: error instanceof Error ? error.message : String(error),
            ...wireCode(error),
          }),
      );
      return;
    }
    const pending = this.pending.get(message.seq);
    if (!pending) return;
    this.pending.delete(message.seq);
    pending.resolve({
      kind: "done",
      ...(message.value !== undefined ? { value: message.value } : {}),
      ...(message.error ? { error: message.error } : {}),
      ...(message.memory !== undefined ? { memory: message.memory } : {}),
    });
  }
}

/** The pool's threads and watchdog. */
export class ThreadPool {
  private threads: PoolThread[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Threads terminated so far (for tests and metrics). */
  killed = 0;

  constructor(readonly options: ThreadPoolOptions) {}

  /** The live threads (started on first use). */
  all(): PoolThread[] {
    if (this.closed) throw new Error("the sandbox pool is closed");
    if (this.threads.length === 0) {
      for (let i = 0; i < this.options.size; i++) this.threads.push(new PoolThread(i, this));
    }
    return this.threads;
  }

  /** Starts the watchdog if it is not running: it runs while requests are in flight, never idle. */
  watchdog(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.watch(), WATCH_MS);
    this.timer.unref();
  }

  /**
   * The thread to pin a mount to: the fewest mounts among the started threads that are not stuck,
   * else among those starting, else any but `avoid`.
   */
  pick(avoid?: PoolThread): PoolThread {
    const now = Date.now();
    const threads = this.all();
    const others = threads.filter((t) => t !== avoid);
    const ready = others.filter((t) => t.ready && !t.stalled(now));
    const starting = others.filter((t) => !t.ready);
    const candidates =
      ready.length > 0 ? ready : starting.length > 0 ? starting : others.length > 0 ? others : threads;
    return candidates.reduce((a, b) => (b.mounts.size < a.mounts.size ? b : a));
  }

  private watch(): void {
    if (this.inFlight() === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const now = Date.now();
    for (const thread of [...this.threads]) {
      if (thread.pending.size === 0) continue;
      const stalled = thread.stalled(now);
      for (const pending of [...thread.pending.values()]) {
        if (pending.killAt === 0 && thread.claimed(pending.seq))
          pending.killAt = now + pending.timeoutMs + this.options.killAfterMs;
        // Overdue and its event loop held: the sandbox's own deadline could not stop it.
        if (pending.killAt !== 0 && now > pending.killAt && stalled) {
          this.kill(thread, pending.seq);
          break;
        }
        if (stalled && this.elsewhere(thread) && thread.cancel(pending.seq)) {
          thread.pending.delete(pending.seq);
          pending.resolve({ kind: "moved" });
        }
      }
    }
  }

  /** True when a thread other than `stuck` can take work (else waiting is all there is to do). */
  elsewhere(stuck: PoolThread): boolean {
    const now = Date.now();
    // A thread still starting may take seconds (from the sources): not worth moving to.
    return this.threads.some((t) => t !== stuck && !t.dead && t.ready && !t.stalled(now));
  }

  /** Terminates `thread` and starts its replacement; its requests end (`overdue` names the culprit). */
  kill(thread: PoolThread, overdue?: number): void {
    if (thread.dead) return;
    thread.dead = true;
    this.killed++;
    void thread.worker.terminate();
    thread.closePort();
    const index = this.threads.indexOf(thread);
    if (index >= 0 && !this.closed) {
      thread.replacement = new PoolThread(thread.index, this);
      this.threads[index] = thread.replacement;
    }
    for (const pending of thread.pending.values()) {
      // What the thread had not started yet runs elsewhere; what it was running is lost.
      if (thread.claimed(pending.seq)) pending.resolve({ kind: "killed", overdue: pending.seq === overdue });
      else pending.resolve({ kind: "moved" });
    }
    thread.pending.clear();
    this.options.onKilled(thread);
  }

  /**
   * A load or mount that did not get to run (moved off a stuck thread, or its thread replaced
   * because of another component) waits its turn: a short pause growing with the attempts, and
   * `service_unavailable` once it has waited `waitMs` since `since`.
   */
  async waitTurn(since: number, attempt: number, what: string): Promise<void> {
    if (Date.now() - since > this.options.waitMs)
      throw new HooklineError(
        "service_unavailable",
        `Every sandbox thread stayed busy for ${this.options.waitMs} ms: the component could not be ${what}; try again`,
      );
    await new Promise((resolve) => setTimeout(resolve, Math.min(10 * attempt, 250)));
  }

  /** Requests in flight across the threads. */
  inFlight(): number {
    let n = 0;
    for (const thread of this.threads) n += thread.pending.size;
    return n;
  }

  /** Number of live threads. */
  get size(): number {
    return this.threads.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    const threads = this.threads;
    this.threads = [];
    for (const thread of threads) {
      thread.dead = true;
      thread.closePort();
      for (const pending of thread.pending.values()) pending.resolve({ kind: "killed", overdue: false });
      thread.pending.clear();
    }
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }
}
