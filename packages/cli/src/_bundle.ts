/** Bundles a component file with its relative imports into one ES module (bare imports stay external). */
import { readFileSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import { CliError } from "./_output.js";

/** A bundled component, ready for `component_code`. */
export interface BundledComponent {
  code: string;
  filename: string;
}

/** Options of {@link bundleComponent}. */
export interface BundleOptions {
  /**
   * Version ranges by package name (a package.json's dependencies): a bare import of one of them
   * is rewritten as `name@range` (`@slack/web-api` becomes `@slack/web-api@^7.9.0`), so the server
   * resolves the version the package declares instead of the latest.
   */
  ranges?: Record<string, string>;
}

/** Modules the server provides itself: never given a range. */
const PROVIDED = new Set(["@pipedream/platform", "@pipedream/types"]);

/** `@scope/name/sub` -> [`@scope/name`, `/sub`]. */
function splitBare(spec: string): [string, string] {
  const parts = spec.split("/");
  const n = spec.startsWith("@") ? 2 : 1;
  const rest = parts.slice(n).join("/");
  return [parts.slice(0, n).join("/"), rest ? `/${rest}` : ""];
}

/**
 * Reads `file` and, when it imports relative files, bundles them in with esbuild (TypeScript is
 * compiled too). Package imports (`axios`, `@pipedream/platform`) are left for the server, with
 * the ranges of `options.ranges` added.
 */
export async function bundleComponent(file: string, options: BundleOptions = {}): Promise<BundledComponent> {
  const path = resolve(file);
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch (error) {
    throw new CliError(
      "file_not_found",
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const ext = extname(path);
  const needsBundle =
    /\bfrom\s*["']\.\.?\/|\bimport\s*\(?\s*["']\.\.?\//.test(source) || ext === ".ts" || ext === ".mts";
  const ranges = options.ranges ?? {};
  if (!needsBundle && Object.keys(ranges).length === 0) return { code: source, filename: basename(path) };
  const esbuild = await import("esbuild");
  const withRanges: import("esbuild").Plugin = {
    name: "ranges",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const [name, subpath] = splitBare(args.path);
        const range = PROVIDED.has(name) || name.includes("@", 1) ? undefined : ranges[name];
        return { path: range ? `${name}@${range}${subpath}` : args.path, external: true };
      });
    },
  };
  try {
    const result = await esbuild.build({
      entryPoints: [path],
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      packages: "external",
      plugins: [withRanges],
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.text ?? "";
    return { code, filename: `${basename(path, ext)}.mjs` };
  } catch (error) {
    const messages = (error as { errors?: import("esbuild").Message[] }).errors ?? [];
    const { formatCodeFrame } = await import("@hookline/core");
    const formatted = [...new Set(messages.map((m) => formatCodeFrame(m.text, m.location)))];
    const more = formatted.length > 1 ? `\n(and ${formatted.length - 1} more)` : "";
    throw new CliError("bundle_failed", formatted[0] ? `${formatted[0]}${more}` : `${file}: ${error}`);
  }
}
