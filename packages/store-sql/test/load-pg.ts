import Module, { createRequire } from "node:module";
import path from "node:path";

/**
 * Loads `pg` in the vitest worker. The root vitest config passes `--conditions import` to Node, so
 * `pg`'s own `require("pg-pool")` resolves to pg-pool's ESM entry and gets a module namespace
 * instead of the Pool class ("Class extends value [object Module] is not a constructor"). Seeding
 * the require cache with pg-pool's CommonJS entry under that path fixes it; outside vitest this is a
 * plain `require("pg")`.
 */
export function loadPg(): typeof import("pg") {
  const require = createRequire(import.meta.url);
  const poolPath = require.resolve("pg-pool");
  const cache = (Module as unknown as { _cache: Record<string, Module> })._cache;
  if (poolPath.endsWith(".mjs") && !cache[poolPath]) {
    const entry = new Module(poolPath);
    entry.filename = poolPath;
    entry.exports = require(path.join(path.dirname(poolPath), "..", "index.js"));
    entry.loaded = true;
    cache[poolPath] = entry;
  }
  return require("pg") as typeof import("pg");
}
