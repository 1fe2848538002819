/**
 * The npm packages as a user gets them: `npm pack` of every workspace package (after `npm run
 * build`, as CI runs it), the tarballs installed together in an empty folder with `npm ci
 * --offline` (their third-party dependencies from the npm cache: see packages/lockfile.ts), then
 * each package's README example run there as written, the CLI's binary serving and deploying, and
 * `require()` of the ES modules.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appLockfile, type Lockfile } from "./packages/lockfile.js";
import { freePort, markedBlocks, quote, run, start, statedOutput, stop, until } from "./packages/run.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIRS = readdirSync(join(ROOT, "packages")).filter((d) =>
  existsSync(join(ROOT, "packages", d, "package.json")),
);
const REPOSITORY = "https://github.com/hookline/hookline";

interface Packed {
  name: string;
  filename: string;
  files: Array<{ path: string }>;
}

const work = mkdtempSync(join(tmpdir(), "hookline-packages-"));
const app = join(work, "app");
let packed: Packed[] = [];

const readme = (dir: string) => join(ROOT, "packages", dir, "README.md");
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(ROOT, "packages", dir, "package.json"), "utf8")) as Record<string, unknown> & {
    name: string;
  };

beforeAll(async () => {
  const unbuilt = DIRS.filter((d) => !existsSync(join(ROOT, "packages", d, "dist", "index.d.ts")));
  if (unbuilt.length > 0) {
    throw new Error(
      `not built: ${unbuilt.join(", ")}. Run \`npm run build\` first (CI does, before npm test)`,
    );
  }
  mkdirSync(join(app, "tarballs"), { recursive: true });
  const pack = await run(
    `npm pack --workspaces --json --pack-destination ${quote(join(app, "tarballs"))}`,
    ROOT,
  );
  expect(pack.code, pack.stderr).toBe(0);
  packed = JSON.parse(pack.stdout) as Packed[];
  const tarballs = Object.fromEntries(packed.map((p) => [p.name, `file:tarballs/${p.filename}`]));
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as Lockfile;
  const appLock = appLockfile(lock, tarballs);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "app", private: true, type: "module", dependencies: tarballs }, null, 2),
  );
  writeFileSync(
    join(app, "package-lock.json"),
    JSON.stringify({ name: "app", requires: true, ...appLock }, null, 2),
  );
  const install = await run("npm ci --offline --no-audit --no-fund", app);
  expect(install.code, install.stderr).toBe(0);
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.concurrent("the npm packages, packed and installed in an empty folder", () => {
  it("every package is packed with its README, LICENSE, built code and types, and no sources or tests", () => {
    expect(packed.map((p) => p.name).sort()).toEqual(DIRS.map((d) => manifest(d).name).sort());
    for (const dir of DIRS) {
      const pkg = manifest(dir);
      const files = packed.find((p) => p.name === pkg.name)?.files.map((f) => f.path) ?? [];
      expect(files, pkg.name).toEqual(
        expect.arrayContaining(["README.md", "LICENSE", "package.json", "dist/index.js", "dist/index.d.ts"]),
      );
      const allowed = dir === "cli" ? /^(bin|dist|registry)\// : /^dist\//;
      const others = files.filter(
        (f) => !allowed.test(f) && !["README.md", "LICENSE", "package.json"].includes(f),
      );
      expect(others, pkg.name).toEqual([]);
      expect(
        files.filter((f) => /\.test\.|(^|\/)(src|test)\//.test(f)),
        pkg.name,
      ).toEqual([]);
      expect(readFileSync(join(ROOT, "packages", dir, "LICENSE"), "utf8")).toMatch(/^MIT License/);
      expect(pkg).toMatchObject({
        license: "MIT",
        homepage: `${REPOSITORY}/tree/main/packages/${dir}#readme`,
        bugs: { url: `${REPOSITORY}/issues` },
        repository: { type: "git", url: `git+${REPOSITORY}.git`, directory: `packages/${dir}` },
        keywords: expect.arrayContaining(["hookline"]),
      });
    }
  });

  it("each package's README example runs against the installed packages and prints what it says", async () => {
    const examples = DIRS.filter((d) => d !== "cli" && d !== "connect");
    const runs = examples.map(async (dir) => {
      const blocks = markedBlocks(readme(dir));
      expect(
        blocks.map((b) => `${b.role} ${b.lang}`),
        dir,
      ).toEqual(["example js"]);
      const code = blocks[0]?.text ?? "";
      writeFileSync(join(app, `example-${dir}.mjs`), code);
      const result = await run(`node example-${dir}.mjs`, app);
      return { dir, code, result };
    });
    for (const { dir, code, result } of await Promise.all(runs)) {
      expect(result.code, `${dir}: ${result.stderr}`).toBe(0);
      const lines = result.stdout.trimEnd().split("\n");
      const stated = statedOutput(code);
      expect(stated.length, dir).toBeGreaterThan(0);
      expect(lines.length, `${dir} printed ${result.stdout}`).toBe(stated.length);
      for (const [i, pattern] of stated.entries()) expect(lines[i], dir).toMatch(pattern);
    }
  }, 180_000);

  it("the CLI's README: the installed `hookline` binary serves, and deploys a component to that server", async () => {
    const blocks = markedBlocks(readme("cli"));
    expect(blocks.map((b) => b.role)).toEqual(["server", "commands"]);
    const [serveLine] = (blocks[0]?.text ?? "").trim().split("\n");
    expect(serveLine).toBe("npx hookline serve --dev");
    // The README's server on a free port (it writes its address to .hookline/url for the commands).
    const server = start(`${serveLine} --port 0`, app);
    try {
      await until(server, () => /listening on http/.test(server.output.stdout), "hookline serve");
      const outputs: string[] = [];
      for (const line of (blocks[1]?.text ?? "").trim().split("\n")) {
        const result = await run(line, app);
        expect(result.code, `${line}\n${result.stderr}`).toBe(0);
        outputs.push(result.stdout);
      }
      expect(outputs[1]).toMatch(/endpoint: http:\/\/127\.0\.0\.1:\d+\/http\/en_\w+/);
      expect(outputs[2]).toMatch(/^dc_\w+ +hello +hello +true/m);
    } finally {
      await stop(server); // npx and the server it started, both ended
    }
  }, 180_000);

  it("require() loads the ES modules (Node 20.19 or newer), and each package's entry has what its README uses", async () => {
    const checks: Record<string, string[]> = {
      "@hookline/core": ["parseEventFilter", "matchesFilter"],
      "@hookline/store": ["createMemoryStore"],
      "@hookline/store-sql": ["createSqlStore", "openPglite", "pgliteClient"],
      "@hookline/delivery": ["generateWebhookSecret", "signPayload", "verifyWebhook"],
      "@hookline/runtime": ["createRuntime"],
      "@hookline/engine": ["createHookline"],
      "@hookline/http": ["createHandler"],
      "@hookline/ui": ["withUi"],
      "@hookline/cli": ["main"],
    };
    const script = `for (const [name, exports] of Object.entries(${JSON.stringify(checks)})) {
      const m = require(name);
      console.log(name, exports.map((e) => typeof m[e]).join(" "));
    }`;
    writeFileSync(join(app, "require.cjs"), script);
    const required = await run("node require.cjs", app);
    expect(required.code, required.stderr).toBe(0);
    const lines = Object.entries(checks).map(
      ([name, names]) => `${name} ${names.map(() => "function").join(" ")}`,
    );
    expect(required.stdout.trimEnd().split("\n")).toEqual(lines);
    // The browser helper imports without a browser (its popup opens only when called).
    const connect = await run(
      `node -e 'import("@hookline/connect").then((m) => console.log(typeof m.connectAccount))'`,
      app,
    );
    expect(connect.stdout).toBe("function\n");
  }, 120_000);

  it("the READMEs' links into the repository name files that exist", () => {
    for (const dir of DIRS) {
      const text = readFileSync(readme(dir), "utf8");
      const links = [
        ...text.matchAll(/\]\(https:\/\/github\.com\/hookline\/hookline\/blob\/main\/([^)#]+)/g),
      ];
      expect(links.length, dir).toBeGreaterThan(0);
      for (const [, path] of links)
        expect(existsSync(join(ROOT, path as string)), `${dir}: ${path}`).toBe(true);
    }
  });

  it("docs/embedding.md as written: an app of its own serves the API from its server, and its in-memory unit tests pass", async () => {
    const blocks = markedBlocks(join(ROOT, "docs", "embedding.md"));
    expect(blocks.map((b) => b.role)).toEqual([
      "file hookline.mjs",
      "file server.mjs",
      "background",
      "commands",
      "file orders.test.mjs",
      "commands",
    ]);
    const dir = join(app, "my-app"); // resolves the installed packages from app/node_modules
    mkdirSync(dir);
    const port = String(await freePort());
    const local = (text: string) => text.replaceAll(":3000", `:${port}`);
    let server: ReturnType<typeof start> | undefined;
    const outputs: string[] = [];
    try {
      for (const block of blocks) {
        if (block.role.startsWith("file ")) {
          writeFileSync(join(dir, block.role.slice(5)), block.text);
        } else if (block.role === "background") {
          const started = start(`exec ${block.text.trim()}`, dir, { PORT: port });
          server = started;
          await until(
            started,
            () => /HOOKLINE_API_KEY=hl_\S+/.test(started.output.stdout),
            "node server.mjs",
          );
        } else {
          const key = /HOOKLINE_API_KEY=(hl_\S+)/.exec(server?.output.stdout ?? "")?.[1] ?? "";
          for (const line of block.text.trim().split("\n")) {
            const result = await run(local(line), dir, { HOOKLINE_API_KEY: key });
            expect(result.code, `${line}\n${result.stdout}\n${result.stderr}`).toBe(0);
            outputs.push(result.stdout);
          }
        }
      }
    } finally {
      // It closes its server and the engine on SIGTERM, and exits by itself.
      if (server) expect((await stop(server)).code).toBe(0);
    }
    expect(server?.output.stdout).toContain(`listening on http://127.0.0.1:${port}`);
    expect(JSON.parse(outputs[0] ?? "")).toMatchObject({ data: [] });
    // node --test: both tests of the page passed.
    expect(outputs[1]).toMatch(/^# pass 2$/m);
    expect(outputs[1]).toMatch(/^# fail 0$/m);
  }, 180_000);
});
