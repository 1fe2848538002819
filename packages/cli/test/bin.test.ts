/** How `pd` is started: `npx pd` in a checkout, `npm run pd`, and the installed package. */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// A synchronous run blocks the test's own timeout: each is bounded, and killed past it.
const BOUNDED = { timeout: 60_000, killSignal: "SIGKILL" } as const;

import { baseEnv, ROOT, tempDir } from "./_helpers.js";

const LINK = join(ROOT, "node_modules", ".bin", "pd");
const WRAPPER = join(ROOT, "packages", "cli", "bin", "pd.js");

describe.concurrent("the pd executable", () => {
  it("npm install links node_modules/.bin/pd, which runs from any folder (sources, or a current build)", () => {
    expect(existsSync(LINK)).toBe(true);
    expect(realpathSync(LINK)).toBe(realpathSync(WRAPPER));
    const dir = tempDir();
    const help = spawnSync(LINK, ["--help"], { cwd: dir, env: baseEnv(), encoding: "utf8", ...BOUNDED });
    expect(help.stderr).toBe("");
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
    expect(manifest.bin).toEqual({ pd: "./bin/pd.js" });
    expect(manifest.files).toEqual(expect.arrayContaining(["bin", "dist"]));
  });

  it("in a checkout, runs the built dist when every package's dist is newer than its sources, else the sources", () => {
    // A checkout in miniature, inside the repository so that tsx resolves: two packages, cli and core.
    const cache = join(ROOT, "node_modules", ".cache");
    mkdirSync(cache, { recursive: true });
    const root = mkdtempSync(join(cache, "pd-bin-"));
    try {
      const files: Record<string, string> = {
        "cli/package.json": '{"type": "module"}',
        "cli/src/bin.ts": 'console.log("sources", process.argv.slice(2).join(" "));',
        "cli/dist/bin.js": 'console.log("dist", process.argv.slice(2).join(" "));',
        "core/package.json": '{"type": "module"}',
        "core/src/index.ts": "export const x = 1;",
        "core/dist/index.js": "export const x = 1;",
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(root, path, ".."), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      mkdirSync(join(root, "cli", "bin"));
      copyFileSync(WRAPPER, join(root, "cli", "bin", "pd.js"));
      const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds);
      const base = Math.floor(Date.now() / 1000) - 1000;
      for (const path of Object.keys(files)) at(path, path.includes("/dist/") ? base + 10 : base);
      const pd = (env: Record<string, string> = {}) =>
        spawnSync(process.execPath, [join(root, "cli", "bin", "pd.js"), "list", "sources"], {
          cwd: tempDir(),
          env: baseEnv(env),
          encoding: "utf8",
          ...BOUNDED,
        }).stdout;
      expect(pd()).toBe("dist list sources\n");
      expect(pd({ HOOKLINE_FROM_SOURCES: "1" })).toBe("sources list sources\n");
      at("core/src/index.ts", base + 20); // an edit after the build: the build is stale
      expect(pd()).toBe("sources list sources\n");
      at("core/dist/index.js", base + 30);
      expect(pd()).toBe("dist list sources\n");
      rmSync(join(root, "core", "dist"), { recursive: true });
      expect(pd()).toBe("sources list sources\n");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
