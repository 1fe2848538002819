/** Helpers driving the real `pd` binary (from sources, through tsx) as child processes. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");

/** The node arguments that run `pd` from its TypeScript sources. */
export const PD_NODE_ARGS = ["--conditions=@hookline/source", "--import", TSX, BIN];

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

/** Starts `pd` with `args`; the child, and its output so far. */
export function spawnPd(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(process.execPath, [...PD_NODE_ARGS, ...args], {
    ...options,
    stdio: ["ignore", "pipe", "pipe"],
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
  const url = /listening on (http:\/\/\S+)/.exec(run.output.stdout)?.[1];
  if (!url) throw new Error(`no URL in: ${run.output.stdout}`);
  const key = /API key:\s+(hl_\S+)/.exec(run.output.stdout)?.[1];
  return { ...run, url, key };
}

/** Stops a server with SIGTERM and resolves with its exit code. */
export async function stop(served: Served): Promise<number | null> {
  served.child.kill("SIGTERM");
  return served.exited;
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
