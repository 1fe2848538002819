/**
 * The esbuild bundler: the native `esbuild` package when it is installed (about 10x faster warm,
 * 40x cold), else `esbuild-wasm`, behind one {@link Bundler} interface. Component files live in a
 * virtual namespace; bare imports go through the {@link PackageResolver}s; Node built-ins and the
 * sandbox's built-in modules stay `require()` calls the guest answers (see `_plugin.ts`). Builds
 * run on reused esbuild contexts, which keep the parsed npm packages of the previous build, and
 * where a package's own imports resolved is remembered across builds (`_resolution-cache.ts`).
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { formatCodeFrame } from "@hookline/core";
import { LRUCache } from "lru-cache";
import type { LoadInput } from "../types.js";
import { ContextPool, type StateHolder } from "./_contexts.js";
import { type BuildState, COMPONENT_DIR, ENTRY, hooklinePlugin, NESTED_DIR } from "./_plugin.js";
import { ResolutionCache } from "./_resolution-cache.js";
import { declareGlobals, sloppyGlobals } from "./_sloppy-globals.js";
import type { BundleOutput, Bundler, PackageResolver } from "./types.js";

export { MISSING_PREFIX, SANDBOX_MODULES } from "./_plugin.js";

/** `import`/`export` statements at the start of a line: the entry is an ES module. */
const ESM_SYNTAX = /^\s*(?:import\s*[\w{*"'$]|export\s)/m;

type Esbuild = typeof import("esbuild");

/** The first line of an ES module component's bundle. */
const STRICT_BANNER = '"use strict";';

/** Options of {@link createBundler}. */
export interface BundlerOptions {
  /** `auto` (default): native esbuild when installed, else esbuild-wasm. */
  engine?: "auto" | "native" | "wasm";
  /** Where bare imports are looked up, in order. */
  resolvers?: PackageResolver[];
  /** How many bundles to keep, keyed by the hash of their input (default 200). */
  cacheSize?: number;
  /**
   * How many esbuild build contexts are kept for reuse (default 2; 0 builds each bundle from
   * scratch). A context keeps the parsed files of its last build, so the next bundle that shares
   * its npm packages re-parses only the component. An idle context is disposed after 2 s (until
   * then it keeps the process alive, so a program that does not call `close` exits that much later).
   */
  contexts?: number;
}

/** An error of the bundler, with a stable `code` (`bundle_failed`, `module_not_found`). */
export class BundleError extends Error {
  constructor(
    readonly code: "bundle_failed" | "module_not_found",
    message: string,
    readonly errors: string[] = [],
    /** Relative imports that were not among the files given (paths relative to the entry's folder). */
    readonly missingFiles: string[] = [],
  ) {
    super(message);
    this.name = "BundleError";
  }
}

/** A file of the build as the author knows it: relative to the component's folder. */
function shownPath(componentDir: string, file: string): string {
  const path = file.replace(/^hookline:/, "");
  return path.startsWith("/") ? posix.relative(componentDir, path) : path;
}

/**
 * A failed build as a {@link BundleError}: the first error at its place (`file:line:column`, the
 * line and a caret), each distinct error once; a missing file or package is `module_not_found`.
 */
function bundleError(
  entryName: string,
  error: unknown,
  componentDir: string,
  missingFiles: string[] = [],
): BundleError {
  const messages = (error as { errors?: import("esbuild").Message[] }).errors ?? [];
  const formatted = [
    ...new Set(
      messages.map((m) =>
        formatCodeFrame(
          m.text,
          m.location && { ...m.location, file: shownPath(componentDir, m.location.file) },
        ),
      ),
    ),
  ];
  const first = formatted[0];
  if (first === undefined)
    return new BundleError("bundle_failed", `Bundling ${entryName} failed: ${error}`, [], missingFiles);
  const missing = messages.find((m) => m.text.startsWith("Cannot find"));
  const more = formatted.length > 1 ? `\n(and ${formatted.length - 1} more)` : "";
  return new BundleError(
    missing ? "module_not_found" : "bundle_failed",
    missing ? missing.text : `${first}${more}`,
    formatted.map((f) => f.split("\n")[0] as string),
    missingFiles,
  );
}

async function loadEsbuild(
  engine: "auto" | "native" | "wasm",
): Promise<{ esbuild: Esbuild; kind: "native" | "wasm" }> {
  if (engine !== "wasm") {
    try {
      const esbuild = (await import("esbuild")) as Esbuild;
      // The package can be present without its platform binary: building nothing tells.
      await esbuild.transform("", {});
      return { esbuild, kind: "native" };
    } catch (error) {
      if (engine === "native") throw error;
    }
  }
  const wasm = (await import("esbuild-wasm")) as unknown as Esbuild;
  return { esbuild: wasm, kind: "wasm" };
}

/**
 * Creates a bundler. The esbuild service stays alive until {@link Bundler.close}.
 *
 * @example
 * ```ts
 * const bundler = await createBundler({ resolvers: [nodeModulesResolver(process.cwd())] });
 * const { code } = await bundler.bundle({ code: "export default { name: 'x', version: '1', run() {} }", filename: "x.mjs" });
 * ```
 */
export async function createBundler(options: BundlerOptions = {}): Promise<Bundler> {
  const { esbuild, kind } = await loadEsbuild(options.engine ?? "auto");
  const resolvers = options.resolvers ?? [];
  const cache = new LRUCache<string, BundleOutput>({ max: options.cacheSize ?? 200 });

  const resolutions = new ResolutionCache();

  /** The build options of one variant (`esm`: with the strict-mode banner); state comes per build. */
  const optionsFor = (variant: string, holder: StateHolder<BuildState>): import("esbuild").BuildOptions => ({
    entryPoints: [ENTRY],
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "es2022",
    sourcemap: "inline",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "silent",
    define: { "process.env.NODE_ENV": '"production"' },
    // `await import("node:stream")` or a lazily imported dependency: a require() in a promise, as
    // QuickJS has no module loader behind the bundle.
    supported: { "dynamic-import": false },
    // An ES module component runs in strict mode, as it does on Pipedream (ES modules are strict):
    // writing to a frozen object such as `$auth` throws instead of doing nothing. The CommonJS
    // output format would otherwise drop that. `.cjs` and CommonJS `.js` files stay sloppy.
    // The CommonJS packages bundled with it keep what sloppy mode gives them (_sloppy-globals.ts),
    // which the metafile's inputs tell.
    ...(variant === "esm" ? { banner: { js: STRICT_BANNER }, metafile: true } : {}),
    plugins: [hooklinePlugin(holder, resolvers, resolutions)],
  });
  const contexts = new ContextPool<BuildState>(esbuild, optionsFor, options.contexts ?? 2);

  async function build(input: LoadInput): Promise<BundleOutput> {
    const entryName = posix.basename(input.filename.replace(/\\/g, "/")) || "component.mjs";
    const files = new Map<string, string>();
    // With `files` (even none yet: a caller gathering them from `missingFiles`), the entry sits deep
    // enough that `../../app.mjs` is reported as such rather than clamped at the root.
    const componentDir = input.files !== undefined ? NESTED_DIR : COMPONENT_DIR;
    const entryPath = posix.join(componentDir, entryName);
    files.set(entryPath, input.code);
    for (const [relative, code] of Object.entries(input.files ?? {})) {
      files.set(posix.resolve(componentDir, relative.replace(/\\/g, "/")), code);
    }
    const state: BuildState = {
      files,
      componentDir,
      entryPath,
      packages: new Map(),
      native: new Set(),
      missing: new Set(),
      versionOf: ResolutionCache.versions(),
    };
    const esm =
      /\.(mjs|mts|ts)$/.test(entryName) || (!entryName.endsWith(".cjs") && ESM_SYNTAX.test(input.code));
    let result: Awaited<ReturnType<ContextPool<BuildState>["build"]>>;
    try {
      result = await contexts.build(esm ? "esm" : "cjs", state);
    } catch (error) {
      throw bundleError(entryName, error, componentDir, [...state.missing].sort());
    }
    let code = result.outputFiles[0]?.text ?? "";
    if (esm && result.metafile && code.startsWith(STRICT_BANNER)) {
      const globals = declareGlobals(await sloppyGlobals(result.metafile.inputs, process.cwd()));
      code = `${STRICT_BANNER}${globals}${code.slice(STRICT_BANNER.length)}`;
    }
    return {
      code,
      hash: createHash("sha256").update(code).digest("hex"),
      packages: [...state.packages].map(([name, { version, ranges, offline }]) => ({
        name,
        version,
        ...(ranges.size > 0 ? { range: [...ranges].sort().join(", ") } : {}),
        ...(offline ? { offline } : {}),
      })),
      warnings: result.warnings.map((w) => w.text),
      ...(state.native.size > 0 ? { native: [...state.native].sort() } : {}),
    };
  }

  return {
    engine: kind,
    async bundle(input) {
      const key = createHash("sha256")
        .update(JSON.stringify([input.filename, input.code, Object.entries(input.files ?? {}).sort()]))
        .digest("hex");
      const hit = cache.get(key);
      if (hit) return hit;
      const out = await build(input);
      cache.set(key, out);
      return out;
    },
    async close() {
      // The esbuild service is shared by the process and unref'd when idle: leave it running.
      cache.clear();
      resolutions.clear();
      await contexts.close();
    },
  };
}
