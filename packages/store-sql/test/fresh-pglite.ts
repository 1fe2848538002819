/**
 * A new in-memory PGlite database for a test, as `PGlite.create()` makes one, without running
 * initdb each time (1.5 s on a quiet machine, several on a loaded one): the first call of a checkout
 * makes a database with `PGlite.create()` and keeps its data folder (`dumpDataDir`) in
 * node_modules/.cache/hookline-test/, one file per PGlite version; every call then starts PGlite
 * on a copy of it (`loadDataDir`, as PGlite's own `clone()` does), in about 0.3 s. The database is
 * the same empty one: migrations and everything else still run on it. Decision 0421.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";

const CACHE = fileURLToPath(new URL("../../../node_modules/.cache/hookline-test/", import.meta.url));

/** The installed PGlite's version (its package.json, found above its entry point). */
function pgliteVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve("@electric-sql/pglite")));
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

let template: Promise<Uint8Array> | undefined;

/** The empty database's data folder as a tar, made once per checkout and PGlite version. */
function emptyDataDir(): Promise<Uint8Array> {
  template ??= (async () => {
    const file = join(CACHE, `pglite-${pgliteVersion()}-empty.tar`);
    if (existsSync(file)) return readFileSync(file);
    const db = await PGlite.create();
    const bytes = new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer());
    await db.close();
    // Written beside and renamed: test files starting at once each write a whole file.
    mkdirSync(CACHE, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, file);
    return bytes;
  })();
  return template;
}

/** A new, empty in-memory PGlite database (see above); close it as any other. */
export async function freshPglite(): Promise<PGlite> {
  return PGlite.create({ loadDataDir: new Blob([await emptyDataDir()]) });
}
