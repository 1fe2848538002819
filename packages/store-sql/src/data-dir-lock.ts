/**
 * A lock on a PGlite data folder: PGlite is one Postgres process in WebAssembly with no lock of its
 * own, so two servers opening the same folder would both write to it. The lock is a directory
 * `<folder>.lock` held with `proper-lockfile` (kept fresh while held, stale 10 s after its holder
 * died, released on exit), beside a `<folder>.lock.json` naming the holder (pid, host, since when).
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import lockfile from "proper-lockfile";

/** How long a lock lives without its holder refreshing it, in milliseconds. */
const STALE_MS = 10_000;

/** Who holds a data folder, as its lock file says. */
export interface DataDirHolder {
  /** The process id. */
  pid: number;
  /** The machine. */
  hostname: string;
  /** When it took the lock (ISO 8601). */
  since: string;
}

/**
 * Thrown by {@link lockDataDir} (and so by `openPglite`) when another process holds the folder.
 *
 * @example
 * ```ts
 * try {
 *   await openPglite("./data/pglite");
 * } catch (error) {
 *   if (error instanceof DataDirLockedError) console.error(error.message, error.holder?.pid);
 * }
 * ```
 */
export class DataDirLockedError extends Error {
  /** Always `data_dir_locked`. */
  readonly code = "data_dir_locked";
  /** The holder, when its lock file could be read. */
  readonly holder: DataDirHolder | undefined;
  /** The folder. */
  readonly dataDir: string;

  /**
   * @param dataDir - The folder.
   * @param holder - Who holds it, if known.
   */
  constructor(dataDir: string, holder: DataDirHolder | undefined) {
    const who = holder
      ? `process ${holder.pid} on ${holder.hostname} (since ${holder.since})`
      : "another process (its lock file names none)";
    super(`The data folder ${dataDir} is in use by ${who}: stop that server first, or use another folder`);
    this.name = "DataDirLockedError";
    this.dataDir = dataDir;
    this.holder = holder;
  }
}

/** A held lock on a data folder. */
export interface DataDirLock {
  /** Releases the lock (once; later calls do nothing). */
  release(): Promise<void>;
}

function readHolder(path: string): DataDirHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as DataDirHolder;
    return typeof holder.pid === "number" ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the holder is a live process other than this one, on this machine. */
function aliveElsewhere(holder: DataDirHolder | undefined): boolean {
  if (!holder || holder.hostname !== hostname() || holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the lock of a data folder, or throws {@link DataDirLockedError} naming the process that holds
 * it. A lock left by a process that died (kill -9, a crash) is taken over: at once when that process
 * was on this machine, otherwise once it is stale (10 s).
 *
 * @param dataDir - The folder (it need not exist yet).
 * @param onCompromised - Called if the lock is lost while held (its directory removed by hand, or not
 *   refreshed in time); a warning by default.
 * @example
 * ```ts
 * const lock = await lockDataDir("./data/pglite");
 * // ... use the folder ...
 * await lock.release();
 * ```
 */
export async function lockDataDir(
  dataDir: string,
  onCompromised: (error: Error) => void = (error) => process.emitWarning(error),
): Promise<DataDirLock> {
  const folder = resolve(dataDir);
  const lockPath = `${folder}.lock`;
  const holderPath = `${lockPath}.json`;
  // A holder alive on this machine is refused at once, before proper-lockfile could judge its lock
  // stale by time alone (a server whose event loop stalls, such as while PGlite starts, is still alive).
  const refuseIfHeld = (): void => {
    const holder = readHolder(holderPath);
    if (aliveElsewhere(holder)) throw new DataDirLockedError(folder, holder);
  };
  refuseIfHeld();
  let release: () => Promise<void>;
  try {
    // A lock whose holder is gone (or elsewhere, or unknown) is taken once stale: wait that long.
    release = await lockfile.lock(folder, {
      lockfilePath: lockPath,
      realpath: false,
      stale: STALE_MS,
      onCompromised,
      retries: { retries: Math.ceil(STALE_MS / 500) + 4, minTimeout: 500, maxTimeout: 500, factor: 1 },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    throw new DataDirLockedError(folder, readHolder(holderPath));
  }
  try {
    refuseIfHeld(); // Taken over as stale while its holder lives: give it back.
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  const holder: DataDirHolder = { pid: process.pid, hostname: hostname(), since: new Date().toISOString() };
  writeFileSync(holderPath, `${JSON.stringify(holder)}\n`);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      // The holder file goes first (when it is still ours), so that no later opener reads it as held.
      if (readHolder(holderPath)?.pid === process.pid) rmSync(holderPath, { force: true });
      await release().catch(() => undefined); // Already released (compromised): nothing to do.
    },
  };
}
