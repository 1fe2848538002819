/** Where `pd serve` and `pd registry import` get npm packages: flags and environment variables. */
import { homedir } from "node:os";
import { join } from "node:path";
// Types only: the runtime (QuickJS, esbuild) loads when a command needs it, so others start fast.
import type { PackagesOptions } from "@hookline/runtime";
import { _flag, _str, type OptionSpecs, type ParsedArgs } from "./_args.js";
import { CliError } from "./_output.js";

/** npm's public registry (the runtime's DEFAULT_NPM_REGISTRY). @internal */
export const _NPM_REGISTRY = "https://registry.npmjs.org";

/** `--no-npm` and `--npm-registry URL`. @internal */
export const _npmOptions: OptionSpecs = {
  "no-npm": { type: "boolean" },
  "npm-registry": { type: "string" },
};

/** The package cache of client commands: `$XDG_CACHE_HOME/hookline/packages` (default `~/.cache`). @internal */
export function _userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "hookline", "packages");
}

/**
 * The package options of `args`: the registry is `--npm-registry`, else HOOKLINE_NPM_REGISTRY (a
 * URL, or `off`), else npm's public registry; `--no-npm` turns it off. The cache is
 * HOOKLINE_PACKAGES_DIR, else `defaultCacheDir`. `label` says which registry, for the banner.
 * @internal
 */
export function _packagesOptions(
  args: ParsedArgs,
  defaultCacheDir: string,
): { packages: PackagesOptions & { cacheDir: string }; label: string } {
  const cacheDir = process.env.HOOKLINE_PACKAGES_DIR || defaultCacheDir;
  const fromEnv = process.env.HOOKLINE_NPM_REGISTRY;
  const raw = _str(args, "npm-registry") ?? fromEnv;
  const off = _flag(args, "no-npm") || (raw !== undefined && /^(off|false|none|0)$/i.test(raw));
  if (off)
    return {
      packages: { cacheDir, registry: false },
      label: "off (packages from node_modules and the cache)",
    };
  const registry = raw ?? _NPM_REGISTRY;
  if (!/^https?:\/\/[^/]/i.test(registry)) {
    const where = _str(args, "npm-registry") !== undefined ? "--npm-registry" : "HOOKLINE_NPM_REGISTRY";
    throw new CliError("usage", `${where} must be an http(s) URL or "off", got "${registry}"`);
  }
  return { packages: { cacheDir, registry }, label: registry };
}
