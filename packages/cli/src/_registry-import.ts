/**
 * Publishing the components of an npm package (`@pipedream/slack`) or of a folder (Hookline's
 * essentials) into the registry: each component file is bundled with its relative imports, as
 * `pd deploy <file>` does, and published under its own key and version. `pd registry import` does
 * it over the REST API; `pd serve` does it in-process at start-up.
 */
import { readdirSync } from "node:fs";
import { basename, dirname, extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { PackagesOptions } from "@hookline/runtime";
import { bundleComponent } from "./_bundle.js";
import { CliError } from "./_output.js";

/** What became of one component file. */
export interface ImportResult {
  /** The file, relative to the package (or folder) root. */
  file: string;
  /** `published`, `exists` (this key and version were published before), or `failed`. */
  status: "published" | "exists" | "failed";
  key?: string;
  version?: string;
  id?: string;
  /** Why it failed: the API's error code and message. */
  error?: { code: string; message: string };
}

/** Publishes one bundled component; resolves with what the registry stored. */
export type Publisher = (component: {
  code: string;
  filename: string;
}) => Promise<{ id: string; key?: string | null; version?: string }>;

const COMPONENT_EXTENSIONS = new Set([".mjs", ".js", ".ts", ".cjs"]);

/**
 * The engine's reading of npm package folders (`packageComponentFiles`, `declaredRanges`,
 * `parsePackageSpec`: one owner, shared with `POST /v1/components/registry/import`), loaded on use
 * because the engine is heavy for commands that never import a package.
 */
export async function npmPackages() {
  const { declaredRanges, packageComponentFiles, parsePackageSpec } = await import("@hookline/engine");
  return { declaredRanges, packageComponentFiles, parsePackageSpec };
}

/** Every component file (`.mjs`, `.js`, `.ts`) under `dir`, for a folder such as the essentials. */
export function folderComponentFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...folderComponentFiles(path));
    else if (COMPONENT_EXTENSIONS.has(extname(entry.name))) files.push(path);
  }
  return files.sort();
}

/** The folder of Hookline's essential components, shipped with the CLI (`registry/`). */
export function essentialsDir(): string {
  // Resolved through the package's exports, so it is found from the built binary too.
  return dirname(fileURLToPath(import.meta.resolve("@hookline/cli/registry/README.md")));
}

/**
 * The folder of an npm package: `node_modules`, then the package cache, then the npm registry
 * (downloaded into the cache, integrity checked).
 */
export async function resolvePackageDir(
  spec: string,
  packages: PackagesOptions,
): Promise<{ name: string; version: string; dir: string }> {
  const { parsePackageSpec } = await npmPackages();
  let parsed: { name: string; range: string };
  try {
    parsed = parsePackageSpec(spec);
  } catch (error) {
    throw new CliError("bad_request", (error as Error).message);
  }
  const { name, range } = parsed;
  const tried: string[] = [];
  const reasons: string[] = [];
  // Loaded here: the runtime (QuickJS, esbuild) is heavy for commands that never need it.
  const { packageResolvers } = await import("@hookline/runtime");
  for (const resolver of packageResolvers(packages)) {
    tried.push(resolver.name);
    try {
      const found = await resolver.resolve(name, range);
      if (found) return { name, version: found.version, dir: found.dir };
    } catch (error) {
      reasons.push(`${resolver.name}: ${(error as Error).message}`);
    }
  }
  throw new CliError(
    "package_not_found",
    `Cannot find package "${spec}" (looked in: ${tried.join(", ")})${reasons.length > 0 ? `: ${reasons.join("; ")}` : ""}`,
  );
}

/** Codes that mean "already in the registry": the component is not published again. */
const ALREADY = new Set(["component_version_exists", "registry_key_taken"]);

/**
 * Bundles and publishes each file, one at a time; a failure is recorded and the next file goes on.
 * `onResult` sees each result as it comes; bare imports get the versions of `ranges`.
 */
export async function publishFiles(
  root: string,
  files: string[],
  publish: Publisher,
  onResult?: (result: ImportResult) => void,
  ranges: Record<string, string> = {},
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const path of files) {
    const file = relative(root, path) || basename(path);
    let result: ImportResult;
    try {
      const bundled = await bundleComponent(path, { ranges });
      const published = await publish(bundled);
      result = {
        file,
        status: "published",
        id: published.id,
        ...(published.key ? { key: published.key } : {}),
        ...(published.version ? { version: published.version } : {}),
      };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const details = (error as { details?: { key?: string; version?: string } }).details;
      result = {
        file,
        status: typeof code === "string" && ALREADY.has(code) ? "exists" : "failed",
        ...(details?.key ? { key: details.key } : {}),
        ...(details?.version ? { version: details.version } : {}),
        error: { code: typeof code === "string" ? code : "error", message: (error as Error).message },
      };
      if (result.status === "exists") delete result.error;
    }
    results.push(result);
    onResult?.(result);
  }
  return results;
}
