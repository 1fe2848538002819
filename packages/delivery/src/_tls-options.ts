/** TLS settings of components' connections and requests, and what Node's `tls.connect` takes. */
import net from "node:net";
import type tls from "node:tls";

/** TLS settings of a connection (as `tls.connect` takes them; PEM text for certificates and keys). */
export interface TlsOptions {
  /** The name sent for SNI and checked against the certificate (default: the host, unless an IP). */
  servername?: string;
  /** Refuse a certificate that does not chain to `ca` (or the system roots): true by default. */
  rejectUnauthorized?: boolean;
  /** Trusted certificates replacing the default roots. */
  ca?: string | string[];
  /** A client certificate and its key (mutual TLS). */
  cert?: string | string[];
  key?: string | string[];
  passphrase?: string;
  minVersion?: tls.SecureVersion;
  maxVersion?: tls.SecureVersion;
  ciphers?: string;
  ALPNProtocols?: string[];
}

/** Node's TLS options from {@link TlsOptions} (undefined fields left out). */
export function tlsOptions(options: TlsOptions, host?: string): tls.ConnectionOptions {
  const out: tls.ConnectionOptions = { rejectUnauthorized: options.rejectUnauthorized !== false };
  const servername = options.servername ?? (host && net.isIP(host) === 0 ? host : undefined);
  if (servername) out.servername = servername;
  for (const key of ["ca", "cert", "key", "passphrase", "minVersion", "maxVersion", "ciphers"] as const)
    if (options[key] !== undefined) (out as Record<string, unknown>)[key] = options[key];
  if (options.ALPNProtocols) out.ALPNProtocols = options.ALPNProtocols;
  return out;
}
