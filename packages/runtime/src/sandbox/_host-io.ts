/**
 * The host operations of the guest's Node networking modules, for one sandbox: `http`/`https`
 * requests through the caller's `http` bridge, `dns.lookup` and socket commands through the
 * sandbox's socket link (net/socket-host.ts), and `zlib` (run in the sandbox's own thread). The
 * socket events reach the guest through the sandbox's `net.poll` (sandbox.ts).
 */
import http from "node:http";
import http2 from "node:http2";
import tls from "node:tls";
import zlib from "node:zlib";
import type { SocketLink } from "../net/socket-host.js";
import type { HostBridges, HttpBridgeRequest, Limits } from "../types.js";
import { ZlibHost } from "./_zlib.js";

/** What a sandbox's networking needs: its bridges, its socket link (if any) and its limits. */
export interface HostIoOptions {
  bridges: HostBridges;
  net?: SocketLink;
  limits: Pick<Limits, "memoryBytes" | "httpResponseBytes">;
}

function unavailable(what: string, bridge: string): Error & { code: string } {
  return Object.assign(new Error(`${what} is not available: this runtime has no ${bridge} bridge`), {
    code: "ERR_NOT_AVAILABLE_IN_SANDBOX",
  });
}

/** One sandbox's networking host operations. */
export class HostIo {
  private zlib: ZlibHost | undefined;

  constructor(private readonly options: HostIoOptions) {}

  /** The socket link, or an error naming what is missing. */
  link(): SocketLink {
    if (!this.options.net) throw unavailable("Sockets", "net");
    return this.options.net;
  }

  /** A synchronous operation: its JSON result, or undefined when `op` is not one of these. */
  call(op: string, arg: string): string | undefined {
    if (op === "net") {
      this.link().command(JSON.parse(arg));
      return "";
    }
    if (op === "zlib") {
      this.zlib ??= new ZlibHost(this.options.limits.memoryBytes);
      return this.zlib.call(arg);
    }
    if (op === "zlib.constants") return JSON.stringify(zlib.constants);
    if (op === "http.info")
      return JSON.stringify({
        METHODS: http.METHODS,
        STATUS_CODES: http.STATUS_CODES,
        maxHeaderSize: http.maxHeaderSize,
      });
    if (op === "http2.constants") return JSON.stringify(http2.constants);
    // `tls.rootCertificates` and `tls.getCiphers()`, read once by the guest when used.
    if (op === "net.info") return JSON.stringify({ roots: tls.rootCertificates, ciphers: tls.getCiphers() });
    return undefined;
  }

  /**
   * An asynchronous operation (`remainingMs`: what is left of the invocation): its JSON result,
   * or undefined when `op` is not one of these.
   */
  start(op: string, arg: string, remainingMs: number): Promise<string> | undefined {
    if (op === "zlib") {
      this.zlib ??= new ZlibHost(this.options.limits.memoryBytes);
      return this.zlib.callAsync(arg);
    }
    if (op === "dns") {
      const request = JSON.parse(arg) as { hostname: string; family?: 4 | 6 };
      return this.link()
        .lookup(request)
        .then((addresses) => JSON.stringify(addresses));
    }
    if (op === "http") {
      const bridge = this.options.bridges.http;
      if (!bridge) return Promise.reject(unavailable("http.request()", "http"));
      const request = JSON.parse(arg) as HttpBridgeRequest;
      // The component's own timeout, within what is left of the invocation.
      const left = Math.max(1, Math.floor(remainingMs));
      request.timeoutMs = request.timeoutMs > 0 ? Math.min(request.timeoutMs, left) : left;
      request.maxResponseBytes = this.options.limits.httpResponseBytes;
      return bridge(request).then((response) => {
        if (response.truncated)
          throw Object.assign(
            new Error(
              `The response from ${request.url} is larger than ${request.maxResponseBytes} bytes (limits.httpResponseBytes)`,
            ),
            { code: "ERR_SANDBOX_RESPONSE_TOO_LARGE" },
          );
        return JSON.stringify(response);
      });
    }
    return undefined;
  }

  dispose(): void {
    this.zlib?.dispose();
  }
}
