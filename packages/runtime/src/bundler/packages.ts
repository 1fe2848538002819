/**
 * Where bare imports come from, as one option: the resolver chain `createHookline` and `pd serve`
 * use (installed packages, then the package cache, then the npm registry).
 */
import { join } from "node:path";
import { cacheResolver, nodeModulesResolver, npmResolver } from "./resolvers.js";
import type { PackageResolver } from "./types.js";

/** The npm registry used when none is named. */
export const DEFAULT_NPM_REGISTRY = "https://registry.npmjs.org";

/** Where bare imports (`import leftPad from "left-pad@^1"`) are resolved from. */
export interface PackagesOptions {
  /**
   * The folder whose `node_modules` is looked in first (default `process.cwd()`); `false` for
   * none.
   */
  root?: string | false;
  /**
   * The package cache: where downloaded packages are unpacked, and looked up before the registry
   * (default `<root>/node_modules/.cache/hookline/packages`, or `.hookline/packages` in the
   * working folder when `root` is false). `pd serve` uses `<data-dir>/packages`.
   */
  cacheDir?: string;
  /** The npm registry's base URL (default {@link DEFAULT_NPM_REGISTRY}), or `false` for none. */
  registry?: string | false;
  /** The fetch for registry requests (default the global one). */
  fetch?: typeof fetch;
}

/**
 * The resolver chain for {@link PackagesOptions}: `node_modules`, then the cache folder, then the
 * npm registry (which downloads into the cache, checking integrity). Without a registry, the
 * cache still serves what was downloaded before (or copied there for offline use).
 *
 * @example
 * ```ts
 * const runtime = createRuntime({
 *   resolvers: packageResolvers({ cacheDir: "/var/lib/hookline/packages" }),
 * });
 * ```
 */
export function packageResolvers(options: PackagesOptions = {}): PackageResolver[] {
  const root = options.root === undefined ? process.cwd() : options.root;
  const cacheDir =
    options.cacheDir ??
    (root === false
      ? join(process.cwd(), ".hookline", "packages")
      : join(root, "node_modules", ".cache", "hookline", "packages"));
  const resolvers: PackageResolver[] = root === false ? [] : [nodeModulesResolver(root)];
  // The npm resolver reads the cache itself (first for ranged imports, as the fallback when the
  // registry cannot be reached), so the plain cache resolver is only needed without a registry.
  if (options.registry === false) resolvers.push(cacheResolver(cacheDir));
  else
    resolvers.push(
      npmResolver({
        cacheDir,
        registry: options.registry ?? DEFAULT_NPM_REGISTRY,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    );
  return resolvers;
}
