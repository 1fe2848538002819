/**
 * The processes a test run started, found by a mark in their environment: every process spawned
 * by a test (a `pd serve`, a receiver, an example server, and what they spawn in turn, such as
 * esbuild's service) inherits the test worker's environment, so it carries the marks wherever it
 * is reparented. Linux only (`/proc`); elsewhere nothing is found.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The variable marking the processes of this `vitest` run (set by the global setup). */
export const RUN_MARK = "VITEST_HOOKLINE_RUN";
/** The variable marking the processes of one test file (set by the setup file, per file). */
export const FILE_MARK = "VITEST_HOOKLINE_FILE";

/** A process found: its id, its parent's and its command line. */
export interface Found {
  pid: number;
  ppid: number;
  command: string;
}

/** Every process (but this one) whose environment has `name=value`. */
export function marked(name: string, value: string): Found[] {
  let pids: number[];
  try {
    pids = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
  const needle = `${name}=${value}`;
  const found: Found[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (!env.includes(needle)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      // stat: "pid (comm) state ppid ...", where comm may hold spaces.
      const ppid = Number(
        readFileSync(`/proc/${pid}/stat`, "utf8")
          .replace(/^.*\) /, "")
          .split(" ")[1],
      );
      found.push({ pid, ppid, command: command.slice(0, 200) });
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return found;
}

/** Kills each process at once (SIGKILL: a test's process has had its chance to stop). */
export function kill(found: Found[]): void {
  for (const { pid } of found) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/**
 * Kills what carries the mark (and passes `which`) until none is left (a process may spawn while
 * it is killed); returns every process killed. Processes get `graceMs` first to end by themselves
 * (one just sent a signal by its test is still listed for a moment).
 */
export async function sweep(
  name: string,
  value: string,
  which: (found: Found) => boolean = () => true,
  graceMs = 1000,
): Promise<Found[]> {
  const deadline = Date.now() + graceMs;
  while (marked(name, value).some(which) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const all: Found[] = [];
  for (let round = 0; round < 20; round++) {
    const found = marked(name, value).filter(which);
    if (found.length === 0) break;
    for (const f of found) if (!all.some((a) => a.pid === f.pid)) all.push(f);
    kill(found);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return all;
}
