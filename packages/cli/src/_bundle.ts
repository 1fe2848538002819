/** Bundles a component file with its relative imports into one ES module (bare imports stay external). */
import { readFileSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import { CliError } from "./_output.js";

/** A bundled component, ready for `component_code`. */
export interface BundledComponent {
  code: string;
  filename: string;
}

/**
 * Reads `file` and, when it imports relative files, bundles them in with esbuild (TypeScript is
 * compiled too). Package imports (`axios`, `@pipedream/platform`) are left for the server.
 */
export async function bundleComponent(file: string): Promise<BundledComponent> {
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
  if (!needsBundle) return { code: source, filename: basename(path) };
  const esbuild = await import("esbuild");
  try {
    const result = await esbuild.build({
      entryPoints: [path],
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      packages: "external",
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
