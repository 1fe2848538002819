/**
 * The bundler's esbuild plugin: component files live in a virtual namespace; bare imports go
 * through the {@link PackageResolver}s; Node built-ins and the sandbox's built-in modules stay
 * `require()` calls the guest answers. The plugin is set up once per reusable build context and
 * reads the state of the build it serves (files, packages used) from a holder.
 * @internal
 */
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, posix, sep } from "node:path";
import type { StateHolder } from "./_contexts.js";
import { addWords, GOOGLEAPIS_INDEX, trimGoogleApis } from "./_googleapis.js";
import type { ResolutionCache } from "./_resolution-cache.js";
import { parseSpecifier } from "./_specifier.js";
import type { PackageResolver } from "./types.js";

/** Modules the sandbox provides itself; never bundled. */
export const SANDBOX_MODULES = ["@pipedream/platform", "@pipedream/types"] as const;

/** The prefix of a `require()` left for the guest to refuse: a package no resolver has. */
export const MISSING_PREFIX = "hookline-missing:";

const NAMESPACE = "hookline";
export const COMPONENT_DIR = "/component";
/**
 * Where the entry file sits when it comes with sibling files: deep enough that sibling paths
 * climbing up to 8 folders (`../../http.app.mjs`, `../common/base.mjs`) each keep a path of their
 * own instead of meeting at the root.
 */
export const NESTED_DIR = `${COMPONENT_DIR}${"/_".repeat(8)}`;
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

/** The entry point every build names; the plugin answers it with the component's file. */
export const ENTRY = "hookline-entry";

/** What one build hands the plugin. @internal */
export interface BuildState {
  /** The component's files by virtual path. */
  files: Map<string, string>;
  componentDir: string;
  entryPath: string;
  /** The packages bundled in, with the ranges the component's own imports named. */
  packages: Map<string, { version: string; ranges: Set<string>; offline?: string }>;
  /** Relative imports not among the files, as paths relative to the entry's folder. */
  missing: Set<string>;
  /** The version of the package at a root, read once per build. */
  versionOf: (root: string) => string;
  /** Packages that load a native addon (a `.node` file, or through a loader such as `bindings`). */
  native: Set<string>;
}

/** Packages whose only job is to find and load a native addon. */
const NATIVE_LOADERS = new Set([
  "bindings",
  "node-gyp-build",
  "node-pre-gyp",
  "@mapbox/node-pre-gyp",
  "prebuild-install",
]);
/** A prebuilt addon package of napi-rs and similar (`@napi-rs/snappy-linux-x64-gnu`). */
const PLATFORM_ADDON = /-(linux|darwin|win32|android|freebsd)-(x64|arm64|arm|ia32)(-|$)/;

/** The npm package a file of `node_modules` belongs to (the innermost), or undefined. */
export function packageOf(file: string): string | undefined {
  const parts = file.split(/[\\/]node_modules[\\/]/);
  if (parts.length < 2) return undefined;
  const rest = (parts[parts.length - 1] as string).split(/[\\/]/);
  return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
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

/** The plugin of a build context whose builds' state is in `holder`. @internal */
export function hooklinePlugin(
  holder: StateHolder<BuildState>,
  resolvers: PackageResolver[],
  resolutions: ResolutionCache,
): import("esbuild").Plugin {
  const current = (): BuildState => {
    if (!holder.state) throw new Error("a build context ran without a build");
    return holder.state;
  };
  // The words of a build's component files and of the package files importing googleapis: the
  // googleapis APIs it names (_googleapis.ts).
  const googleWords = new WeakMap<BuildState, Set<string>>();
  const wordsOf = (state: BuildState): Set<string> => {
    let words = googleWords.get(state);
    if (!words) {
      words = new Set();
      for (const text of state.files.values()) addWords(text, words);
      googleWords.set(state, words);
    }
    return words;
  };
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
      const { packages } = current();
      const used = packages.get(name) ?? { version: found.version, ranges: new Set<string>() };
      if (!inFile && range) used.ranges.add(range);
      if (found.offline) used.offline = found.offline;
      packages.set(name, used);
      return { path: result.path, namespace: "file" };
    }
    // A package's own `require()` or `import()` of a package nobody has is how Node code asks for
    // an optional dependency (`try { require("supports-color") } catch {}`, redis's
    // `await import("@node-rs/xxhash")`, discord.js's `import("zlib-sync").catch(...)`): as in
    // Node, it fails only when it runs. The component's own imports, and static imports, still
    // fail the bundle.
    if (inFile && (kindOf === "require-call" || kindOf === "dynamic-import"))
      return { path: `${MISSING_PREFIX}${name}`, external: true };
    const where = tried.length > 0 ? tried.join(", ") : "no package resolver is configured";
    const why = reasons.length > 0 ? `: ${reasons.join("; ")}` : "";
    const asked = range || (wanted !== "*" ? wanted : "");
    return {
      errors: [
        { text: `Cannot find package "${name}${asked ? `@${asked}` : ""}" (looked in: ${where})${why}` },
      ],
    };
  };

  return {
    name: "hookline",
    setup(b) {
      // A native addon (`.node`) cannot run in the sandbox: packages load it in a try block
      // (ssh2's optional crypto binding), so it fails when required, as a missing module. The
      // package is remembered: a load that then fails is `native_module_unsupported` (_load.ts).
      b.onResolve({ filter: /\.node$/ }, (args) => {
        if (args.namespace === NAMESPACE) return undefined;
        const owner = packageOf(args.importer);
        if (owner) current().native.add(owner);
        return { path: `${MISSING_PREFIX}${args.path}`, external: true };
      });
      const onResolve = async (
        args: import("esbuild").OnResolveArgs,
      ): Promise<import("esbuild").OnResolveResult | undefined> => {
        if (args.pluginData?.native) return undefined;
        const { files, componentDir, entryPath, missing, versionOf } = current();
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
        const wanted = parseSpecifier(spec).name;
        if (wanted === "googleapis" && existsSync(args.importer))
          addWords(readFileSync(args.importer, "utf8"), wordsOf(current()));
        if (NATIVE_LOADERS.has(wanted) || PLATFORM_ADDON.test(wanted)) {
          const owner = packageOf(args.importer);
          if (owner) current().native.add(owner);
        }
        // A package importing its own dependency: node resolution first (remembered across
        // builds while the package's version stays), then the resolvers.
        const known = resolutions.get(args.resolveDir, spec, args.kind, versionOf);
        if (known) return known;
        const native = await b.resolve(spec, {
          resolveDir: args.resolveDir,
          kind: args.kind,
          importer: args.importer,
          pluginData: { native: true },
        });
        if (native.errors.length === 0) {
          resolutions.set(args.resolveDir, spec, args.kind, native, versionOf);
          return { path: native.path, namespace: native.namespace };
        }
        return resolveBare(spec, args.importer, args.kind, b.resolve, true);
      };
      // Every import of a component file; of package files, only bare ones (relative ones are
      // esbuild's own business, and asking this plugin would cost a round trip each).
      b.onResolve({ filter: /.*/, namespace: NAMESPACE }, onResolve);
      b.onResolve({ filter: /^[^./]/ }, onResolve);
      b.onLoad({ filter: GOOGLEAPIS_INDEX, namespace: "file" }, (args) => ({
        contents: trimGoogleApis(
          readFileSync(args.path, "utf8"),
          /[\\/]apis[\\/]index\.js$/.test(args.path),
          wordsOf(current()),
        ),
        loader: "js",
      }));
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: current().files.get(args.path) ?? "",
        loader: loaderFor(args.path),
      }));
    },
  };
}
