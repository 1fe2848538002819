/**
 * Remembers where esbuild's own node resolution sent a package's bare import (`axios` from inside
 * `@slack/web-api`), across builds, so the next build answers from memory instead of asking
 * esbuild again (each question is a round trip to its process). An answer is keyed by the folder
 * it was asked from, the specifier and the kind of import, and is only reused while the package it
 * points into still has the version it had (its `package.json`, read once per build) and the file
 * is still there: upgrading or removing a package in `node_modules` is seen by the next build.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LRUCache } from "lru-cache";

/** One remembered resolution: the file, and the version of the package holding it then. */
interface Entry {
  path: string;
  namespace: string;
  root: string;
  version: string;
}

/** The package folder (`.../node_modules/<name>` or `<scope>/<name>`) holding `file`, if any. */
export function packageRootOf(file: string): string | undefined {
  const normalized = file.replace(/\\/g, "/");
  const at = normalized.lastIndexOf("/node_modules/");
  if (at === -1) return undefined;
  const rest = normalized.slice(at + "/node_modules/".length).split("/");
  const parts = rest[0]?.startsWith("@") ? rest.slice(0, 2) : rest.slice(0, 1);
  if (parts.length === 0 || parts.some((p) => p === "")) return undefined;
  return file.slice(0, at + "/node_modules/".length + parts.join("/").length);
}

/** The `version` of the package at `root` (`""` when it has none or cannot be read). */
function readVersion(root: string): string {
  try {
    return (
      (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: string }).version ?? ""
    );
  } catch {
    return "";
  }
}

/** A bounded cache of native resolutions; see the module comment. */
export class ResolutionCache {
  private readonly entries: LRUCache<string, Entry>;
  /** How many answers came from memory (for tests and benchmarks). */
  hits = 0;

  constructor(max = 20_000) {
    this.entries = new LRUCache<string, Entry>({ max });
  }

  /** A reader of package versions that reads each `package.json` at most once (one per build). */
  static versions(): (root: string) => string {
    const seen = new Map<string, string>();
    return (root) => {
      let version = seen.get(root);
      if (version === undefined) {
        version = readVersion(root);
        seen.set(root, version);
      }
      return version;
    };
  }

  private static key(resolveDir: string, spec: string, kind: string): string {
    return `${resolveDir}\0${spec}\0${kind}`;
  }

  /** The remembered answer, if the package it points into is unchanged. */
  get(
    resolveDir: string,
    spec: string,
    kind: string,
    versionOf: (root: string) => string,
  ): { path: string; namespace: string } | undefined {
    const key = ResolutionCache.key(resolveDir, spec, kind);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (versionOf(entry.root) !== entry.version || !existsSync(entry.path)) {
      this.entries.delete(key);
      return undefined;
    }
    this.hits++;
    return { path: entry.path, namespace: entry.namespace };
  }

  /** Remembers an answer that points into a package of a `node_modules` folder. */
  set(
    resolveDir: string,
    spec: string,
    kind: string,
    result: { path: string; namespace: string },
    versionOf: (root: string) => string,
  ): void {
    const root = result.namespace === "file" ? packageRootOf(result.path) : undefined;
    if (root === undefined) return;
    this.entries.set(ResolutionCache.key(resolveDir, spec, kind), {
      ...result,
      root,
      version: versionOf(root),
    });
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
  }
}
