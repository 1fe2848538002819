/**
 * The esbuild bundler: the native `esbuild` package when it is installed (about 10x faster warm,
 * 40x cold), else `esbuild-wasm`, behind one {@link Bundler} interface. Component files live in a
 * virtual namespace; bare imports go through the {@link PackageResolver}s; Node built-ins and the
 * sandbox's built-in modules stay `require()` calls the guest answers.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, posix, sep } from "node:path";
import { formatCodeFrame } from "@hookline/core";
import { LRUCache } from "lru-cache";
import type { LoadInput } from "../types.js";
import { parseSpecifier } from "./_semver.js";
import type { BundleOutput, Bundler, PackageResolver } from "./types.js";

/** `import`/`export` statements at the start of a line: the entry is an ES module. */
const ESM_SYNTAX = /^\s*(?:import\s*[\w{*"'$]|export\s)/m;

/** Modules the sandbox provides itself; never bundled. */
export const SANDBOX_MODULES = ["@pipedream/platform", "@pipedream/types"] as const;

/** The prefix of a `require()` left for the guest to refuse: a package no resolver has. */
export const MISSING_PREFIX = "hookline-missing:";

const NAMESPACE = "hookline";
const COMPONENT_DIR = "/component";
/**
 * Where the entry file sits when it comes with sibling files: deep enough that sibling paths
 * climbing up to 8 folders (`../../http.app.mjs`, `../common/base.mjs`) each keep a path of their
 * own instead of meeting at the root.
 */
const NESTED_DIR = `${COMPONENT_DIR}${"/_".repeat(8)}`;
const EXTENSIONS = [
  "",
  ".mjs",
  ".js",
  ".ts",
  ".cjs",
  ".mts",
  ".cts",
  ".json",
  "/index.mjs",
  "/index.js",
  "/index.ts",
];
const BUILTINS = new Set(builtinModules);

type Esbuild = typeof import("esbuild");

/** Options of {@link createBundler}. */
export interface BundlerOptions {
  /** `auto` (default): native esbuild when installed, else esbuild-wasm. */
  engine?: "auto" | "native" | "wasm";
  /** Where bare imports are looked up, in order. */
  resolvers?: PackageResolver[];
  /** How many bundles to keep, keyed by the hash of their input (default 200). */
  cacheSize?: number;
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

function loaderFor(path: string): "js" | "ts" | "json" {
  if (/\.[mc]?ts$/.test(path)) return "ts";
  if (path.endsWith(".json")) return "json";
  return "js";
}

/** The `<root>` whose `node_modules/<name>` is `dir`. */
function rootOf(dir: string, name: string): string {
  const suffix = join("node_modules", ...name.split("/"));
  return dir.endsWith(suffix) ? dir.slice(0, dir.length - suffix.length - 1) || sep : dirname(dir);
}

/** The range an importing package declares for a dependency (`*` when it declares none). */
function declaredRange(importer: string, name: string): string {
  let dir = dirname(importer);
  for (let i = 0; i < 20; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, "utf8")) as Record<
          string,
          Record<string, string> | undefined
        >;
        const range =
          pkg.dependencies?.[name] ?? pkg.peerDependencies?.[name] ?? pkg.optionalDependencies?.[name];
        if (range !== undefined || pkg.name !== undefined) return range ?? "*";
      } catch {
        return "*";
      }
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return "*";
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

  async function build(input: LoadInput): Promise<BundleOutput> {
    const entryName = posix.basename(input.filename.replace(/\\/g, "/")) || "component.mjs";
    const files = new Map<string, string>();
    const componentDir = Object.keys(input.files ?? {}).length > 0 ? NESTED_DIR : COMPONENT_DIR;
    const entryPath = posix.join(componentDir, entryName);
    files.set(entryPath, input.code);
    for (const [relative, code] of Object.entries(input.files ?? {})) {
      files.set(posix.resolve(componentDir, relative.replace(/\\/g, "/")), code);
    }
    const packages = new Map<string, { version: string; ranges: Set<string> }>();
    /** Relative imports not among the files, as paths relative to the entry's folder. */
    const missing = new Set<string>();

    const resolveBare = async (
      spec: string,
      importer: string,
      kindOf: import("esbuild").ImportKind,
      resolveWith: import("esbuild").PluginBuild["resolve"],
      inFile: boolean,
    ): Promise<import("esbuild").OnResolveResult> => {
      const { name, range, subpath } = parseSpecifier(spec);
      const wanted = range || (inFile ? declaredRange(importer, name) : "*");
      const tried: string[] = [];
      const reasons: string[] = [];
      for (const resolver of resolvers) {
        tried.push(resolver.name);
        let found: Awaited<ReturnType<PackageResolver["resolve"]>>;
        try {
          found = await resolver.resolve(name, wanted);
        } catch (error) {
          // The next resolver may still have it; the reason goes in the error if none does.
          reasons.push(`${resolver.name}: ${error instanceof Error ? error.message : String(error)}`);
          continue;
        }
        if (!found) continue;
        const result = await resolveWith(subpath ? `${name}/${subpath}` : name, {
          resolveDir: rootOf(found.dir, name),
          kind: kindOf,
          pluginData: { native: true },
        });
        if (result.errors.length > 0) {
          return { errors: result.errors.map((e) => ({ text: e.text })) };
        }
        // The ranges a component file's own imports name (`pkg@^1.2`), kept to tell actions' pins.
        const used = packages.get(name) ?? { version: found.version, ranges: new Set<string>() };
        if (!inFile && range) used.ranges.add(range);
        packages.set(name, used);
        return { path: result.path, namespace: "file" };
      }
      // A package's own `require()` of a package nobody has is how Node code asks for an optional
      // dependency (`try { require("supports-color") } catch {}`): as in Node, it fails only when
      // it runs. The component's own imports, and static imports, still fail the bundle.
      if (inFile && kindOf === "require-call") return { path: `${MISSING_PREFIX}${name}`, external: true };
      const where = tried.length > 0 ? tried.join(", ") : "no package resolver is configured";
      const why = reasons.length > 0 ? `: ${reasons.join("; ")}` : "";
      const asked = range || (wanted !== "*" ? wanted : "");
      return {
        errors: [
          { text: `Cannot find package "${name}${asked ? `@${asked}` : ""}" (looked in: ${where})${why}` },
        ],
      };
    };

    const plugin: import("esbuild").Plugin = {
      name: "hookline",
      setup(b) {
        // A native addon (`.node`) cannot run in the sandbox: packages load it in a try block
        // (ssh2's optional crypto binding), so it fails when required, as a missing module.
        b.onResolve({ filter: /\.node$/ }, (args) =>
          args.namespace === NAMESPACE
            ? undefined
            : { path: `${MISSING_PREFIX}${args.path}`, external: true },
        );
        b.onResolve({ filter: /.*/ }, async (args) => {
          if (args.pluginData?.native) return undefined;
          if (args.kind === "entry-point") return { path: entryPath, namespace: NAMESPACE };
          const spec = args.path;
          const bare = !spec.startsWith(".") && !spec.startsWith("/");
          if (bare) {
            const { name } = parseSpecifier(spec);
            const builtin = spec.startsWith("node:") || BUILTINS.has(name);
            if (builtin || (SANDBOX_MODULES as readonly string[]).includes(name)) {
              return { path: builtin ? spec : name, external: true };
            }
          }
          if (args.namespace === NAMESPACE) {
            if (bare) return resolveBare(spec, args.importer, args.kind, b.resolve, false);
            const base = posix.resolve(posix.dirname(args.importer), spec);
            for (const ext of EXTENSIONS) {
              if (files.has(base + ext)) return { path: base + ext, namespace: NAMESPACE };
            }
            missing.add(posix.relative(componentDir, base));
            return {
              errors: [
                {
                  text: `Cannot find "${spec}" imported from ${posix.relative(componentDir, args.importer)}: pass it in "files"`,
                },
              ],
            };
          }
          if (!bare) return undefined;
          // A package importing its own dependency: node resolution first, then the resolvers.
          const native = await b.resolve(spec, {
            resolveDir: args.resolveDir,
            kind: args.kind,
            importer: args.importer,
            pluginData: { native: true },
          });
          if (native.errors.length === 0) return { path: native.path, namespace: native.namespace };
          return resolveBare(spec, args.importer, args.kind, b.resolve, true);
        });
        b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
          contents: files.get(args.path) ?? "",
          loader: loaderFor(args.path),
        }));
      },
    };

    // An ES module component runs in strict mode, as it does on Pipedream (ES modules are strict):
    // writing to a frozen object such as `$auth` throws instead of doing nothing. The CommonJS
    // output format would otherwise drop that. `.cjs` and CommonJS `.js` files stay sloppy.
    const esm =
      /\.(mjs|mts|ts)$/.test(entryName) || (!entryName.endsWith(".cjs") && ESM_SYNTAX.test(input.code));
    let result: import("esbuild").BuildResult & { outputFiles: import("esbuild").OutputFile[] };
    try {
      result = await esbuild.build({
        entryPoints: [entryName],
        bundle: true,
        write: false,
        format: "cjs",
        platform: "node",
        target: "es2022",
        sourcemap: "inline",
        sourcesContent: false,
        legalComments: "none",
        logLevel: "silent",
        define: { "process.env.NODE_ENV": '"production"' },
        ...(esm ? { banner: { js: '"use strict";' } } : {}),
        plugins: [plugin],
      });
    } catch (error) {
      throw bundleError(entryName, error, componentDir, [...missing].sort());
    }
    const code = result.outputFiles[0]?.text ?? "";
    return {
      code,
      hash: createHash("sha256").update(code).digest("hex"),
      packages: [...packages].map(([name, { version, ranges }]) =>
        ranges.size > 0 ? { name, version, range: [...ranges].sort().join(", ") } : { name, version },
      ),
      warnings: result.warnings.map((w) => w.text),
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
    },
  };
}
