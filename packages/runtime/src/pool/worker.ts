/**
 * A worker thread of the sandbox pool: runs the in-thread runtime for the mounts the pool pins
 * here. Its `/tmp` volumes, QuickJS module and warm contexts live in this thread. The pool may
 * terminate it at any time (a sandbox past its deadline by the kill margin).
 */
import { parentPort, receiveMessageOnPort, threadId, workerData } from "node:worker_threads";
import { HooklineError } from "@hookline/core";
import { describeBundle } from "../_load.js";
import type { InternalMountOptions, NetCommand, SocketLink } from "../net/socket-host.js";
import { createRuntime } from "../runtime.js";
import type { HostBridges, MountedComponent } from "../types.js";
import type { BridgeFlags, CallOp, PoolRequest, WireError, WorkerData, WorkerMessage } from "./protocol.js";

const data = workerData as WorkerData;
const port = parentPort;
if (!port) throw new Error("the pool worker runs in a worker thread");
const beat = new Float64Array(data.beat);
const claims = new Int32Array(data.claims);
const runtime = createRuntime({ limits: data.limits, recycleAfter: data.recycleAfter });

/** The heartbeat the pool reads to see that this thread's event loop is free. */
beat[0] = Date.now();
setInterval(() => {
  beat[0] = Date.now();
}, 10);

interface Entry {
  mounted?: MountedComponent;
  /** The db snapshot of the running invocation and its writes. */
  db: Record<string, unknown>;
  writes: [string, unknown][];
  memoryAt: number;
}
const mounts = new Map<number, Entry>();
const calls = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
let callSeq = 0;

const replies = data.replies;
const sent = new Int32Array(data.sent);

function send(message: WorkerMessage): void {
  // Answering is the event loop being free: a slow module import is not a stuck sandbox.
  beat[0] = Date.now();
  replies.postMessage(message);
  // Counted after the post: a pool waiting for this reply reads it at once (threads.ts).
  Atomics.add(sent, 0, 1);
}

function wire(error: unknown): WireError {
  if (error instanceof HooklineError)
    return { code: error.code, message: error.message, details: error.details };
  const e = error as Error & { code?: unknown };
  return {
    code: typeof e?.code === "string" ? e.code : "internal_error",
    message: e?.message ?? String(error),
    ...(e?.stack ? { stack: e.stack } : {}),
  };
}

function remote(key: number, op: CallOp) {
  return (request: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const call = ++callSeq;
      calls.set(call, { resolve, reject });
      send({ t: "call", call, key, op, request });
    });
}

/**
 * A sandbox's sockets here are a relay to the pool's socket host of its mount (remote-mount.ts):
 * commands go in order, polls and lookups are calls. The pool starts each invocation's counts.
 */
let links = 0;
function remoteLink(key: number): SocketLink {
  // Names this sandbox's sockets: a message of an older sandbox of the same mount is told apart.
  const link = `${threadId}:${++links}`;
  let used = false;
  const poll = remote(key, "net.poll");
  const lookup = remote(key, "dns");
  return {
    command(cmd: NetCommand) {
      used = true;
      send({ t: "net", key, link, cmd });
    },
    poll: () => poll({ link }) as ReturnType<SocketLink["poll"]>,
    lookup: (request) => lookup({ ...request, link }) as ReturnType<SocketLink["lookup"]>,
    begin() {},
    close() {
      if (used) send({ t: "net", key, link, cmd: { op: "reset" } });
      used = false;
    },
  };
}

function bridgesFor(key: number, entry: Entry, given: BridgeFlags) {
  const bridges: HostBridges = {};
  if (given.db)
    bridges.db = {
      entries: async () => entry.db,
      write: async (writes) => {
        entry.writes.push(...writes);
      },
    };
  if (given.fetch) bridges.fetch = remote(key, "fetch") as HostBridges["fetch"];
  if (given.dataStore) bridges.dataStore = remote(key, "dataStore");
  if (given.http) bridges.http = remote(key, "http") as HostBridges["http"];
  return bridges;
}

/** Claims `seq` (the pool may have cancelled it to run it elsewhere). */
/**
 * Loads and mounts run one after another in a thread, each claimed when its turn comes: a load
 * or mount that hangs is then the only claimed one when the pool terminates the thread, and the
 * others waiting behind it move to another thread instead of failing with it.
 */
let turn: Promise<unknown> = Promise.resolve();
function inTurn(fn: () => Promise<void>): Promise<void> {
  const next = turn.then(fn, fn);
  turn = next.catch(() => undefined);
  return next;
}

function claim(seq: number): boolean {
  const slot = seq % claims.length;
  return Atomics.compareExchange(claims, slot, seq, -seq) === seq;
}

async function handle(message: PoolRequest): Promise<void> {
  switch (message.t) {
    case "reply": {
      const pending = calls.get(message.call);
      calls.delete(message.call);
      if (message.error !== undefined)
        pending?.reject(Object.assign(new Error(message.error), message.code ? { code: message.code } : {}));
      else pending?.resolve(message.value === undefined ? undefined : JSON.parse(message.value));
      return;
    }
    case "dispose": {
      mounts.get(message.key)?.mounted?.dispose();
      mounts.delete(message.key);
      return;
    }
    case "describe": {
      await inTurn(async () => {
        if (!claim(message.seq)) return;
        try {
          send({ t: "done", seq: message.seq, value: await describeBundle(message.bundle, data.limits) });
        } catch (error) {
          send({ t: "done", seq: message.seq, error: wire(error) });
        }
      });
      return;
    }
    case "mount": {
      await inTurn(() => mount(message));
      return;
    }
    case "invoke": {
      if (!claim(message.seq)) return;
      const entry = mounts.get(message.key);
      try {
        if (!entry?.mounted)
          throw new HooklineError("internal_error", "the component is not mounted in this thread");
        entry.db = message.db ?? {};
        entry.writes = [];
        const fn = entry.mounted[message.method] as (...args: unknown[]) => Promise<unknown>;
        const result = (await fn.apply(entry.mounted, message.args)) as Record<string, unknown>;
        result.dbWrites = entry.writes;
        // The heap walk costs about 0.15 ms: refreshed at most once a second.
        const now = Date.now();
        let memory: number | undefined;
        if (now - entry.memoryAt >= 1000) {
          entry.memoryAt = now;
          memory = entry.mounted.memoryUsage();
        }
        send({ t: "done", seq: message.seq, value: result, ...(memory !== undefined ? { memory } : {}) });
      } catch (error) {
        send({ t: "done", seq: message.seq, error: wire(error) });
      }
      return;
    }
  }
}

port.on("message", (message: PoolRequest) => {
  beat[0] = Date.now();
  void handle(message).then(linger);
});

/**
 * After an answer, spins up to `LINGER_MS` for the pool's next message when messages have been
 * coming that close together (a busy source, a burst), reading it synchronously: waking this
 * thread's event loop for a message costs about 40 us on the machines measured, more than a warm
 * sandbox run. A thread whose messages come far apart never spins.
 */
const LINGER_MS = 0.1;
let lastMessageAt = 0;
let lingering = false;
function linger(): void {
  if (lingering) return;
  const now = performance.now();
  const close = now - lastMessageAt < 1;
  lastMessageAt = now;
  if (!close || !port) return;
  lingering = true;
  try {
    const until = performance.now() + LINGER_MS;
    while (performance.now() < until) {
      const got = receiveMessageOnPort(port);
      if (!got) continue;
      beat[0] = Date.now();
      lastMessageAt = performance.now();
      void handle(got.message as PoolRequest).then(linger);
      return;
    }
  } finally {
    lingering = false;
  }
}

/** Mounts a component (one load or mount runs at a time: see inTurn). */
async function mount(message: Extract<PoolRequest, { t: "mount" }>): Promise<void> {
  if (!claim(message.seq)) return;
  const entry: Entry = { db: {}, writes: [], memoryAt: Date.now() };
  try {
    const options: InternalMountOptions = {
      ...message.options,
      bridges: bridgesFor(message.key, entry, message.bridges),
      ...(message.bridges.net ? { netLink: () => remoteLink(message.key) } : {}),
    };
    const mounted = await runtime.mount(options);
    entry.mounted = mounted;
    mounts.set(message.key, entry);
    send({ t: "done", seq: message.seq, value: mounted.description, memory: mounted.memoryUsage() });
  } catch (error) {
    send({ t: "done", seq: message.seq, error: wire(error) });
  }
}
