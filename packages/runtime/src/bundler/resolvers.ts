/**
 * The three package resolvers that ship with the runtime: a `node_modules` folder, a local cache
 * folder, and the npm registry (which downloads into the cache, checking the tarball's integrity).
 * Each returns the package's folder, always shaped `<root>/node_modules/<name>` so the bundler can
 * resolve the package's entry points and subpaths from `<root>`.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isLatest, isRange, maxSatisfying, satisfies } from "./_specifier.js";
import { extractTarball } from "./_tar.js";

const semverValid = (range: string) =>
  /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(range.trim());

import type { PackageResolver } from "./types.js";

function readVersion(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * Finds packages in `<root>/node_modules` (the installing project's own dependencies).
 *
 * @example
 * ```ts
 * const runtime = createRuntime({ resolvers: [nodeModulesResolver(process.cwd())] });
 * ```
 */
export function nodeModulesResolver(root: string): PackageResolver {
  return {
    name: "node_modules",
    async resolve(name, range) {
      const dir = join(root, "node_modules", name);
      const version = readVersion(dir);
      if (version === undefined || !satisfies(version, range)) return undefined;
      return { dir, version };
    },
  };
}

/** The cache layout: `<cacheDir>/<name with / as +>@<version>/node_modules/<name>`. */
function cacheEntry(cacheDir: string, name: string, version: string): { root: string; dir: string } {
  const root = join(cacheDir, `${name.replace("/", "+")}@${version}`);
  return { root, dir: join(root, "node_modules", name) };
}

/**
 * Finds packages previously downloaded into a cache folder (by {@link npmResolver}, or copied
 * there by an operator for offline use), picking the highest version that satisfies the range.
 *
 * @example
 * ```ts
 * const runtime = createRuntime({ resolvers: [cacheResolver("/var/cache/hookline/packages")] });
 * ```
 */
export function cacheResolver(cacheDir: string): PackageResolver {
  return {
    name: "cache",
    async resolve(name, range) {
      if (!existsSync(cacheDir)) return undefined;
      const prefix = `${name.replace("/", "+")}@`;
      const versions = readdirSync(cacheDir)
        .filter((entry) => entry.startsWith(prefix))
        .map((entry) => entry.slice(prefix.length))
        .filter((version) => existsSync(join(cacheEntry(cacheDir, name, version).dir, "package.json")));
      const version = maxSatisfying(versions, range);
      return version === undefined ? undefined : { dir: cacheEntry(cacheDir, name, version).dir, version };
    },
  };
}

/** Options of {@link npmResolver}. */
export interface NpmResolverOptions {
  /** Where tarballs are unpacked (the same folder a {@link cacheResolver} reads). */
  cacheDir: string;
  /** Registry base URL (default `https://registry.npmjs.org`). */
  registry?: string;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /**
   * How long the registry's list of versions of a package is reused, ms (default 5 minutes): an
   * import without a range takes the `latest` the registry named at most that long ago.
   */
  packumentTtlMs?: number;
  /** Deadline of each registry request, ms (default 30,000). */
  timeoutMs?: number;
}

interface Packument {
  "dist-tags"?: Record<string, string>;
  versions?: Record<string, { dist?: { tarball?: string; integrity?: string; shasum?: string } }>;
}

/** Checks a Subresource Integrity string (`sha512-...`) or a legacy sha1 hex shasum. */
function checkIntegrity(data: Uint8Array, integrity: string | undefined, shasum: string | undefined): void {
  if (integrity) {
    const ok = integrity.split(/\s+/).some((entry) => {
      const dash = entry.indexOf("-");
      const algorithm = entry.slice(0, dash);
      if (!["sha512", "sha384", "sha256", "sha1"].includes(algorithm)) return false;
      return createHash(algorithm).update(data).digest("base64") === entry.slice(dash + 1);
    });
    if (!ok) throw new Error("tarball integrity check failed");
    return;
  }
  if (shasum && createHash("sha1").update(data).digest("hex") !== shasum)
    throw new Error("tarball shasum check failed");
  if (!shasum) throw new Error("the registry gave no integrity for this tarball");
}

/** The registry could not be asked (network error, timeout, 5xx): the cache may still serve. */
class RegistryUnreachable extends Error {}

/**
 * Downloads packages from an npm registry into `cacheDir`. Every import but an exact version asks
 * the registry (its list of versions is reused for `packumentTtlMs`), as SPEC's "resolved to their
 * latest versions at deploy time" says: a range (`pkg@^1.2`) takes the highest published version
 * in it, a dist-tag (`pkg@next`) its version, no version the `latest` tag. A cached copy of that
 * version is used, else its tarball is downloaded, its integrity checked before anything is
 * unpacked, and it lands where a {@link cacheResolver} finds it. Only when the registry cannot be
 * reached does the highest cached version that satisfies the import serve it, and the result's
 * `offline` says so (the bundler turns it into a `package_from_cache` warning).
 * Failures throw errors naming the package, the range and the reason.
 *
 * @example
 * ```ts
 * const runtime = createRuntime({
 *   resolvers: [nodeModulesResolver(process.cwd()), npmResolver({ cacheDir: dir })],
 * });
 * ```
 */
export function npmResolver(options: NpmResolverOptions): PackageResolver {
  const registry = (options.registry ?? "https://registry.npmjs.org").replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const ttl = options.packumentTtlMs ?? 5 * 60_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const cache = cacheResolver(options.cacheDir);
  const packuments = new Map<string, { at: number; packument: Promise<Packument | undefined> }>();
  const downloads = new Map<string, Promise<{ dir: string; version: string }>>();

  async function request(url: string, accept?: string): Promise<Response> {
    try {
      return await doFetch(url, {
        signal: AbortSignal.timeout(timeoutMs),
        ...(accept ? { headers: { accept } } : {}),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new RegistryUnreachable(
        `${registry} could not be reached (${cause ?? (error as Error).message})`,
      );
    }
  }

  async function fetchPackument(name: string): Promise<Packument | undefined> {
    const res = await request(
      `${registry}/${name.replace("/", "%2F")}`,
      "application/vnd.npm.install-v1+json, application/json",
    );
    if (res.status === 404) return undefined;
    if (res.status >= 500) throw new RegistryUnreachable(`${registry} answered ${res.status}`);
    if (!res.ok) throw new Error(`the npm registry ${registry} answered ${res.status}`);
    return (await res.json()) as Packument;
  }

  /** The packument, asked at most once per `ttl` (failures are not remembered). */
  function packumentOf(name: string): Promise<Packument | undefined> {
    const memo = packuments.get(name);
    if (memo && Date.now() - memo.at < ttl) return memo.packument;
    const packument = fetchPackument(name);
    packuments.set(name, { at: Date.now(), packument });
    packument.catch(() => packuments.delete(name));
    return packument;
  }

  async function download(name: string, version: string, packument: Packument) {
    const dist = packument.versions?.[version]?.dist;
    if (!dist?.tarball) throw new Error(`the registry has no tarball for ${name}@${version}`);
    const tarball = await request(dist.tarball);
    if (!tarball.ok) throw new Error(`downloading ${name}@${version} failed with status ${tarball.status}`);
    const data = new Uint8Array(await tarball.arrayBuffer());
    checkIntegrity(data, dist.integrity, dist.shasum);
    const entry = cacheEntry(options.cacheDir, name, version);
    // Unpack beside the final folder and rename, so a crash never leaves half a package.
    const staging = `${entry.root}.tmp-${process.pid}-${Date.now()}`;
    const stagingDir = join(staging, "node_modules", name);
    mkdirSync(stagingDir, { recursive: true });
    try {
      extractTarball(data, stagingDir);
      try {
        renameSync(staging, entry.root);
      } catch (error) {
        // Another process unpacked the same version first: theirs is as good as ours.
        if (!existsSync(join(entry.dir, "package.json"))) throw error;
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    return { dir: entry.dir, version };
  }

  return {
    name: "npm",
    async resolve(name, range) {
      // An exact version never changes once published (and its integrity was checked).
      if (semverValid(range)) {
        const cached = await cache.resolve(name, range);
        if (cached) return cached;
      }
      let packument: Packument | undefined;
      try {
        packument = await packumentOf(name);
      } catch (error) {
        if (!(error instanceof RegistryUnreachable)) throw error;
        // Offline: the highest cached version that satisfies the import, and the result says so.
        const cached = isRange(range) ? await cache.resolve(name, isLatest(range) ? "*" : range) : undefined;
        if (cached) return { ...cached, offline: `the npm registry ${error.message}` };
        throw new Error(`the npm registry ${error.message}, and the package cache has no version of it`);
      }
      if (packument === undefined) return undefined;
      const tags = packument["dist-tags"] ?? {};
      const latest = tags.latest;
      // `latest` (or no version), another dist-tag (`next`), or a range over the published versions.
      const tagged = isLatest(range) ? latest : isRange(range) ? undefined : tags[range];
      const version =
        tagged ?? (isRange(range) ? maxSatisfying(Object.keys(packument.versions ?? {}), range) : undefined);
      if (version === undefined)
        throw new Error(
          isRange(range)
            ? `the npm registry has no version that matches${latest ? ` (latest is ${latest})` : ""}`
            : `"${range}" is neither a version range nor a dist-tag of the package (its tags: ${Object.keys(tags).join(", ") || "none"})`,
        );
      const entry = cacheEntry(options.cacheDir, name, version);
      if (existsSync(join(entry.dir, "package.json"))) return { dir: entry.dir, version };
      // Deploys that need the same version at once share one download.
      const key = `${name}@${version}`;
      let pending = downloads.get(key);
      if (!pending) {
        pending = download(name, version, packument).finally(() => downloads.delete(key));
        downloads.set(key, pending);
      }
      return pending;
    },
  };
}
