/**
 * Runs Hookline and Pipedream components in QuickJS sandboxes: bundling (esbuild, native or
 * wasm), package resolvers, host bridges, shims, and time and memory limits. Knows nothing of
 * storage or HTTP: everything outside the sandbox goes through the bridges the caller passes.
 * @packageDocumentation
 */
export {
  BundleError,
  type BundlerOptions,
  createBundler,
  SANDBOX_MODULES,
} from "./bundler/esbuild-bundler.js";
export { DEFAULT_NPM_REGISTRY, type PackagesOptions, packageResolvers } from "./bundler/packages.js";
export {
  cacheResolver,
  type NpmResolverOptions,
  nodeModulesResolver,
  npmResolver,
} from "./bundler/resolvers.js";
export type { BundleOutput, Bundler, PackageResolver, ResolvedPackage } from "./bundler/types.js";
export type { PoolOptions, RuntimeOptions } from "./options.js";
export type { PoolRuntime, PoolStats } from "./pool/pool-runtime.js";
export { createRuntime } from "./runtime.js";
export { DEFAULT_LIMITS } from "./sandbox/sandbox.js";
export * from "./types.js";
