/** Helpers driving the real `pd` binary (from sources, through tsx) as child processes. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const BIN = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");

/**
 * Builds the `pd` binary the way `npm run build` does (esbuild, one ESM file, packages left as
 * imports) into a file of this test process, so every command starts as fast as the installed
 * binary instead of compiling TypeScript at each start.
 */
async function buildBinary(): Promise<string> {
  const dir = fileURLToPath(new URL("../node_modules/.cache/pd-test/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  // Test workers do not always run exit handlers: remove the binaries of processes gone.
  for (const name of readdirSync(dir)) {
    const pid = Number(/^pd-(\d+)-/.exec(name)?.[1]);
    if (pid && pid !== process.pid && !isAlive(pid)) rmSync(join(dir, name), { force: true });
  }
  const stamp = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const outfile = join(dir, `pd-${stamp}.mjs`);
  // @hookline/core, which the client commands import lazily, is built on its own from its sources
  // (its dist may not be built in a checkout) and stays a lazy import, as in the built binary.
  const core = join(dir, `pd-${stamp}-core.mjs`);
  await build({
    entryPoints: [fileURLToPath(new URL("../../core/src/index.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile: core,
    logLevel: "silent",
  });
  await build({
    entryPoints: [BIN],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    plugins: [
      {
        name: "core-beside",
        setup(b) {
          b.onResolve({ filter: /^@hookline\/core$/ }, () => ({ path: core, external: true }));
        },
      },
    ],
    packages: "external",
    banner: { js: "#!/usr/bin/env node" },
    outfile,
    logLevel: "silent",
  });
  process.once("exit", () => rmSync(core, { force: true }));
  process.once("exit", () => rmSync(outfile, { force: true }));
  return outfile;
}

/** Whether a process runs. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The built `pd` binary. */
export const PD_BINARY = await buildBinary();

/**
 * The node arguments that run `pd`. The engine `pd serve` loads is TypeScript in this
 * repository, so the workspace packages resolve to their sources through tsx (as `npm start`
 * does); the client commands load none of them.
 */
export const PD_NODE_ARGS = ["--conditions=@hookline/source", "--import", TSX, PD_BINARY];

/** The node arguments of client commands (no TypeScript loader needed). */
export const PD_CLIENT_ARGS = [PD_BINARY];

/** A fresh temporary folder. */
export function tempDir(prefix = "pd-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The parent environment without Hookline variables, colour off. */
export function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const name of Object.keys(env))
    if (name.startsWith("HOOKLINE_") || name === "DATABASE_URL") delete env[name];
  return { ...env, ...extra };
}

/**
 * Kills a child and everything it started (it leads a process group of its own: spawned
 * `detached`), at once. For a process that did not stop, or a test that gave up on it.
 */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is gone.
  }
}

/** Starts `pd` with `args` in a process group of its own; the child, and its output so far. */
export function spawnPd(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  // `serve` and `registry import` load workspace packages (the engine, the runtime).
  const nodeArgs = args[0] === "serve" || args[0] === "registry" ? PD_NODE_ARGS : PD_CLIENT_ARGS;
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    ...options,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (d: Buffer) => {
    output.stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output.stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output, exited };
}

/** Runs `pd` to completion. */
export async function pd(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = spawnPd(args, options);
  const code = await run.exited;
  return { code, ...run.output };
}

/** Polls `check` until it returns a value, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A running `pd serve`. */
export interface Served {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
  url: string;
  key: string | undefined;
}

/** Starts `pd serve` and waits for its banner (URL and API key line). */
export async function serve(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  timeoutMs = 20_000,
): Promise<Served> {
  const run = spawnPd(["serve", "--port", "0", ...args], options);
  let exitedEarly = false;
  void run.exited.then(() => {
    exitedEarly = true;
  });
  try {
    await waitFor(
      () => {
        if (exitedEarly) throw new Error(`pd serve exited: ${run.output.stderr}`);
        return (
          /API key:/.test(run.output.stdout) && run.output.stdout.split("\n").some((l) => /API key:/.test(l))
        );
      },
      timeoutMs,
      "pd serve to start",
    );
  } catch (error) {
    // A server that did not start in time is not left running.
    killGroup(run.child);
    throw error;
  }
  const url = /listening on (http:\/\/\S+)/.exec(run.output.stdout)?.[1];
  if (!url) throw new Error(`no URL in: ${run.output.stdout}`);
  const key = /API key:\s+(hl_\S+)/.exec(run.output.stdout)?.[1];
  return { ...run, url, key };
}

/**
 * Stops a server with SIGTERM and resolves with its exit code; one that has not exited after
 * `graceMs` is killed with its process group (and resolves with null: the test fails, the process
 * is gone).
 */
export async function stop(served: Served, graceMs = 30_000): Promise<number | null> {
  served.child.kill("SIGTERM");
  const timer = setTimeout(() => killGroup(served.child), graceMs);
  const code = await served.exited;
  clearTimeout(timer);
  return code;
}

/** A loopback HTTP receiver recording requests. */
export async function receiver() {
  const requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d.toString();
    });
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { requests, url: `http://127.0.0.1:${port}/h`, close: () => new Promise((r) => server.close(r)) };
}

/** Quotes a word for `sh`. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** Whether util-linux `script` (a pseudo-terminal without native modules) is available. */
export const HAS_SCRIPT = spawnSync("script", ["--version"]).status === 0;

/**
 * Runs `pd` on a real pseudo-terminal through util-linux `script`, answering prompts: each
 * answer is typed once the output since the previous answer matches its `when`. Resolves with
 * the exit code and everything the terminal showed.
 */
export async function pdTty(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  answers: Array<{ when: RegExp; type: string }> = [],
  timeoutMs = 20_000,
): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, ...PD_CLIENT_ARGS, ...args].map(shellQuote).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: options.cwd,
    env: { ...options.env, SHELL: "/bin/sh", TERM: "xterm" },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let screen = "";
  let from = 0;
  let next = 0;
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const onOutput = (d: Buffer) => {
    screen += d.toString();
    const answer = answers[next];
    if (answer?.when.test(screen.slice(from))) {
      next++;
      from = screen.length;
      child.stdin?.write(answer.type);
    }
  };
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);
  const timer = setTimeout(() => killGroup(child), timeoutMs);
  const code = await exited;
  clearTimeout(timer);
  child.stdin?.end();
  if (next < answers.length) {
    throw new Error(`pd exited (${code}) before prompt ${next} (${answers[next]?.when}):\n${screen}`);
  }
  return { code, screen };
}

/** A component with every kind of prop `pd deploy` asks for on a terminal. */
export const PROPS_COMPONENT = `export default {
  key: "demo-props-demo",
  name: "Props Demo",
  version: "0.1.0",
  props: {
    http: "$.interface.http",
    count: { type: "integer", label: "Count", min: 1 },
    color: { type: "string", label: "Color", options: ["red", "green", "blue"] },
    region: {
      type: "string",
      label: "Region",
      async options() {
        return [
          { label: "Europe (eu-1)", value: "eu-1" },
          { label: "US (us-1)", value: \`us-1-\${this.color}\` },
        ];
      },
    },
    token: { type: "string", label: "Token", secret: true },
    note: { type: "string", optional: true },
  },
  async run() {
    this.$emit({ count: this.count, color: this.color, region: this.region, tokenLength: this.token.length });
  },
};
`;

/** The webhook secret of `webhookId`, read over the REST API. */
export async function webhookSecret(url: string, key: string, webhookId: string): Promise<string> {
  const res = await fetch(`${url}/v1/webhooks/${webhookId}/secret`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return ((await res.json()) as { data: { secret: string } }).data.secret;
}

/** POSTs JSON to a source's endpoint. */
export async function post(url: string, body: unknown): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  await res.text();
  return res.status;
}

/** A loopback port nothing listens on (a server on it was just closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The fenced blocks of a markdown page (relative to the repository) that a `<!-- test: ROLE -->`
 * line marks, in order: `setup`, `server`, `commands`, `background` (a command left running) or
 * `file NAME` (a file to save).
 */
export function docBlocks(page: string): Array<{ role: string; text: string }> {
  const text = readFileSync(join(ROOT, page), "utf8");
  return [...text.matchAll(/<!-- test: ([^>]+?) -->\n```\w+\n([\s\S]*?)```/g)].map((m) => ({
    role: m[1] as string,
    text: m[2] as string,
  }));
}

/** The command lines of a block (no blank lines, no comments). */
export function commandLines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));
}

/**
 * Shell functions that make `pd` and `npx pd` the built binary (`npx pd` runs the same code through
 * the repository's bin/pd.js, which bin.test.ts covers).
 */
const PD_SHELL = [
  `pd() { "${process.execPath}" ${PD_CLIENT_ARGS.map((a) => `"${a}"`).join(" ")} "$@"; }`,
  'npx() { if [ "$1" = pd ]; then shift; pd "$@"; else command npx "$@"; fi; }',
].join("\n");

/**
 * Starts one documented line in `sh` (its own process group, so `stopGroup` ends what it started),
 * with `pd` and `npx pd` the built binary.
 */
export function startLine(line: string, cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn("sh", ["-c", `${PD_SHELL}\n${line}`], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (d: Buffer) => {
    output.stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    output.stderr += d.toString();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, ...output })),
  );
  // The whole group: `sh` may have exited while what it started runs on.
  const stopGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // The group is gone.
    }
  };
  return { child, output, done, stopGroup };
}

/** Runs one documented line in `sh` to its end, with `pd` and `npx pd` the built binary. */
export function runLine(line: string, cwd: string, env: NodeJS.ProcessEnv) {
  return startLine(line, cwd, env).done;
}

/** A loopback receiver on a fixed port, started when wanted. */
export function receiverOn(port: number) {
  const requests: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d.toString();
    });
    req.on("end", () => {
      requests.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  return {
    requests,
    start: () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve)),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Polls an async check until it is true, or fails after `timeoutMs`. */
export async function waitForAsync(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}
