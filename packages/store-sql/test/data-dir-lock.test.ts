import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createSqlStore, DataDirLockedError, openPglite, pgliteClient } from "../src/index.js";

const HOLDER = fileURLToPath(new URL("./hold-data-dir.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");
const children: ChildProcess[] = [];

/** Starts a real process that opens `dir` and holds it; resolves once it said "ready". */
async function holder(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--conditions=@hookline/source", "--import", TSX, HOLDER, dir], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      if (output.includes("ready")) resolve();
    });
    child.stderr?.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.on("exit", (code) => reject(new Error(`the holder exited (${code}): ${output}`)));
  });
  return child;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGKILL");
    await exited(child);
  }
});

describe("the lock of a PGlite data folder (two real processes)", () => {
  it("refuses a second opener, naming the holder's pid; free again once the holder closes", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "hl-lock-")), "pglite");
    try {
      const first = await holder(dir);
      const error = await openPglite(dir).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect(error).toMatchObject({ code: "data_dir_locked", holder: { pid: first.pid } });
      expect((error as Error).message).toContain(`process ${first.pid}`);
      expect((error as Error).message).toContain(dir);

      first.stdin?.end(); // closes the database, which releases the lock
      await exited(first);
      expect(first.exitCode).toBe(0);
      const db = await openPglite(dir);
      const store = await createSqlStore(pgliteClient(db));
      expect(await store.workspaces.get(`ws_${first.pid}`)).toBeDefined();
      await store.close();
      await db.close();
      expect(existsSync(`${dir}.lock`)).toBe(false);
      expect(existsSync(`${dir}.lock.json`)).toBe(false);
      // Released while this process lives on: another process may open the folder now.
      const second = await holder(dir);
      second.stdin?.end();
      await exited(second);
      expect(second.exitCode).toBe(0);
    } finally {
      rmSync(join(dir, ".."), { recursive: true, force: true });
    }
  }, 120_000);

  it("takes over the lock of a holder killed with SIGKILL", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "hl-lock-")), "pglite");
    try {
      const first = await holder(dir);
      first.kill("SIGKILL");
      await exited(first);
      expect(existsSync(`${dir}.lock`)).toBe(true); // nothing could release it
      const db = await openPglite(dir); // waits until the dead holder's lock is stale
      const store = await createSqlStore(pgliteClient(db));
      expect(await store.workspaces.get(`ws_${first.pid}`)).toBeDefined();
      // and this process now holds it against another one
      await expect(holder(dir)).rejects.toThrow(`in use by process ${process.pid}`);
      await store.close();
      await db.close();
    } finally {
      rmSync(join(dir, ".."), { recursive: true, force: true });
    }
  }, 120_000);

  it("refuses a holder that is alive even when its lock looks stale (its event loop stalled)", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "hl-lock-")), "pglite");
    try {
      // The lock of a live process (this worker's parent) that has not refreshed it for a minute.
      mkdirSync(`${dir}.lock`);
      const old = new Date(Date.now() - 60_000);
      utimesSync(`${dir}.lock`, old, old);
      const holder = { pid: process.ppid, hostname: hostname(), since: old.toISOString() };
      writeFileSync(`${dir}.lock.json`, JSON.stringify(holder));
      const error = await openPglite(dir).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect(error).toMatchObject({ holder: { pid: process.ppid } });
      expect(existsSync(`${dir}.lock`)).toBe(true); // left to its holder
    } finally {
      rmSync(join(dir, ".."), { recursive: true, force: true });
    }
  });
});
