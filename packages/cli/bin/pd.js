#!/usr/bin/env node
// The `pd` executable. Installed from npm (`npm install -g @hookline/cli`), the package holds the
// built `dist/bin.js`, which this imports. In a checkout of the Hookline repository (the sources are
// next to this file), it runs the TypeScript sources instead, with the same node flags as
// `npm start` (tsx, and the `@hookline/source` condition that resolves workspace packages to their
// sources), so `npx pd` works right after `npm install`, without a build, and never runs a stale one.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const sources = fileURLToPath(new URL("../src/bin.ts", import.meta.url));

// `npm run pd -- ...` and `npm start` run in the repository root: relative paths (a component file,
// the `.hookline` data folder) mean the folder the user typed the command in.
if (
  process.env.npm_package_name === "hookline" &&
  (process.env.npm_lifecycle_event === "pd" || process.env.npm_lifecycle_event === "start") &&
  process.env.INIT_CWD
) {
  process.chdir(process.env.INIT_CWD);
}

if (!existsSync(sources)) {
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
