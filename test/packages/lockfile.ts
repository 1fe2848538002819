/**
 * The lockfile of an app that installs the packed `@hookline/*` tarballs, taken from the
 * repository's own package-lock.json: the tarballs' third-party dependencies at the versions and
 * places the repository installed them (so their tarballs are in the npm cache `npm ci` filled),
 * and each workspace package replaced by its tarball. `npm ci --offline` then installs the app
 * without asking the registry for anything: neither our packages (not published) nor the others'
 * metadata (`npm ci` caches tarballs, not the metadata `npm install` resolves ranges with).
 */

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

/** A lockfile (version 2 or 3): its `packages` by location (`""` is the project). */
export interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

/** The folder holding `location`'s node_modules parent ("" for the project). */
function parentOf(location: string): string | undefined {
  if (location === "") return undefined;
  const at = location.lastIndexOf("/node_modules/");
  return at === -1 ? "" : location.slice(0, at);
}

/** Where Node finds `name` from `location` in the repository's tree (workspace links followed). */
function resolveFrom(lock: Lockfile, location: string, name: string): string | undefined {
  for (let dir: string | undefined = location; dir !== undefined; dir = parentOf(dir)) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    const entry = lock.packages[candidate];
    if (entry) return entry.link ? entry.resolved : candidate;
  }
  return undefined;
}

/**
 * The app's lockfile. `tarballs` maps each package name to its `file:` spec (relative to the app);
 * the app depends on all of them.
 *
 * @example
 * ```ts
 * appLockfile(rootLock, { "@hookline/core": "file:tarballs/hookline-core-0.1.0.tgz" });
 * ```
 */
export function appLockfile(lock: Lockfile, tarballs: Record<string, string>): Lockfile {
  const workspaces = new Map<string, string>(); // "packages/core" -> "@hookline/core"
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (/^packages\/[^/]+$/.test(location) && entry.name && entry.name in tarballs) {
      workspaces.set(location, entry.name);
    }
  }
  /** The app's location of a repository location: workspace folders become node_modules/<name>. */
  const moved = (location: string) => {
    const top = /^packages\/[^/]+/.exec(location)?.[0];
    const name = top ? workspaces.get(top) : undefined;
    return top && name ? `node_modules/${name}${location.slice(top.length)}` : location;
  };

  const packages: Record<string, LockEntry> = {
    "": { name: "app", dependencies: { ...tarballs } },
  };
  const queue = [...workspaces.keys()];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const location = queue.shift() as string;
    const entry = lock.packages[location] as LockEntry;
    const name = workspaces.get(location);
    // Everything the tarballs need is a production dependency of the app.
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...kept } = entry;
    packages[moved(location)] = name ? { ...kept, resolved: tarballs[name] } : kept;
    const optional = new Set(Object.keys(entry.optionalDependencies ?? {}));
    const peers = Object.keys(entry.peerDependencies ?? {}).filter(
      (peer) => !entry.peerDependenciesMeta?.[peer]?.optional,
    );
    const needed = [...Object.keys(entry.dependencies ?? {}), ...optional, ...peers];
    for (const dep of needed) {
      const found = resolveFrom(lock, location, dep);
      if (found === undefined) {
        if (optional.has(dep) || peers.includes(dep)) continue;
        throw new Error(`package-lock.json: ${dep} (needed by ${location}) is not installed`);
      }
      if (!seen.has(found)) {
        seen.add(found);
        queue.push(found);
      }
    }
  }
  return {
    lockfileVersion: lock.lockfileVersion,
    packages: Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}
