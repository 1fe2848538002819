/**
 * Every test file (a setup file of every project): what the file's tests started is killed once
 * they are done, also when a test or a hook timed out or failed before stopping it. Processes are
 * found by a mark in their environment (./processes.ts), so grandchildren and reparented orphans
 * are found too. A file's own hooks stop its processes properly first; this only catches leftovers.
 */
import { randomUUID } from "node:crypto";
import { afterAll } from "vitest";
import { FILE_MARK, sweep } from "./processes.js";

const mark = randomUUID();
process.env[FILE_MARK] = mark;

/** esbuild's service, started by this worker's own builds: it ends with the worker (left alone). */
const ownService = (p: { ppid: number; command: string }) =>
  p.ppid === process.pid && /\besbuild --service=/.test(p.command);

afterAll(async () => {
  const left = await sweep(FILE_MARK, mark, (p) => !ownService(p));
  if (left.length > 0) {
    console.warn(
      `killed ${left.length} process${left.length === 1 ? "" : "es"} this file's tests left running:\n` +
        left.map((p) => `  ${p.pid} ${p.command}`).join("\n"),
    );
  }
});
