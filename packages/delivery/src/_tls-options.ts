/** TLS settings of components' connections and requests, and what Node's `tls.connect` takes. */
import net from "node:net";
import type tls from "node:tls";
import type { TlsSettings } from "@hookline/core";

/** TLS settings of a connection (core's {@link TlsSettings}). */
export type TlsOptions = TlsSettings;

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
