/**
 * The host side of a mounted component's sockets (`net`, `tls`): it opens them through the
 * caller's {@link NetBridge} (which applies the SSRF guard), keeps them across invocations, applies
 * the caps (`limits.sockets`, `socketsPerInvocation`, `socketBytes`) and the idle timeout, and
 * closes every one when the sandbox is replaced or unmounted. The guest sends commands in order
 * and receives what happened as batches of events through `poll` (one pending poll at a time):
 * data received while the guest is not polling waits here, and past `HIGH_WATER` bytes the
 * sockets stop reading until the guest catches up. In pool mode this object lives in the main
 * thread and the worker relays (net/remote-link.ts); in-thread the sandbox calls it directly.
 */
import type { BridgeTlsOptions, Limits, MountOptions, NetBridge, NetSocket } from "../types.js";

/** A guest command (guest/net.js). Data is base64. */
export type NetCommand =
  | {
      op: "open";
      id: number;
      host: string;
      port: number;
      tls?: BridgeTlsOptions;
      family?: 4 | 6;
      timeoutMs?: number;
    }
  | { op: "write"; id: number; data: string }
  | { op: "end"; id: number }
  | { op: "destroy"; id: number }
  | { op: "tls"; id: number; to: number; tls: BridgeTlsOptions }
  | {
      op: "set";
      id: number;
      noDelay?: boolean;
      keepAlive?: boolean;
      keepAliveDelay?: number;
      timeout?: number;
    };

/** What the guest hears: `[kind, socket id, detail]`: connect, data (base64), end, timeout, error, close. */
export type NetEvent = [kind: string, id: number, detail?: unknown];

/** The sandbox's end of its sockets: this host in-thread, a relay to it in a pool thread. */
export interface SocketLink {
  command(cmd: NetCommand): void;
  /** The events since the last poll; waits for one when there are none. */
  poll(): Promise<NetEvent[]>;
  lookup(request: { hostname: string; family?: 4 | 6 }): Promise<{ address: string; family: number }[]>;
  /** An invocation starts: the per-invocation caps count from zero. */
  begin(): void;
  /** Closes every socket (the sandbox is replaced or the component unmounted). */
  close(): void;
}

/** Mount options with the pool worker's socket relay (pool/worker.ts) in place of a net bridge. */
export interface InternalMountOptions extends MountOptions {
  netLink?: () => SocketLink;
}

/** The caps a socket host applies. */
export type SocketLimits = Pick<Limits, "sockets" | "socketsPerInvocation" | "socketBytes" | "socketIdleMs">;

interface Entry {
  socket?: NetSocket;
  /** Commands given before the socket connected, run once it has. */
  waiting: NetCommand[];
  lastActive: number;
  closed: boolean;
  /** Its listeners, removed when TLS takes the socket over. */
  detach?: () => void;
}

/** Bytes received and not yet handed to the guest past which the sockets stop reading. */
const HIGH_WATER = 1024 * 1024;

function errorDetail(error: unknown): { code: string; message: string } {
  const e = error as { code?: unknown; message?: unknown };
  return {
    code: typeof e?.code === "string" ? e.code : "ERR_SOCKET",
    message: typeof e?.message === "string" ? e.message : String(error),
  };
}

function limitError(message: string): { code: string; message: string } {
  return { code: "ERR_SANDBOX_SOCKET_LIMIT", message };
}

/** What the guest learns when a socket connects (addresses; for TLS, whether it is trusted). */
function connectInfo(socket: NetSocket): Record<string, unknown> {
  const info: Record<string, unknown> = {
    localAddress: socket.localAddress,
    localPort: socket.localPort,
    remoteAddress: socket.remoteAddress,
    remotePort: socket.remotePort,
    remoteFamily: socket.remoteFamily,
  };
  const secure = socket as NetSocket & {
    authorized?: boolean;
    authorizationError?: Error | string;
    alpnProtocol?: string | false;
    getProtocol?: () => string | null;
    getPeerCertificate?: () => Record<string, unknown>;
  };
  if (typeof secure.getPeerCertificate === "function") {
    const cert = secure.getPeerCertificate() ?? {};
    info.tls = {
      authorized: secure.authorized === true,
      authorizationError: secure.authorizationError ? String(secure.authorizationError) : null,
      alpnProtocol: secure.alpnProtocol ?? false,
      protocol: secure.getProtocol?.() ?? null,
      cert: {
        subject: cert.subject,
        issuer: cert.issuer,
        subjectaltname: cert.subjectaltname,
        valid_from: cert.valid_from,
        valid_to: cert.valid_to,
        fingerprint256: cert.fingerprint256,
        serialNumber: cert.serialNumber,
      },
    };
  }
  return info;
}

/** One mounted component's host sockets; see the file comment. */
export class SocketHost implements SocketLink {
  private readonly sockets = new Map<number, Entry>();
  private queue: NetEvent[] = [];
  private queuedBytes = 0;
  private waiter: ((events: NetEvent[]) => void) | undefined;
  private flushing = false;
  private paused = false;
  private openedNow = 0;
  private bytesNow = 0;
  private sweep: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly bridge: NetBridge | undefined,
    private readonly limits: SocketLimits,
  ) {}

  begin(): void {
    this.openedNow = 0;
    this.bytesNow = 0;
  }

  poll(): Promise<NetEvent[]> {
    if (this.queue.length > 0 || this.closed) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  lookup(request: { hostname: string; family?: 4 | 6 }): Promise<{ address: string; family: number }[]> {
    if (!this.bridge) return Promise.reject(unavailable());
    return this.bridge.lookup(request.hostname, request.family ? { family: request.family } : {});
  }

  command(cmd: NetCommand): void {
    if (this.closed) return;
    if (cmd.op === "open") this.open(cmd);
    else if (cmd.op === "tls") this.upgrade(cmd);
    else this.onSocket(cmd);
  }

  private onSocket(cmd: Exclude<NetCommand, { op: "open" | "tls" }>): void {
    const entry = this.sockets.get(cmd.id);
    if (!entry || entry.closed) return;
    if (!entry.socket && cmd.op === "destroy") {
      // Still connecting: the socket is dropped when it connects.
      entry.closed = true;
      this.sockets.delete(cmd.id);
    } else if (!entry.socket) entry.waiting.push(cmd);
    else this.apply(cmd.id, entry, entry.socket, cmd);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const entry of this.sockets.values()) {
      entry.closed = true;
      entry.detach?.();
      entry.socket?.destroy();
    }
    this.sockets.clear();
    if (this.sweep) clearInterval(this.sweep);
    this.queue = [];
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.([]);
  }

  private open(cmd: Extract<NetCommand, { op: "open" }>): void {
    const { id } = cmd;
    const refused = !this.bridge
      ? unavailable()
      : this.sockets.size >= this.limits.sockets
        ? limitError(`The component has ${this.sockets.size} sockets open, the most it may (limits.sockets)`)
        : this.openedNow >= this.limits.socketsPerInvocation
          ? limitError(
              `The invocation opened ${this.openedNow} sockets, the most it may (limits.socketsPerInvocation)`,
            )
          : undefined;
    if (refused !== undefined || !this.bridge) {
      this.push(["error", id, errorDetail(refused)]);
      this.push(["close", id, true]);
      return;
    }
    this.openedNow++;
    const entry: Entry = { waiting: [], lastActive: Date.now(), closed: false };
    this.sockets.set(id, entry);
    this.startSweep();
    const request = {
      host: cmd.host,
      port: cmd.port,
      ...(cmd.tls ? { tls: cmd.tls } : {}),
      ...(cmd.family ? { family: cmd.family } : {}),
      ...(cmd.timeoutMs ? { timeoutMs: cmd.timeoutMs } : {}),
    };
    this.bridge.connect(request).then(
      (socket) => this.connected(id, entry, socket),
      (error: unknown) => this.failed(id, entry, error),
    );
  }

  /** `tls.connect({ socket })`: socket `cmd.id` carries TLS as socket `cmd.to`. */
  private upgrade(cmd: Extract<NetCommand, { op: "tls" }>): void {
    const plain = this.sockets.get(cmd.id);
    const entry: Entry = { waiting: [], lastActive: Date.now(), closed: false };
    this.sockets.delete(cmd.id);
    this.sockets.set(cmd.to, entry);
    if (!plain?.socket || plain.closed || !this.bridge) {
      this.failed(
        cmd.to,
        entry,
        Object.assign(new Error("The socket to secure is not connected"), { code: "ERR_SOCKET_CLOSED" }),
      );
      return;
    }
    plain.closed = true;
    plain.detach?.();
    this.bridge.upgrade(plain.socket, cmd.tls).then(
      (socket) => this.connected(cmd.to, entry, socket),
      (error: unknown) => {
        plain.socket?.destroy();
        this.failed(cmd.to, entry, error);
      },
    );
  }

  private connected(id: number, entry: Entry, socket: NetSocket): void {
    if (entry.closed || this.closed) {
      socket.destroy();
      return;
    }
    entry.socket = socket;
    entry.lastActive = Date.now();
    const onData = (chunk: Buffer) => {
      entry.lastActive = Date.now();
      if (!this.count(id, entry, chunk.length)) return;
      this.queuedBytes += chunk.length;
      const last = this.queue[this.queue.length - 1];
      if (last && last[0] === "data" && last[1] === id) (last[2] as Buffer[]).push(chunk);
      else this.push(["data", id, [chunk]]);
      if (this.queuedBytes > HIGH_WATER && !this.paused) {
        this.paused = true;
        for (const other of this.sockets.values()) other.socket?.pause();
      }
    };
    const onEnd = () => this.push(["end", id]);
    const onTimeout = () => this.push(["timeout", id]);
    const onError = (error: Error) => this.push(["error", id, errorDetail(error)]);
    const onClose = (hadError: boolean) => {
      if (entry.closed) return;
      entry.closed = true;
      this.sockets.delete(id);
      this.push(["close", id, hadError]);
    };
    socket
      .on("data", onData)
      .on("end", onEnd)
      .on("timeout", onTimeout)
      .on("error", onError)
      .on("close", onClose);
    entry.detach = () => {
      socket
        .off("data", onData)
        .off("end", onEnd)
        .off("timeout", onTimeout)
        .off("error", onError)
        .off("close", onClose);
    };
    if (this.paused) socket.pause();
    this.push(["connect", id, connectInfo(socket)]);
    for (const cmd of entry.waiting.splice(0)) if (!entry.closed) this.apply(id, entry, socket, cmd);
  }

  private failed(id: number, entry: Entry, error: unknown): void {
    if (entry.closed || this.closed) return;
    entry.closed = true;
    this.sockets.delete(id);
    this.push(["error", id, errorDetail(error)]);
    this.push(["close", id, true]);
  }

  private apply(id: number, entry: Entry, socket: NetSocket, cmd: NetCommand): void {
    switch (cmd.op) {
      case "write": {
        const data = Buffer.from(cmd.data, "base64");
        entry.lastActive = Date.now();
        if (this.count(id, entry, data.length)) socket.write(data);
        return;
      }
      case "end":
        socket.end();
        return;
      case "destroy":
        entry.closed = true;
        entry.detach?.();
        this.sockets.delete(id);
        socket.destroy();
        return;
      case "set":
        if (cmd.noDelay !== undefined) socket.setNoDelay(cmd.noDelay);
        if (cmd.keepAlive !== undefined) socket.setKeepAlive(cmd.keepAlive, cmd.keepAliveDelay ?? 0);
        if (cmd.timeout !== undefined) socket.setTimeout(cmd.timeout);
        return;
    }
  }

  /** Counts bytes against `limits.socketBytes`; past it the socket is destroyed with an error. */
  private count(id: number, entry: Entry, bytes: number): boolean {
    this.bytesNow += bytes;
    if (this.bytesNow <= this.limits.socketBytes) return true;
    this.kill(
      id,
      entry,
      limitError(
        `The invocation sent and received more than ${this.limits.socketBytes} bytes on sockets (limits.socketBytes)`,
      ),
    );
    return false;
  }

  private kill(id: number, entry: Entry, detail: { code: string; message: string }): void {
    if (entry.closed) return;
    entry.closed = true;
    entry.detach?.();
    entry.socket?.destroy();
    this.sockets.delete(id);
    this.push(["error", id, detail]);
    this.push(["close", id, true]);
  }

  /** Closes sockets idle past `limits.socketIdleMs`; runs only while sockets are open. */
  private startSweep(): void {
    if (this.sweep) return;
    const every = Math.min(10_000, Math.max(50, Math.floor(this.limits.socketIdleMs / 4)));
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const [id, entry] of this.sockets) {
        if (now - entry.lastActive > this.limits.socketIdleMs)
          this.kill(id, entry, {
            code: "ETIMEDOUT",
            message: `The socket was idle for more than ${this.limits.socketIdleMs} ms (limits.socketIdleMs) and was closed`,
          });
      }
      if (this.sockets.size === 0 && this.sweep) {
        clearInterval(this.sweep);
        this.sweep = undefined;
      }
    }, every);
    this.sweep.unref();
  }

  private push(event: NetEvent): void {
    if (this.closed) return;
    this.queue.push(event);
    // Events of the same turn go to the guest in one batch.
    if (!this.waiter || this.flushing) return;
    this.flushing = true;
    queueMicrotask(() => {
      this.flushing = false;
      const waiter = this.waiter;
      if (!waiter || this.queue.length === 0) return;
      this.waiter = undefined;
      waiter(this.take());
    });
  }

  /** The queued events for the guest (data as base64); resumes reading once drained. */
  private take(): NetEvent[] {
    const events = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    for (const event of events)
      if (event[0] === "data") event[2] = Buffer.concat(event[2] as Buffer[]).toString("base64");
    if (this.paused) {
      this.paused = false;
      for (const entry of this.sockets.values()) entry.socket?.resume();
    }
    return events;
  }
}

function unavailable(): Error & { code: string } {
  return Object.assign(new Error("Sockets are not available: this runtime has no net bridge"), {
    code: "ERR_NOT_AVAILABLE_IN_SANDBOX",
  });
}
