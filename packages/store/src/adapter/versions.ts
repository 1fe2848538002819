/** Component versions: the order `findByKey` picks by, the same in every adapter. */
import type { SavedComponent } from "../types/index.js";

/**
 * Compares two versions simply: numeric dot parts, a pre-release sorts before its release, and an
 * absent version sorts first. Returns a negative number, 0 or a positive number.
 *
 * @example
 * ```ts
 * compareVersions("1.10.0", "1.9.2"); // 1
 * compareVersions("1.0.0-beta", "1.0.0"); // -1
 * ```
 */
export function compareVersions(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  const [coreA = "", preA] = a.replace(/^v/, "").split(/-(.*)/s);
  const [coreB = "", preB] = b.replace(/^v/, "").split(/-(.*)/s);
  const partsA = coreA.split(".");
  const partsB = coreB.split(".");
  for (let i = 0; i < Math.max(partsA.length, partsB.length); i++) {
    const x = partsA[i] ?? "0";
    const y = partsB[i] ?? "0";
    const nx = Number(x);
    const ny = Number(y);
    if (Number.isFinite(nx) && Number.isFinite(ny)) {
      if (nx !== ny) return nx < ny ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA < preB ? -1 : 1;
}

/**
 * The component `findByKey` returns among `candidates` (the workspace's own and public ones with the
 * key, in save order): the newest version, then the workspace's own, then the latest saved.
 *
 * @example
 * ```ts
 * newestComponent(rows, workspaceId)?.version;
 * ```
 */
export function newestComponent<T extends Pick<SavedComponent, "workspaceId" | "version">>(
  candidates: Iterable<T>,
  workspaceId: string,
): T | undefined {
  let best: T | undefined;
  for (const row of candidates) {
    if (!best) {
      best = row;
      continue;
    }
    const cmp = compareVersions(row.version, best.version);
    const own = row.workspaceId === workspaceId;
    const bestOwn = best.workspaceId === workspaceId;
    if (cmp > 0 || (cmp === 0 && (own || !bestOwn))) best = row;
  }
  return best;
}
