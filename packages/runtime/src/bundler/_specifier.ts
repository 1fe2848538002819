/**
 * Import specifiers with a version (`@scope/pkg@^1.2/sub/path`) and the version questions the
 * resolvers ask, answered by the `semver` package (npm's own): prereleases ordered as npm orders
 * them (`beta.2` < `beta.10`), ranges as npm reads them, and dist-tags (`pkg@next`).
 */
import semver from "semver";

/** True for an import that names no version: it takes the registry's `latest`. */
export const isLatest = (range: string) => range === "" || range === "latest" || range === "*";

/** True when `version` satisfies `range` (`*`, `latest` and `` accept every release). */
export function satisfies(version: string, range: string): boolean {
  if (semver.valid(version) === null) return false;
  if (isLatest(range)) return semver.prerelease(version) === null;
  return semver.satisfies(version, range);
}

/** The highest version of `versions` that satisfies `range`, or undefined. */
export function maxSatisfying(versions: string[], range: string): string | undefined {
  const valid = versions.filter((v) => semver.valid(v) !== null);
  return (
    (isLatest(range) ? semver.maxSatisfying(valid, "*") : semver.maxSatisfying(valid, range)) ?? undefined
  );
}

/** True when `range` is a version range npm reads (not a dist-tag such as `next`). */
export const isRange = (range: string) => isLatest(range) || semver.validRange(range) !== null;

/**
 * Splits an import specifier into package name, version range and subpath:
 * `@scope/pkg@^1.2/sub` -> `{ name: "@scope/pkg", range: "^1.2", subpath: "sub" }`.
 */
export function parseSpecifier(spec: string): { name: string; range: string; subpath: string } {
  const scoped = spec.startsWith("@");
  const parts = spec.split("/");
  const nameParts = scoped ? parts.slice(0, 2) : parts.slice(0, 1);
  const subpath = parts.slice(nameParts.length).join("/");
  let last = nameParts[nameParts.length - 1] ?? "";
  let range = "";
  const at = last.indexOf("@");
  if (at > 0) {
    range = last.slice(at + 1);
    last = last.slice(0, at);
  }
  nameParts[nameParts.length - 1] = last;
  return { name: nameParts.join("/"), range, subpath };
}
