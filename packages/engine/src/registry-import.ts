/**
 * Importing an npm package's components into the registry from the server (`POST
 * /v1/components/registry/import`, the web application's "Import from npm"), as `pd registry
 * import` does from a client: the package is found through the server's package resolvers
 * (node_modules, the package cache, the npm registry), each component file of Pipedream's layout
 * (`sources/<name>/<name>.mjs`, `actions/<name>/<name>.mjs`) is loaded with the relative files it
 * imports (read from the package, never outside it), its bare imports given the ranges the package
 * declares, and published under its own key and version.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { HooklineError } from "@hookline/core";
import { type PackagesOptions, packageResolvers } from "@hookline/runtime";
import type { Visibility } from "@hookline/store";
import { DEFAULT_CODE_URL_LIMITS, gatherFiles } from "./code-url.js";
import type { CodeInput } from "./types.js";
import type { ComponentView } from "./views.js";

/** What became of one component file of an imported package. */
export interface ImportedComponent {
  /** The file, relative to the package root (`actions/send-message/send-message.mjs`). */
  file: string;
  /** `published`, `exists` (that key and version were published before), or `failed`. */
  status: "published" | "exists" | "failed";
  key?: string;
  version?: string;
  id?: string;
  /** Why it failed: the error's code and message. */
  error?: { code: string; message: string };
}

/** What {@link RegistryApi.importPackage} did. */
export interface PackageImport {
  /** The package's name and the version found. */
  name: string;
  version: string;
  components: ImportedComponent[];
}

/** What importing needs of the registry. @internal */
export interface ImportContext {
  packages: PackagesOptions;
  load(input: CodeInput & { filename: string }): Promise<unknown>;
  publish(input: { code: CodeInput; visibility: Visibility }): Promise<ComponentView>;
}

const COMPONENT_EXTENSIONS = [".mjs", ".js", ".ts", ".cjs"];

/** Modules the server provides itself: never given a range. */
const PROVIDED = new Set(["@pipedream/platform", "@pipedream/types"]);

/** Codes that mean "already in the registry". */
const ALREADY = new Set(["component_version_exists", "registry_key_taken"]);

/**
 * Splits `@scope/name@^1.2` into name and range (`latest` when none); 400 `bad_request` when it is
 * not an npm package name.
 *
 * @example
 * ```ts
 * parsePackageSpec("@pipedream/slack@^1"); // { name: "@pipedream/slack", range: "^1" }
 * ```
 */
export function parsePackageSpec(spec: string): { name: string; range: string } {
  const at = typeof spec === "string" ? spec.lastIndexOf("@") : -1;
  const name = at > 0 ? spec.slice(0, at) : spec;
  const range = at > 0 ? spec.slice(at + 1) : "latest";
  if (typeof name !== "string" || !/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name))
    throw new HooklineError(
      "bad_request",
      `"${spec}" is not an npm package name (such as @pipedream/slack)`,
      {
        problems: [{ code: "invalid_value", path: "package", message: "not an npm package name" }],
      },
    );
  return { name, range: range || "latest" };
}

/**
 * The component files of a package in Pipedream's layout: `sources/<name>/<name>.mjs` and
 * `actions/<name>/<name>.mjs` (a file named after its folder; `common/` helpers and test events
 * are not components).
 *
 * @example
 * ```ts
 * packageComponentFiles("node_modules/@pipedream/http"); // [".../sources/new-requests/new-requests.mjs", ...]
 * ```
 */
export function packageComponentFiles(dir: string): string[] {
  const files: string[] = [];
  for (const kind of ["sources", "actions"]) {
    const root = join(dir, kind);
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root).sort()) {
      const folder = join(root, name);
      if (!statSync(folder).isDirectory()) continue;
      const file = COMPONENT_EXTENSIONS.map((ext) => join(folder, `${name}${ext}`)).find(existsSync);
      if (file) files.push(file);
    }
  }
  return files;
}

/**
 * The ranges a package declares for its dependencies (dependencies, optional and peer ones): its
 * components' bare imports get them, so they run with the versions the package was written for.
 *
 * @example
 * ```ts
 * declaredRanges("node_modules/@pipedream/slack")["@slack/web-api"]; // "^7.9.0"
 * ```
 */
export function declaredRanges(dir: string): Record<string, string> {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<
      string,
      Record<string, string> | undefined
    >;
    return { ...pkg.peerDependencies, ...pkg.optionalDependencies, ...pkg.dependencies };
  } catch {
    return {};
  }
}

/** Import specifiers in `from "x"`, `import "x"` and `import("x")`. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"'\s]+)\2/g;

/**
 * `code` with each bare import of a package in `ranges` given its range (`@slack/web-api` becomes
 * `@slack/web-api@^7.9.0`), as `pd registry import`'s bundling does. @internal
 */
export function withRanges(code: string, ranges: Record<string, string>): string {
  return code.replace(SPECIFIER, (all, lead: string, quote: string, spec: string) => {
    if (spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("node:")) return all;
    const parts = spec.split("/");
    const n = spec.startsWith("@") ? 2 : 1;
    const name = parts.slice(0, n).join("/");
    const range = ranges[name];
    if (range === undefined || PROVIDED.has(name) || name.includes("@", 1)) return all;
    const sub = parts.slice(n).join("/");
    return `${lead}${quote}${name}@${range}${sub ? `/${sub}` : ""}${quote}`;
  });
}

/** Finds a package's folder through the resolvers of `packages`; 404 `not_found` naming where it looked. */
async function findPackage(spec: string, packages: PackagesOptions) {
  const { name, range } = parsePackageSpec(spec);
  const tried: string[] = [];
  const reasons: string[] = [];
  for (const resolver of packageResolvers(packages)) {
    tried.push(resolver.name);
    try {
      const found = await resolver.resolve(name, range);
      if (found) return { name, version: found.version, dir: found.dir };
    } catch (error) {
      reasons.push(`${resolver.name}: ${(error as Error).message}`);
    }
  }
  const why = reasons.length > 0 ? `: ${reasons.join("; ")}` : "";
  throw new HooklineError(
    "not_found",
    `Cannot find package "${spec}" (looked in: ${tried.join(", ")})${why}`,
    { package: spec },
  );
}

/** Imports the components of the npm package `spec`; one file's failure is recorded and the next goes on. @internal */
export async function importPackage(
  ctx: ImportContext,
  spec: string,
  visibility: Visibility,
): Promise<PackageImport> {
  const found = await findPackage(spec, ctx.packages);
  const root = resolve(found.dir);
  const ranges = declaredRanges(root);
  const components: ImportedComponent[] = [];
  for (const path of packageComponentFiles(root)) {
    const file = relative(root, path).split(sep).join("/");
    try {
      const code = withRanges(await readFile(path, "utf8"), ranges);
      const filename = path.split(sep).pop() as string;
      // A relative import is read from the package, never from outside it.
      const read = async (rel: string) => {
        const target = resolve(dirname(path), rel);
        if (!target.startsWith(root + sep)) {
          throw new HooklineError("module_not_found", `"${rel}" of ${file} is outside the package`);
        }
        const candidates = /\.[A-Za-z]+$/.test(rel) ? [""] : ["", ".mjs", ".js", ".ts"];
        for (const ext of candidates) {
          const text = await readFile(target + ext, "utf8").catch(() => undefined);
          if (text !== undefined) return { key: rel + ext, text: withRanges(text, ranges) };
        }
        throw new HooklineError("module_not_found", `Cannot find "${rel}", imported by ${file}`);
      };
      const files = await gatherFiles(ctx.load, { code, filename }, DEFAULT_CODE_URL_LIMITS, read);
      const published = await ctx.publish({
        code: { code, filename, ...(files ? { files } : {}) },
        visibility,
      });
      components.push({
        file,
        status: "published",
        id: published.id,
        ...(published.key ? { key: published.key } : {}),
        ...(published.version ? { version: published.version } : {}),
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const details = (error as { details?: { key?: string; version?: string } }).details;
      const exists = typeof code === "string" && ALREADY.has(code);
      components.push({
        file,
        status: exists ? "exists" : "failed",
        ...(details?.key ? { key: details.key } : {}),
        ...(details?.version ? { version: details.version } : {}),
        ...(exists
          ? {}
          : {
              error: { code: typeof code === "string" ? code : "error", message: (error as Error).message },
            }),
      });
    }
  }
  return { name: found.name, version: found.version, components };
}
