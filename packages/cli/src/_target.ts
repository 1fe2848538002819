/** What `pd deploy` and `pd publish` were given: a file, a URL, a registry key or a saved component id. */
import { existsSync, statSync } from "node:fs";

/** A classified deploy or publish target. */
export type Target =
  | { kind: "file"; path: string }
  | { kind: "url"; url: string }
  | { kind: "key"; key: string; version?: string; ref: string }
  | { kind: "id"; id: string };

/** Whether a target is a URL rather than a file. @internal */
export function _isUrl(target: string): boolean {
  return /^https?:\/\//i.test(target);
}

/** A registry key, optionally with `@version`: `acme-new-item` or `acme-new-item@1.2.0`. @internal */
const KEY = /^([a-z0-9][a-z0-9_-]*)(?:@([0-9A-Za-z][0-9A-Za-z.+-]*))?$/i;

/**
 * Classifies `target`: an existing file is code; `http(s)://` is a URL; `sc_...` is a saved
 * component; a word like `acme-new-item[@1.2.0]` is a registry key; anything else is a file
 * (which then fails as `file_not_found`).
 * @internal
 */
export function _classify(target: string): Target {
  if (existsSync(target) && statSync(target).isFile()) return { kind: "file", path: target };
  if (_isUrl(target)) return { kind: "url", url: target };
  if (/^sc_[0-9A-Za-z]+$/.test(target)) return { kind: "id", id: target };
  const key = KEY.exec(target);
  if (key && !/\.(m|c)?[jt]sx?$/i.test(target)) {
    const [, name, version] = key;
    return { kind: "key", key: name as string, ref: target, ...(version ? { version } : {}) };
  }
  return { kind: "file", path: target };
}
