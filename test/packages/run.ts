/** Child processes and README blocks for the packages test (test/packages.test.ts). */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a user's shell: no npm variables of the `npm test` running this (they would
 * point npm at this repository), no Hookline variables, colour off, npm never asking the network.
 */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) || name.startsWith("HOOKLINE_") || name === "INIT_CWD") continue;
    env[name] = value;
  }
  return { ...env, NO_COLOR: "1", npm_config_offline: "true", npm_config_update_notifier: "false" };
}

/** Starts `line` in `sh` in its own process group (so `stop` ends all it started). */
export function start(
  line: string,
  cwd: string,
  env: Record<string, string> = {},
): { child: ChildProcess; output: Ran; done: Promise<Ran> } {
  const child = spawn("sh", ["-c", line], {
    cwd,
    env: { ...userEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output: Ran = { code: null, stdout: "", stderr: "" };
  child.stdout?.on("data", (d: Buffer) => {
    output.stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output.stderr += d.toString();
  });
  const done = new Promise<Ran>((resolve) =>
    child.on("close", (code) => {
      output.code = code;
      resolve(output);
    }),
  );
  return { child, output, done };
}

/** Runs `line` in `sh` to its end. */
export function run(line: string, cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return start(line, cwd, env).done;
}

/** Ends a started line's process group (SIGTERM) and waits for it. */
export async function stop(started: ReturnType<typeof start>): Promise<Ran> {
  try {
    if (started.child.pid !== undefined) process.kill(-started.child.pid, "SIGTERM");
  } catch {
    // The group is gone.
  }
  return started.done;
}

/** Resolves once `check` holds, or rejects saying what it waited for when `started` ended first. */
export async function until(
  started: ReturnType<typeof start>,
  check: () => boolean,
  what: string,
): Promise<void> {
  while (!check()) {
    if (started.output.code !== null) throw new Error(`${what}: it exited\n${started.output.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A loopback port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Single-quoted for `sh`. */
export function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The fenced blocks of a markdown file that a `<!-- test: ROLE -->` line marks, in order. */
export function markedBlocks(file: string): Array<{ role: string; lang: string; text: string }> {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/<!-- test: ([^>]+?) -->\n```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    role: m[1] as string,
    lang: m[2] as string,
    text: m[3] as string,
  }));
}

/**
 * What an example says it prints: the `// ...` comment after each `console.log(...)`, one output
 * line each, with `...` standing for any text (an id).
 */
export function statedOutput(code: string): RegExp[] {
  return [...code.matchAll(/console\.log\(.*\);? \/\/ (.+)$/gm)].map((m) => {
    const escaped = (m[1] as string).replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll("\\.\\.\\.", ".+");
    return new RegExp(`^${escaped}$`);
  });
}
