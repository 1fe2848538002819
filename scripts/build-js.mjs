#!/usr/bin/env node
// `node scripts/build-js.mjs <package folder>...`: builds the JavaScript of each workspace package
// with its own tsup config, without the type declarations (tsup's slow part: seconds instead of
// minutes), which running the code does not need. `packages/cli/bin/pd.js` runs it in a checkout
// when a package's dist is missing or older than its sources; `npm run build` still builds
// everything (declarations, the web application). `dist/app` (the web application Vite built) is
// kept; the other files of dist are replaced.
import { spawn } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

// tsup reads its config and entries from the working folder: one child node per package, at once.
// A workspace package bundled into another (`noExternal`: @hookline/core in the runtime's pool
// worker) is read from its sources (the `@hookline/source` condition), so no build waits for
// another's dist.
const TSUP = `import("tsup").then(({ build }) => build({
  dts: false, clean: false, silent: true,
  esbuildOptions(options) { options.conditions = ["@hookline/source", "node", "import", "default"]; },
}))`;

const builds = process.argv.slice(2).map((folder) => {
  const dir = resolve(folder);
  const dist = join(dir, "dist");
  try {
    for (const name of readdirSync(dist))
      if (name !== "app") rmSync(join(dist, name), { recursive: true, force: true });
  } catch {
    // No dist yet.
  }
  const child = spawn(process.execPath, ["--input-type=module", "-e", TSUP], { cwd: dir, stdio: "inherit" });
  return new Promise((done) => child.on("close", (code) => done(code === 0 ? 0 : 1)));
});
process.exitCode = Math.max(0, ...(await Promise.all(builds)));
