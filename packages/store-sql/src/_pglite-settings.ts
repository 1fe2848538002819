/**
 * How the SQL store starts PGlite: its Postgres settings (a smaller memory footprint than Postgres's
 * defaults) and the creation of a new data folder in a short-lived child process, so that the
 * memory `initdb` uses (a WebAssembly instance of its own, several hundred MB that V8 does not give
 * back) is never part of the server's resident memory. See docs/benchmarks.md, "Footprint".
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * PGlite's own start parameters (those of `PGlite.create`, version 0.5) plus smaller buffers:
 * `shared_buffers` 16 MB instead of 128 MB (the pages live in the WebAssembly memory, which never
 * shrinks; Hookline's working set is small and the operating system caches the files anyway), and
 * `wal_buffers` 1 MB.
 */
export const PGLITE_START_PARAMS: readonly string[] = [
  "--single",
  "-F",
  "-O",
  "-j",
  "-c",
  "search_path=public",
  "-c",
  "exit_on_error=false",
  "-c",
  "log_checkpoints=false",
  "-c",
  "max_worker_processes=0",
  "-c",
  "max_parallel_workers=0",
  "-c",
  "max_parallel_workers_per_gather=0",
  "-c",
  "io_method=sync",
  "-c",
  "max_parallel_maintenance_workers=0",
  "-c",
  "shared_buffers=16MB",
  "-c",
  "wal_buffers=1MB",
];

/** The script the child runs: creates the database in the folder, then exits. */
const CREATE_SCRIPT = `
const [url, dir, params] = process.argv.slice(1);
const { PGlite } = await import(url);
const db = await PGlite.create(dir, { startParams: JSON.parse(params) });
await db.close();
`;

/**
 * Creates PGlite's database in `dataDir` from a child process when the folder holds none yet (no
 * `PG_VERSION`); does nothing otherwise. Falls back to nothing (the caller's `PGlite.create` then
 * runs `initdb` in process) when the child cannot run.
 *
 * @param dataDir - The data folder.
 * @returns Whether the child created it.
 */
export async function createDataDirApart(dataDir: string): Promise<boolean> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return false;
  let url: string;
  try {
    url = import.meta.resolve("@electric-sql/pglite");
  } catch {
    return false;
  }
  return new Promise<boolean>((resolve) => {
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", CREATE_SCRIPT, url, dataDir, JSON.stringify(PGLITE_START_PARAMS)],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    child.stderr.resume();
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0 && existsSync(join(dataDir, "PG_VERSION"))));
  });
}
