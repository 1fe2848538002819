#!/usr/bin/env node
// The `pd` executable. Installed from npm (`npm install -g @hookline/cli`), the package holds the
// built `dist/bin.js`, which this imports. In a checkout of the Hookline repository (the sources are
// next to this file), it imports the built `dist/bin.js` too when every workspace package's `dist`
// is current (built after its sources last changed: see distIsCurrent), which starts in a fraction
// of the time; otherwise (no build yet, or a source edited since) it runs the TypeScript sources,
// with the same node flags as `npm start` (tsx, and the `@hookline/source` condition that resolves
// workspace packages to their sources), so `npx pd` works right after `npm install`, without a
// build, and never runs a stale one. HOOKLINE_FROM_SOURCES=1 always runs the sources.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const sources = fileURLToPath(new URL("../src/bin.ts", import.meta.url));

/** The newest modification time (ms) of the files under `dir`, recursively. */
function newest(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const t = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    if (t > max) max = t;
  }
  return max;
}

/**
 * Whether the built packages can run instead of the sources: every workspace package with a `src`
 * folder has a `dist`, and the oldest file directly in its `dist` (tsup rewrites them all on each
 * build) is newer than every file under its `src` and its package.json. A few hundred `stat`s,
 * about a millisecond or two; a `git checkout` or an edit makes the sources newer, so a stale build
 * is never run.
 */
function distIsCurrent() {
  const packages = fileURLToPath(new URL("../../", import.meta.url));
  try {
    for (const name of readdirSync(packages)) {
      const src = join(packages, name, "src");
      if (!existsSync(src)) continue;
      const dist = join(packages, name, "dist");
      let built = Number.POSITIVE_INFINITY;
      for (const entry of readdirSync(dist, { withFileTypes: true })) {
        if (entry.isFile()) built = Math.min(built, statSync(join(dist, entry.name)).mtimeMs);
      }
      const changed = Math.max(newest(src), statSync(join(packages, name, "package.json")).mtimeMs);
      if (!(built > changed)) return false;
    }
    return true;
  } catch {
    return false; // a package without dist, or a file gone while reading: run the sources
  }
}

// `npm run pd -- ...` and `npm start` run in the repository root: relative paths (a component file,
// the `.hookline` data folder) mean the folder the user typed the command in.
if (
  process.env.npm_package_name === "hookline" &&
  (process.env.npm_lifecycle_event === "pd" || process.env.npm_lifecycle_event === "start") &&
  process.env.INIT_CWD
) {
  process.chdir(process.env.INIT_CWD);
}

if (!existsSync(sources) || (process.env.HOOKLINE_FROM_SOURCES !== "1" && distIsCurrent())) {
  await import("../dist/bin.js");
} else {
  // Node flags cannot be turned on from inside a running process (and worker threads only inherit
  // flags given on the command line), so the sources run in a child node with them.
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      "--conditions=@hookline/source",
      "--import",
      import.meta.resolve("tsx"),
      sources,
      ...process.argv.slice(2),
    ],
    { stdio: "inherit" },
  );
  // Ctrl-C at a terminal reaches both processes (one process group): pass SIGINT on only when no
  // terminal is attached, so `pd serve` does not see it twice (a second signal forces its exit).
  const attached = process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      if (signal !== "SIGINT" || !attached) child.kill(signal);
    });
  }
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal ? 128 : 1);
  });
}
