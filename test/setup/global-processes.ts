/**
 * The whole run (vitest's global setup): marks the run's processes, and at its end checks that none
 * outlives it. Any process still carrying the mark is killed and fails the run, named with its
 * command line: a test that leaks a process is a failing test.
 */
import { randomUUID } from "node:crypto";
import { RUN_MARK, sweep } from "./processes.js";

export default function setup(): () => Promise<void> {
  const mark = randomUUID();
  // Set before the workers start: they, and everything they spawn, inherit it.
  process.env[RUN_MARK] = mark;
  return async () => {
    // vitest's own children (esbuild's service, started by vite in this process) end with it.
    const left = await sweep(RUN_MARK, mark, (p) => p.ppid !== process.pid);
    if (left.length > 0) {
      // vitest reports an error thrown here but exits 0: the exit code says it too.
      process.exitCode = 1;
      throw new Error(
        `${left.length} process${left.length === 1 ? "" : "es"} outlived the tests (killed now):\n` +
          left.map((p) => `  ${p.pid} ${p.command}`).join("\n"),
      );
    }
  };
}
