import dns, { type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";

/** Options shared by the SSRF guard helpers. */
export interface SsrfGuardOptions {
  /** Allow every private, loopback, link-local and reserved address (e.g. for local development). */
  allowPrivate?: boolean;
  /** Hostnames, IP addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`) allowed even though they are private. */
  allowList?: string[];
}

/** Why an {@link SsrfError} was raised. */
export type SsrfBlockReason = "private_address" | "blocked_hostname" | "invalid_scheme" | "missing_host";

/** Thrown (or passed to lookup callbacks) when a destination is refused by the SSRF guard. */
export class SsrfError extends Error {
  /** Always `"ssrf_blocked"`. */
  readonly code = "ssrf_blocked" as const;
  /** Why the destination was refused. */
  readonly reason: SsrfBlockReason;
  /** The host name that was requested, when known. */
  readonly hostname: string | undefined;
  /** The offending resolved or literal address, when known. */
  readonly address: string | undefined;

  /**
   * @param message - Human-readable description.
   * @param details - Reason and the offending host / address.
   */
  constructor(message: string, details: { reason: SsrfBlockReason; hostname?: string; address?: string }) {
    super(message);
    this.name = "SsrfError";
    this.reason = details.reason;
    this.hostname = details.hostname;
    this.address = details.address;
  }
}

/** Host names of cloud metadata services that are always treated as private. */
export const METADATA_HOSTNAMES: readonly string[] = ["metadata.google.internal", "metadata.goog"];

// ---------------------------------------------------------------------------------------------
// Address parsing

type V4 = number; // unsigned 32-bit
type V6 = bigint; // unsigned 128-bit

function parseV4(ip: string): V4 | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

function parseV6(ip: string): V6 | undefined {
  let text = ip;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [v4 >>> 16, v4 & 0xffff];
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const toGroups = (s: string) => (s === "" ? [] : s.split(":"));
  const head = toGroups(halves[0]!);
  const rest = halves.length === 2 ? toGroups(halves[1]!) : [];
  const groups =
    halves.length === 2
      ? [...head, ...Array<string>(8 - head.length - rest.length).fill("0"), ...rest]
      : head;
  if (groups.length !== 8) return undefined;
  let value = 0n;
  for (const [i, group] of groups.entries()) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    const n = tail.length && i >= 6 ? tail[i - 6]! : Number.parseInt(group, 16);
    value = (value << 16n) | BigInt(n);
  }
  return value;
}

/** Strips brackets and an IPv6 zone id (`[fe80::1%eth0]` → `fe80::1`) and lower-cases. */
function normalizeIp(ip: string): string {
  let s = ip.trim().toLowerCase();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  return s;
}

type Parsed = { family: 4; value: V4 } | { family: 6; value: V6 };

function parseIp(ip: string): Parsed | undefined {
  const s = normalizeIp(ip);
  const family = isIP(s);
  if (family === 4) {
    const value = parseV4(s);
    return value === undefined ? undefined : { family: 4, value };
  }
  if (family === 6) {
    const value = parseV6(s);
    return value === undefined ? undefined : { family: 6, value };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Ranges

interface Cidr {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!ip) return undefined;
  const bits = ip.family === 4 ? 32 : 128;
  const prefix = slash < 0 ? bits : Number(text.slice(slash + 1));
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return undefined;
  return { family: ip.family, base: BigInt(ip.value), prefix };
}

function inCidr(ip: Parsed, cidr: Cidr): boolean {
  if (ip.family !== cidr.family) return false;
  const bits = BigInt(ip.family === 4 ? 32 : 128);
  const shift = bits - BigInt(cidr.prefix);
  return BigInt(ip.value) >> shift === cidr.base >> shift;
}

function cidrs(list: string[]): Cidr[] {
  return list.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`Invalid CIDR: ${text}`);
    return cidr;
  });
}

const PRIVATE_V4 = cidrs([
  "0.0.0.0/8", // "this" network
  "10.0.0.0/8", // private
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, incl. cloud metadata 169.254.169.254
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // TEST-NET-1
  "192.88.99.0/24", // 6to4 relay anycast (deprecated)
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // TEST-NET-2
  "203.0.113.0/24", // TEST-NET-3
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, incl. broadcast 255.255.255.255
]);

const PRIVATE_V6 = cidrs([
  "::/128", // unspecified
  "::1/128", // loopback
  "100::/64", // discard-only
  "2001:db8::/32", // documentation
  "fc00::/7", // unique local
  "fe80::/10", // link-local
  "fec0::/10", // site-local (deprecated)
  "ff00::/8", // multicast
]);

/** IPv6 ranges that embed an IPv4 address in their low 32 bits; the embedded address is checked instead. */
const EMBEDS_V4_LOW = cidrs([
  "::ffff:0:0/96", // IPv4-mapped
  "::/96", // IPv4-compatible (deprecated)
  "64:ff9b::/96", // NAT64 well-known prefix
  "64:ff9b:1::/48", // NAT64 local-use prefix
]);
const SIX_TO_FOUR = parseCidr("2002::/16")!;

function embeddedV4(ip: Parsed): Parsed | undefined {
  if (ip.family !== 6) return undefined;
  if (EMBEDS_V4_LOW.some((cidr) => inCidr(ip, cidr))) {
    return { family: 4, value: Number(ip.value & 0xffffffffn) };
  }
  if (inCidr(ip, SIX_TO_FOUR)) return { family: 4, value: Number((ip.value >> 80n) & 0xffffffffn) };
  return undefined;
}

function isPrivateParsed(ip: Parsed): boolean {
  if (ip.family === 4) return PRIVATE_V4.some((cidr) => inCidr(ip, cidr));
  if (PRIVATE_V6.some((cidr) => inCidr(ip, cidr))) return true;
  const v4 = embeddedV4(ip);
  return v4 !== undefined && isPrivateParsed(v4);
}

function normalizeHostname(hostname: string): string {
  return hostname.trim().toLowerCase().replace(/\.$/, "");
}

/**
 * Tells whether an IP address (or cloud metadata host name) must not be reached by outgoing webhooks:
 * loopback, private, carrier-grade NAT, link-local (incl. `169.254.169.254`), multicast, reserved and
 * documentation ranges, plus IPv6 unique-local / link-local / multicast. IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-compatible, NAT64 (`64:ff9b::/96`) and 6to4 addresses are judged by their embedded IPv4 address.
 * Strings that are neither an IP address nor a metadata host name return `false`.
 *
 * @param ip - An IPv4 or IPv6 address (brackets and zone ids are tolerated) or a host name.
 * @returns `true` when the address is private or reserved.
 * @example
 * ```ts
 * isPrivateAddress("10.1.2.3"); // true
 * isPrivateAddress("::ffff:127.0.0.1"); // true
 * isPrivateAddress("93.184.216.34"); // false
 * ```
 */
export function isPrivateAddress(ip: string): boolean {
  const parsed = parseIp(ip);
  if (parsed) return isPrivateParsed(parsed);
  return METADATA_HOSTNAMES.includes(normalizeHostname(ip));
}

// ---------------------------------------------------------------------------------------------
// Allow list

interface CompiledGuard {
  allowPrivate: boolean;
  hostnames: Set<string>;
  ranges: Cidr[];
}

function compile(options: SsrfGuardOptions): CompiledGuard {
  const hostnames = new Set<string>();
  const ranges: Cidr[] = [];
  for (const entry of options.allowList ?? []) {
    const cidr = parseCidr(normalizeIp(entry));
    if (cidr) ranges.push(cidr);
    else hostnames.add(normalizeHostname(entry));
  }
  return { allowPrivate: options.allowPrivate ?? false, hostnames, ranges };
}

function isAddressAllowed(guard: CompiledGuard, address: string): boolean {
  if (guard.allowPrivate) return true;
  const parsed = parseIp(address);
  if (!parsed) return false;
  if (!isPrivateParsed(parsed)) return true;
  const candidates = [parsed];
  const v4 = embeddedV4(parsed);
  if (v4) candidates.push(v4);
  return candidates.some((ip) => guard.ranges.some((cidr) => inCidr(ip, cidr)));
}

function isHostnameAllowed(guard: CompiledGuard, hostname: string): boolean {
  return guard.allowPrivate || guard.hostnames.has(normalizeHostname(hostname));
}

/**
 * Validates a URL before connecting: only `http:` and `https:` are accepted, a host is required, and
 * literal private IP addresses and metadata host names are refused unless allowed by `options`. Host names
 * that resolve to private addresses are caught later, at connect time, by {@link createGuardedLookup}.
 *
 * @param url - The destination URL.
 * @param options - Allow-list settings.
 * @returns The parsed URL.
 * @throws {@link SsrfError} when the URL is refused; `TypeError` when it is not a valid URL.
 * @example
 * ```ts
 * checkUrl("https://example.com/hook"); // ok
 * checkUrl("http://169.254.169.254/latest/meta-data"); // throws SsrfError
 * ```
 */
export function checkUrl(url: string | URL, options: SsrfGuardOptions = {}): URL {
  return checkWith(compile(options), url);
}

/**
 * Returns {@link checkUrl} bound to `options`, with the allow-list compiled once: for callers that
 * check many URLs with the same options.
 *
 * @param options - Allow-list settings.
 * @returns A function that validates a URL like {@link checkUrl}.
 * @example
 * ```ts
 * const check = createUrlChecker({ allowList: ["10.0.0.0/8"] });
 * check("http://10.1.2.3/hook"); // ok
 * check("http://127.0.0.1/hook"); // throws SsrfError
 * ```
 */
export function createUrlChecker(options: SsrfGuardOptions = {}): (url: string | URL) => URL {
  const guard = compile(options);
  return (url) => checkWith(guard, url);
}

function checkWith(guard: CompiledGuard, url: string | URL): URL {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new SsrfError(`Scheme not allowed: ${parsed.protocol}`, { reason: "invalid_scheme" });
  }
  checkHostWith(guard, parsed.hostname);
  return parsed;
}

function checkHostWith(guard: CompiledGuard, hostname: string): void {
  if (!hostname) throw new SsrfError("URL has no host", { reason: "missing_host" });
  if (isHostnameAllowed(guard, hostname)) return;
  const literal = normalizeIp(hostname);
  if (isIP(literal)) {
    if (!isAddressAllowed(guard, literal)) {
      throw new SsrfError(`Destination address is private: ${literal}`, {
        reason: "private_address",
        hostname,
        address: literal,
      });
    }
  } else if (METADATA_HOSTNAMES.includes(normalizeHostname(hostname))) {
    throw new SsrfError(`Destination host is blocked: ${hostname}`, { reason: "blocked_hostname", hostname });
  }
}

/**
 * Returns a check of a bare host (a socket's destination, no URL): a literal private address or a
 * metadata host name is refused unless allowed by `options`, as {@link checkUrl} does for a URL's
 * host. Host names resolving to private addresses are caught at connect time by
 * {@link createGuardedLookup}.
 *
 * @param options - Allow-list settings.
 * @returns A function that throws {@link SsrfError} when the host is refused.
 * @example
 * ```ts
 * const check = createHostChecker({});
 * check("example.com"); // ok
 * check("127.0.0.1"); // throws SsrfError
 * ```
 */
export function createHostChecker(options: SsrfGuardOptions = {}): (hostname: string) => void {
  const guard = compile(options);
  return (hostname) => checkHostWith(guard, hostname);
}

// ---------------------------------------------------------------------------------------------
// Guarded lookup

/** Callback of a single-address {@link GuardedLookup}. */
export type LookupOneCallback = (err: NodeJS.ErrnoException | null, address: string, family: number) => void;
/** Callback of an `all: true` {@link GuardedLookup}. */
export type LookupAllCallback = (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/** A function with the signature of `dns.lookup`, as accepted by the `lookup` option of `net.connect`. */
export interface GuardedLookup {
  (hostname: string, callback: LookupOneCallback): void;
  (hostname: string, family: number, callback: LookupOneCallback): void;
  (hostname: string, options: LookupOptions & { all: true }, callback: LookupAllCallback): void;
  (hostname: string, options: LookupOptions & { all?: false }, callback: LookupOneCallback): void;
  (hostname: string, options: LookupOptions, callback: LookupOneCallback | LookupAllCallback): void;
}

/**
 * Creates a `dns.lookup` replacement that resolves with `node:dns` and fails with an {@link SsrfError}
 * when any resolved address is private and not allowed. Pass it as the `lookup` option of
 * `http.request` / `net.connect` so the check happens on the very addresses that are connected to
 * (no time-of-check/time-of-use gap with DNS rebinding). Supports `{ all: true }`.
 *
 * @param options - Allow-list settings.
 * @returns A lookup function.
 * @example
 * ```ts
 * const lookup = createGuardedLookup({ allowList: ["10.0.0.0/8"] });
 * http.request("http://internal.example/hook", { lookup });
 * ```
 */
export function createGuardedLookup(options: SsrfGuardOptions = {}): GuardedLookup {
  const guard = compile(options);
  function lookup(
    hostname: string,
    optionsOrCallback: number | LookupOptions | LookupOneCallback,
    maybeCallback?: LookupOneCallback | LookupAllCallback,
  ): void {
    let lookupOptions: LookupOptions;
    let callback: LookupOneCallback | LookupAllCallback;
    if (typeof optionsOrCallback === "function") {
      lookupOptions = {};
      callback = optionsOrCallback;
    } else {
      lookupOptions =
        typeof optionsOrCallback === "number" ? { family: optionsOrCallback } : optionsOrCallback;
      callback = maybeCallback!;
    }
    const all = lookupOptions.all === true;
    const fail = (err: NodeJS.ErrnoException) => {
      if (all) (callback as LookupAllCallback)(err, []);
      else (callback as LookupOneCallback)(err, "", 0);
    };
    const hostnameAllowed = isHostnameAllowed(guard, hostname);
    if (!hostnameAllowed && METADATA_HOSTNAMES.includes(normalizeHostname(hostname))) {
      fail(
        new SsrfError(`Destination host is blocked: ${hostname}`, { reason: "blocked_hostname", hostname }),
      );
      return;
    }
    dns.lookup(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) {
        fail(err);
        return;
      }
      if (!hostnameAllowed) {
        const blocked = addresses.find((entry) => !isAddressAllowed(guard, entry.address));
        if (blocked) {
          fail(
            new SsrfError(`Destination ${hostname} resolves to a private address: ${blocked.address}`, {
              reason: "private_address",
              hostname,
              address: blocked.address,
            }),
          );
          return;
        }
      }
      if (all) {
        (callback as LookupAllCallback)(null, addresses);
        return;
      }
      const first = addresses[0];
      if (!first) {
        const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        error.code = "ENOTFOUND";
        fail(error);
        return;
      }
      (callback as LookupOneCallback)(null, first.address, first.family);
    });
  }
  return lookup as GuardedLookup;
}
