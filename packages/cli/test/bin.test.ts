/** How `pd` is started: `npx pd` in a checkout, `npm run pd`, and the installed package. */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";

// A synchronous run blocks the test's own timeout: each is bounded, and killed past it.
const BOUNDED = { timeout: 60_000, killSignal: "SIGKILL" } as const;

import { baseEnv, ROOT, tempDir } from "./_helpers.js";

const LINK = join(ROOT, "node_modules", ".bin", "pd");
const WRAPPER = join(ROOT, "packages", "cli", "bin", "pd.js");

describe.concurrent("the pd executable", () => {
  it("npm install links node_modules/.bin/pd and hookline, which run the built CLI from any folder", () => {
    expect(existsSync(LINK)).toBe(true);
    expect(realpathSync(LINK)).toBe(realpathSync(WRAPPER));
    expect(realpathSync(join(ROOT, "node_modules", ".bin", "hookline"))).toBe(realpathSync(WRAPPER));
    const dir = tempDir();
    const help = spawnSync(LINK, ["--help"], { cwd: dir, env: baseEnv(), encoding: "utf8", ...BOUNDED });
    // After `npm run build` (as CI runs it) nothing is built; after an edit, what changed is first.
    expect(help.stderr).toMatch(/^(Building packages\/[^\n]+ \(changed since the last build\)\.\.\.\n)?$/);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: pd <command>/);
    const unknown = spawnSync(LINK, ["nope"], { cwd: dir, env: baseEnv(), encoding: "utf8", ...BOUNDED });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^usage: unknown command "nope"/);
  }, 30_000);

  it("npm run pd writes relative paths in the folder it was typed in, not the repository root", () => {
    const dir = tempDir();
    const run = spawnSync(
      "npm",
      ["--prefix", ROOT, "run", "-s", "pd", "--", "init", "source", "first-hour"],
      {
        cwd: dir,
        env: baseEnv(),
        encoding: "utf8",
        ...BOUNDED,
      },
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(existsSync(join(dir, "first-hour.mjs"))).toBe(true);
    expect(existsSync(join(ROOT, "first-hour.mjs"))).toBe(false);
  }, 30_000);

  it("installed (no sources beside it), the executable runs the built dist/bin.js; the package ships both", () => {
    const pkg = tempDir();
    mkdirSync(join(pkg, "bin"));
    mkdirSync(join(pkg, "dist"));
    copyFileSync(WRAPPER, join(pkg, "bin", "pd.js"));
    writeFileSync(join(pkg, "package.json"), '{"type": "module"}');
    writeFileSync(join(pkg, "dist", "bin.js"), 'console.log("dist", process.argv.slice(2).join(" "));');
    const run = spawnSync(process.execPath, [join(pkg, "bin", "pd.js"), "list", "sources"], {
      cwd: tempDir(),
      env: baseEnv(),
      encoding: "utf8",
      ...BOUNDED,
    });
    expect(run.stdout).toBe("dist list sources\n");
    const manifest = JSON.parse(readFileSync(join(ROOT, "packages", "cli", "package.json"), "utf8")) as {
      bin: Record<string, string>;
      files: string[];
    };
    // `hookline` is the same program under the project's own name (`pd` is Pipedream's CLI too).
    expect(manifest.bin).toEqual({ hookline: "./bin/pd.js", pd: "./bin/pd.js" });
    expect(manifest.files).toEqual(expect.arrayContaining(["bin", "dist"]));
  });

  it("in a checkout, builds the packages whose dist is missing or older than their sources, then runs the built dist", () => {
    // A checkout in miniature: two packages, cli and core, and a stand-in for scripts/build-js.mjs
    // that writes each dist it is given and logs which (the real script: the next test). Inside the
    // repository, so that tsx resolves for HOOKLINE_FROM_SOURCES=1.
    mkdirSync(join(ROOT, "node_modules", ".cache"), { recursive: true });
    const root = mkdtempSync(join(ROOT, "node_modules", ".cache", "pd-bin-"));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const files: Record<string, string> = {
      "packages/cli/package.json": '{"type": "module"}',
      "packages/cli/src/bin.ts": 'console.log("sources", process.argv.slice(2).join(" "));',
      "packages/core/package.json": '{"type": "module"}',
      "packages/core/src/index.ts": "export const x = 1;",
      "scripts/build-js.mjs": [
        'import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";',
        'import { basename, join } from "node:path";',
        "for (const dir of process.argv.slice(2)) {",
        '  mkdirSync(join(dir, "dist"), { recursive: true });',
        '  const name = basename(dir) === "cli" ? "bin.js" : "index.js";',
        '  writeFileSync(join(dir, "dist", name), \'console.log("built", process.argv.slice(2).join(" "));\');',
        '  appendFileSync(join(dir, "..", "..", "builds.log"), basename(dir) + "\\n");',
        "}",
      ].join("\n"),
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    mkdirSync(join(root, "packages", "cli", "bin"));
    copyFileSync(WRAPPER, join(root, "packages", "cli", "bin", "pd.js"));
    const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds);
    const base = Math.floor(Date.now() / 1000) - 1000;
    for (const path of Object.keys(files)) at(path, base);
    const pd = (env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [join(root, "packages", "cli", "bin", "pd.js"), "list", "sources"], {
        cwd: tempDir(),
        env: baseEnv(env),
        encoding: "utf8",
        ...BOUNDED,
      });
    const builds = () => readFileSync(join(root, "builds.log"), "utf8").trim().split("\n");

    const first = pd(); // no dist yet: both built, then run
    expect(first.stdout).toBe("built list sources\n");
    expect(first.stderr).toBe("Building packages/cli, packages/core (changed since the last build)...\n");
    expect(builds()).toEqual(["cli", "core"]);
    const again = pd(); // current: runs at once
    expect([again.stdout, again.stderr]).toEqual(["built list sources\n", ""]);
    expect(builds()).toEqual(["cli", "core"]);
    for (const path of ["packages/cli/dist/bin.js", "packages/core/dist/index.js"]) at(path, base + 10);
    at("packages/core/src/index.ts", base + 20); // an edit after the build: only core is stale
    expect(pd().stdout).toBe("built list sources\n");
    expect(builds()).toEqual(["cli", "core", "core"]);
    expect(pd({ HOOKLINE_FROM_SOURCES: "1" }).stdout).toBe("sources list sources\n");
    rmSync(join(root, "packages", "core", "dist"), { recursive: true });
    expect(pd().stdout).toBe("built list sources\n");
    expect(builds()).toEqual(["cli", "core", "core", "core"]);
    expect(existsSync(join(root, "node_modules", ".cache", "pd-build.lock"))).toBe(false);
  }, 60_000);

  it("scripts/build-js.mjs builds a package's JavaScript with its own tsup config, without declarations", async () => {
    // A copy of @hookline/core inside the repository (so that tsup and core's dependencies resolve).
    const cache = join(ROOT, "node_modules", ".cache");
    mkdirSync(cache, { recursive: true });
    const copy = join(mkdtempSync(join(cache, "build-js-")), "core");
    try {
      for (const name of ["src", "package.json", "tsup.config.ts", "tsconfig.json"]) {
        cpSync(join(ROOT, "packages", "core", name), join(copy, name), { recursive: true });
      }
      const built = spawnSync(process.execPath, [join(ROOT, "scripts", "build-js.mjs"), copy], {
        encoding: "utf8",
        ...BOUNDED,
      });
      expect(built.status, built.stderr).toBe(0);
      expect(readdirSync(join(copy, "dist")).sort()).toEqual(["index.js", "index.js.map"]);
      const core = (await import(join(copy, "dist", "index.js"))) as { parseEventFilter: unknown };
      expect(typeof core.parseEventFilter).toBe("function");
    } finally {
      rmSync(join(copy, ".."), { recursive: true, force: true });
    }
  }, 60_000);
});
