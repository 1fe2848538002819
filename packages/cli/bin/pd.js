#!/usr/bin/env node
// The `pd` (and `hookline`) executable. Installed from npm, the package holds the built
// `dist/bin.js`, which this imports. In a checkout of the Hookline repository (the sources are next
// to this file) it imports the built `dist/bin.js` too, after building first, in a few seconds, the
// JavaScript of every workspace package whose `dist` is missing or older than its sources
// (scripts/build-js.mjs: no type declarations, which running does not need), so `npx pd` works
// right after `npm install`, starts fast, and never runs a stale build. HOOKLINE_FROM_SOURCES=1
// runs the TypeScript sources through tsx instead (benchmarks compare both). Decision 0340.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
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

const packages = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The workspace packages whose built code cannot run: no `dist`, or one older than the package's
 * sources (its `src` folder or its package.json). A package's build time is that of the oldest file
 * directly in its `dist` (a build rewrites them all). A few hundred `stat`s, a millisecond or two;
 * a `git checkout` or an edit makes the sources newer, so a stale build is never run.
 */
function stalePackages() {
  const stale = [];
  // The runtime's pool worker bundles @hookline/core (runtime/tsup.config.ts): stale with it.
  const bundled = { runtime: "core" };
  for (const name of readdirSync(packages)) {
    const src = join(packages, name, "src");
    if (!existsSync(src)) continue;
    let built = Number.POSITIVE_INFINITY;
    try {
      for (const entry of readdirSync(join(packages, name, "dist"), { withFileTypes: true })) {
        if (entry.isFile())
          built = Math.min(built, statSync(join(packages, name, "dist", entry.name)).mtimeMs);
      }
    } catch {
      built = 0; // no dist
    }
    const changed = Math.max(newest(src), statSync(join(packages, name, "package.json")).mtimeMs);
    if (!(built > changed) || built === Number.POSITIVE_INFINITY) stale.push(join(packages, name));
  }
  for (const [name, inside] of Object.entries(bundled)) {
    const [dir, dep] = [join(packages, name), join(packages, inside)];
    if (stale.includes(dep) && existsSync(dir) && !stale.includes(dir)) stale.push(dir);
  }
  return stale;
}

/**
 * Builds the stale packages under a lock (a folder: creating it is atomic), so that two `pd`
 * started at once build once; the second finds the build current. A lock older than two minutes
 * was left by a build that died.
 */
async function buildStale() {
  const lock = join(packages, "..", "node_modules", ".cache", "pd-build.lock");
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    const stale = stalePackages();
    if (stale.length === 0) return true;
    const names = stale.map((dir) => relative(join(packages, ".."), dir)).join(", ");
    process.stderr.write(`Building ${names} (changed since the last build)...\n`);
    const script = join(packages, "..", "scripts", "build-js.mjs");
    const built = spawnSync(process.execPath, [script, ...stale], { stdio: ["ignore", 2, 2] });
    return built.status === 0;
  } finally {
    rmSync(lock, { recursive: true, force: true });
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

if (!existsSync(sources) || process.env.HOOKLINE_FROM_SOURCES !== "1") {
  if (existsSync(sources) && stalePackages().length > 0 && !(await buildStale())) {
    process.stderr.write(
      "The build failed (above). `HOOKLINE_FROM_SOURCES=1 npx pd ...` runs the sources.\n",
    );
    process.exit(1);
  }
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
