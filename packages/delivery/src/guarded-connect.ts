/**
 * Raw TCP and TLS connections to untrusted destinations with the SSRF guard: what components'
 * sockets (`net.connect`, `tls.connect`, database clients) are opened with, and the guarded
 * `dns.lookup` they resolve names with. The same rule as the HTTP transport: a literal private
 * address is refused before connecting, a host name at connect time on the addresses it resolves
 * to ({@link createGuardedLookup}).
 */
import type { LookupAddress } from "node:dns";
import net from "node:net";
import tls from "node:tls";
import { type TlsOptions, tlsOptions } from "./_tls-options.js";
import { createGuardedLookup, createHostChecker, type SsrfGuardOptions } from "./ssrf.js";

export type { TlsOptions };

/** A connection for {@link GuardedConnector.connect}. */
export interface ConnectRequest {
  host: string;
  port: number;
  /** Given: a TLS connection (resolved once the handshake is done). */
  tls?: TlsOptions;
  /** Only IPv4 (4) or IPv6 (6) addresses. */
  family?: 4 | 6;
  /** Fail when not connected (and through the handshake) within this time (default 30 s). */
  timeoutMs?: number;
}

/** Opens guarded sockets; see {@link createGuardedConnector}. */
export interface GuardedConnector {
  /**
   * Connects; resolves with the socket once connected (for TLS, once the handshake is done, with
   * `authorized` telling whether the certificate was trusted). Rejects with `SsrfError` (code
   * `ssrf_blocked`) for a refused destination, or the connection's error (`ECONNREFUSED`...).
   */
  connect(request: ConnectRequest): Promise<net.Socket>;
  /** Starts TLS on a connected socket (STARTTLS): resolves once the handshake is done. */
  upgrade(socket: net.Socket, options: TlsOptions & { timeoutMs?: number }): Promise<tls.TLSSocket>;
  /** `dns.lookup(hostname, { all: true })` refusing private answers (`SsrfError`). */
  lookup(hostname: string, options?: { family?: 4 | 6 }): Promise<LookupAddress[]>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

function withTimeout<T extends net.Socket>(
  socket: T,
  ready: string,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = Object.assign(new Error(`${what} timed out after ${timeoutMs} ms`), {
        code: "ETIMEDOUT",
      });
      socket.destroy(error);
    }, timeoutMs);
    const done = (error?: Error) => {
      clearTimeout(timer);
      socket.off("error", done);
      socket.off(ready, ok);
      if (error) reject(error);
      else resolve(socket);
    };
    const ok = () => done();
    socket.once("error", done);
    socket.once(ready, ok);
  });
}

/**
 * Creates the connector of components' sockets: every connection is checked by the SSRF guard
 * (`options`: `allowPrivate`, `allowList`), as the HTTP transport's requests are.
 *
 * @param options - SSRF allow-list settings.
 * @returns The connector.
 * @example
 * ```ts
 * const connector = createGuardedConnector({ allowList: ["10.0.0.0/8"] });
 * const socket = await connector.connect({ host: "db.example.com", port: 5432 });
 * socket.write(startupMessage);
 * ```
 */
export function createGuardedConnector(options: SsrfGuardOptions = {}): GuardedConnector {
  const lookup = createGuardedLookup(options);
  const checkHost = createHostChecker(options);
  return {
    async connect(request) {
      checkHost(request.host);
      const timeoutMs = request.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
      const base = {
        host: request.host,
        port: request.port,
        lookup,
        ...(request.family ? { family: request.family } : {}),
      };
      if (!request.tls)
        return withTimeout(
          net.connect(base),
          "connect",
          timeoutMs,
          `connect ${request.host}:${request.port}`,
        );
      const socket = tls.connect({ ...base, ...tlsOptions(request.tls, request.host) });
      return withTimeout(socket, "secureConnect", timeoutMs, `TLS connect ${request.host}:${request.port}`);
    },
    upgrade(socket, upgrade) {
      const secure = tls.connect({ socket, ...tlsOptions(upgrade, socket.remoteAddress) });
      return withTimeout(
        secure,
        "secureConnect",
        upgrade.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        "TLS handshake",
      );
    },
    lookup(hostname, lookupOptions = {}) {
      return new Promise((resolve, reject) => {
        try {
          checkHost(hostname);
        } catch (error) {
          reject(error);
          return;
        }
        lookup(
          hostname,
          { all: true, ...(lookupOptions.family ? { family: lookupOptions.family } : {}) },
          (err, addresses) => (err ? reject(err) : resolve(addresses)),
        );
      });
    },
  };
}
