/**
 * The bundler contract between the sandbox and the esbuild-based bundler.
 *
 * A bundle is one CommonJS script (esbuild `format: "cjs"`, `platform: "neutral"`) with an inline
 * source map. The sandbox evaluates it as the body of `function (module, exports, require)` and
 * takes `module.exports.default ?? module.exports` as the component definition. Bare imports of
 * npm packages are resolved (through a {@link PackageResolver}) and bundled in; Node built-ins
 * (`crypto`, `node:fs`...) and the built-in modules listed in `externals` stay as `require()`
 * calls that the sandbox answers (or refuses with an error naming the module).
 */
import type { LoadInput } from "../types.js";

/** Where a bare import (`pkg`, `pkg@^1.2`, `@scope/pkg@1.2.3/sub/path`) is found on disk. */
export interface PackageResolver {
  /** A name for logs and errors (`node_modules`, `cache`, `npm`). */
  readonly name: string;
  /**
   * Returns the folder holding the package (its `package.json`) for a version that satisfies
   * `range` (`*` or `latest` when the import named none), or undefined when this resolver
   * does not have it.
   */
  resolve(name: string, range: string): Promise<ResolvedPackage | undefined>;
}

/** A package a {@link PackageResolver} found. */
export interface ResolvedPackage {
  dir: string;
  version: string;
  /** Why a cached version was used without asking the registry (it could not be reached). */
  offline?: string;
}

/** What the bundler produced. */
export interface BundleOutput {
  /** The CommonJS script, with an inline source map comment at its end. */
  code: string;
  /** sha256 hex of `code`. */
  hash: string;
  /**
   * The packages bundled in, with the versions used, and the range(s) the component's own
   * imports named (comma-separated) (`import x from "pkg@^1.2"`), if any.
   */
  packages: { name: string; version: string; range?: string; offline?: string }[];
  warnings: string[];
  /**
   * Packages bundled in that load a native addon (`.node`, or through `bindings`,
   * `node-gyp-build`...), which cannot run in the sandbox: a load that fails with one is
   * `native_module_unsupported`.
   */
  native?: string[];
}

/** Bundles component source into one sandbox-ready script. */
export interface Bundler {
  /** `native` (the esbuild package) or `wasm` (esbuild-wasm). */
  readonly engine: "native" | "wasm";
  /** Bundles one component with its sibling files (cached by the hash of the input). */
  bundle(input: LoadInput): Promise<BundleOutput>;
  /** Releases the cache. */
  close(): Promise<void>;
}
