/**
 * The loaded code steps a node keeps, by hash: bounded by count and by their bundles' total size,
 * since one step that imports an SDK bundles to megabytes (500 googleapis steps would be ~2 GB).
 * The oldest go first; the one just loaded always stays.
 */
import type { ComponentDescription } from "@hookline/core";

/** A code step, bundled and described. */
export interface LoadedCode {
  bundle: string;
  description: ComponentDescription;
}

/** How many code steps, and how many characters of their bundles, a node keeps at most. */
export interface CodeCacheLimits {
  count: number;
  chars: number;
}

/** 500 steps and 64 M characters of bundles. */
export const CODE_CACHE_LIMITS: CodeCacheLimits = { count: 500, chars: 64 * 1024 * 1024 };

/**
 * Adds `loaded` under `hash` and drops the oldest entries until `code` is within `limits`.
 *
 * @example
 * const code = new Map<string, LoadedCode>();
 * rememberCode(code, "h1", { bundle: "...", description }, { count: 1, chars: 1_000 });
 */
export function rememberCode(
  code: Map<string, LoadedCode>,
  hash: string,
  loaded: LoadedCode,
  limits: CodeCacheLimits = CODE_CACHE_LIMITS,
): void {
  code.delete(hash);
  code.set(hash, loaded);
  let chars = 0;
  for (const entry of code.values()) chars += entry.bundle.length;
  for (const [key, entry] of code) {
    if (code.size <= limits.count && chars <= limits.chars) break;
    if (key === hash) break;
    code.delete(key);
    chars -= entry.bundle.length;
  }
}
