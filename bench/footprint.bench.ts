/**
 * npm run bench:footprint — what `pd serve` on PGlite costs a machine: the time from starting the
 * process to its "listening" line on a new data folder and again on the same folder (a restart),
 * and the resident memory (RSS, from /proc) of the idle server some seconds after each start.
 * The server starts as `npm start` and `npx pd` start it, through `packages/cli/bin/pd.js`: the
 * built `dist` when it is current (`npm run build` after the last change), the sources through
 * tsx otherwise; the line says which ran. A third start, again on the same folder, forces the
 * sources (`HOOKLINE_FROM_SOURCES=1`) for comparison. Options `--port 0 --no-essentials` and a
 * temporary `--data-dir`. Last line: `footprint: ran=<dist|sources> new_start_ms=<n> restart_ms=<n>
 * idle_rss_mb=<n> restart_idle_rss_mb=<n> restart_sources_ms=<n>`.
 *
 * Env: BENCH_IDLE_SECONDS (5): how long the server idles before its RSS is read.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);
const bin = fileURLToPath(new URL("../packages/cli/bin/pd.js", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "hl-footprint-"));

/** Resident memory of a process in MB, from /proc/<pid>/status. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** The process that serves: pd.js itself (dist), or the node it started (sources). */
function serverPid(pid: number): { pid: number; ran: "dist" | "sources" } {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  return children.length > 0 ? { pid: Number(children[0]), ran: "sources" } : { pid, ran: "dist" };
}

/** Starts `pd serve`, waits for its listening line, idles, reads its RSS, stops it. */
async function serve(
  fromSources = false,
): Promise<{ startMs: number; rss: number; ran: "dist" | "sources" }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [bin, "serve", "--port", "0", "--no-essentials", "--data-dir", dataDir],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, NO_COLOR: "1", ...(fromSources ? { HOOKLINE_FROM_SOURCES: "1" } : {}) },
    },
  );
  const startMs = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (out.includes("listening on")) resolve(performance.now() - started);
    });
    child.once("exit", (code) => reject(new Error(`pd serve exited with ${code}: ${out}`)));
  });
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const server = serverPid(child.pid as number);
  const rss = rssMb(server.pid);
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  return { startMs, rss, ran: server.ran };
}

try {
  const first = await serve();
  const again = await serve();
  const sources = await serve(true);
  const round = (x: number) => Math.round(x);
  console.log(
    `new data folder:  started in ${round(first.startMs)} ms (${first.ran}), idle RSS ${round(first.rss)} MB`,
  );
  console.log(
    `restart (same):   started in ${round(again.startMs)} ms (${again.ran}), idle RSS ${round(again.rss)} MB`,
  );
  console.log(`restart, sources: started in ${round(sources.startMs)} ms (HOOKLINE_FROM_SOURCES=1, tsx)`);
  console.log("targets: idle RSS <= 300 MB, restart <= 1,500 ms");
  console.log(
    `footprint: ran=${again.ran} new_start_ms=${round(first.startMs)} restart_ms=${round(again.startMs)} idle_rss_mb=${round(first.rss)} restart_idle_rss_mb=${round(again.rss)} restart_sources_ms=${round(sources.startMs)}`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
