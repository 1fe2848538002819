/**
 * TLS settings of a component's `https` request or `tls` socket, as Node's `tls.connect` takes them
 * (certificates and keys as PEM text). One definition for the runtime, which carries them from the
 * sandbox, and the delivery transport, which connects with them.
 *
 * @example
 * ```ts
 * const settings: TlsSettings = { servername: "api.example.com", minVersion: "TLSv1.2" };
 * ```
 */
export interface TlsSettings {
  /** The name sent for SNI and checked against the certificate (default: the host, unless an IP). */
  servername?: string;
  /** Refuse a certificate that does not chain to `ca` (or the system roots): true by default, as in Node. */
  rejectUnauthorized?: boolean;
  /** Trusted certificates replacing the default roots. */
  ca?: string | string[];
  /** A client certificate and its key (mutual TLS). */
  cert?: string | string[];
  key?: string | string[];
  passphrase?: string;
  minVersion?: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3";
  maxVersion?: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3";
  ciphers?: string;
  ALPNProtocols?: string[];
}
