// The compatibility corpus: every source and action of the real `@pipedream/*` component packages
// installed as dev dependencies, loaded through the public API as a user would (`pd deploy <file>`'s
// bundling of relative imports, then `components.save` of `createHookline`). Used by the corpus test
// and by `npm run compat`, which prints the figure and the table of docs/compatibility.md.
import { fork } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleComponent } from "@hookline/cli";
import type { Problem } from "@hookline/core";
import { createHookline } from "@hookline/engine";
import { createRuntime, nodeModulesResolver } from "@hookline/runtime";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCOPE = join(ROOT, "node_modules", "@pipedream");

/** Dev dependencies that are not component packages. */
const NOT_COMPONENTS = new Set(["@pipedream/platform", "@pipedream/types"]);

/** One component of the corpus and what loading it gave. */
export interface CorpusResult {
  /** `slack/actions/send-message/send-message.mjs`: the package folder and the file in it. */
  file: string;
  pkg: string;
  ok: boolean;
  key?: string;
  type?: "source" | "action";
  /** The error code when it did not load (`load_failed`, `invalid_component`...). */
  code?: string;
  message?: string;
  warnings: Problem[];
}

/** The `@pipedream/*` component packages of the root package.json's dev dependencies. */
export function corpusPackages(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    devDependencies?: Record<string, string>;
  };
  return Object.keys(pkg.devDependencies ?? {})
    .filter((name) => name.startsWith("@pipedream/") && !NOT_COMPONENTS.has(name))
    .map((name) => name.slice("@pipedream/".length))
    .sort();
}

/**
 * The component files of a package, in Pipedream's layout: `sources/<name>/<name>.mjs` and
 * `actions/<name>/<name>.mjs` (shared code sits in `common/` folders and other file names).
 */
export function componentFiles(pkg: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      if (entry === "node_modules") continue;
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (
        /\.(mjs|js|cjs|ts)$/.test(entry) &&
        !entry.endsWith(".d.ts") &&
        basename(entry, extname(entry)) === basename(dir) &&
        basename(dir) !== "common"
      ) {
        out.push(path);
      }
    }
  };
  for (const kind of ["sources", "actions"]) {
    const dir = join(SCOPE, pkg, kind);
    try {
      if (statSync(dir).isDirectory()) walk(dir);
    } catch {
      // a package without sources or actions
    }
  }
  return out;
}

/** The component files of `packages`, in order, with their package. */
function corpusFiles(packages: string[]): { pkg: string; path: string }[] {
  return packages.flatMap((pkg) => componentFiles(pkg).map((path) => ({ pkg, path })));
}

/**
 * Loads `files` through a fresh engine, `concurrency` saves at a time (bundling is asynchronous and
 * runs in esbuild's own process; evaluating runs on this thread). One result per file, in order.
 */
export async function loadFiles(
  files: { pkg: string; path: string }[],
  concurrency = 4,
): Promise<CorpusResult[]> {
  // Packages come from this repository's node_modules only: the corpus never reaches a registry.
  const runtime = createRuntime({ resolvers: [nodeModulesResolver(ROOT)] });
  const hookline = createHookline({ worker: false, secretsKey: "compat-corpus", runtime });
  const ws = await hookline.workspaces.create({ name: "corpus" });
  const results: CorpusResult[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < files.length; i = next++) {
      const { pkg, path } = files[i] as { pkg: string; path: string };
      const file = relative(SCOPE, path);
      try {
        const bundled = await bundleComponent(path);
        const saved = await hookline.components.save(ws.id, {
          code: bundled.code,
          filename: bundled.filename,
        });
        results[i] = {
          file,
          pkg,
          ok: true,
          type: saved.description.type,
          ...(saved.description.key ? { key: saved.description.key } : {}),
          warnings: saved.description.warnings ?? [],
        };
      } catch (error) {
        const { code, message } = error as { code?: string; message?: string };
        results[i] = { file, pkg, ok: false, code: code ?? "error", message: oneLine(message), warnings: [] };
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await hookline.close();
    await runtime.close();
  }
  return results;
}

/** Options of {@link loadCorpus}. */
export interface LoadCorpusOptions {
  /**
   * How many processes load the corpus side by side (default: the machine's parallelism, at most
   * 4). Each runs its own engine on a share of the files: evaluating components in QuickJS is
   * single-threaded, so this is what spreads the load over the cores.
   */
  processes?: number;
}

/** Loads every component of `packages` and returns one result per file, in order. */
export async function loadCorpus(
  packages = corpusPackages(),
  options: LoadCorpusOptions = {},
): Promise<CorpusResult[]> {
  const files = corpusFiles(packages);
  const processes = Math.max(
    1,
    Math.min(options.processes ?? Math.min(4, availableParallelism()), files.length),
  );
  if (processes === 1) return loadFiles(files);
  // Interleaved shares, so that each process gets some of every package (heavy and light ones).
  const shares = Array.from({ length: processes }, (_, k) => files.filter((_, i) => i % processes === k));
  const parts = await Promise.all(shares.map((share) => loadInChild(share)));
  const results: CorpusResult[] = new Array(files.length);
  parts.forEach((part, k) => {
    part.forEach((result, j) => {
      results[j * processes + k] = result;
    });
  });
  return results;
}

/** Runs {@link loadFiles} on `files` in a child process (see _corpus-child.ts). */
function loadInChild(files: { pkg: string; path: string }[]): Promise<CorpusResult[]> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./_corpus-child.ts", import.meta.url)), [], {
      execArgv: ["--conditions=@hookline/source", "--import", "tsx"],
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    let results: CorpusResult[] | undefined;
    child.on("message", (message) => {
      results = message as CorpusResult[];
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      results ? resolve(results) : reject(new Error(`the corpus child process exited with ${code}`)),
    );
    child.send(files);
  });
}

/** A message on one line, without the bundle's absolute paths. */
function oneLine(message = ""): string {
  return message.replaceAll(ROOT, "").replace(/\s+/g, " ").trim().slice(0, 240);
}
