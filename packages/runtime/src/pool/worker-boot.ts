/**
 * How a pool thread starts: from the build, `dist/pool-worker.js`. From the TypeScript sources
 * (`npm start` and `npx pd` in a checkout without a current build, benchmarks, tests), the worker code is bundled once per process with esbuild into
 * one JavaScript file (the workspace packages and most npm packages inside), so that neither
 * the first threads nor their replacements compile TypeScript: a replaced thread starts in tens of
 * milliseconds instead of seconds. Without esbuild, each thread registers tsx and imports the
 * sources (the slow way).
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { WorkerOptions } from "node:worker_threads";

/** True when running from the TypeScript sources (tests, `npm start`), false from the build. */
const SOURCE = import.meta.url.endsWith(".ts");

/** What `new Worker(...)` takes to start a pool thread. */
export interface WorkerBoot {
  entry: URL | string;
  options: WorkerOptions;
}

let boot: WorkerBoot | undefined;

/** How to start a pool thread in this process (worked out once). */
export function workerBoot(): WorkerBoot {
  boot ??= SOURCE
    ? (bundledSourceBoot() ?? { entry: tsxBoot(), options: { eval: true, execArgv: sourceExecArgv() } })
    : { entry: new URL("./pool-worker.js", import.meta.url), options: {} };
  return boot;
}

/**
 * Bundles worker.ts and the workspace sources it imports into
 * `packages/runtime/node_modules/.cache/hookline-pool/worker-<hash>.mjs` (the `EXTERNAL` packages
 * resolve from there as from the sources). `import.meta.url` is the sandbox folder's, where the
 * guest files are read from. Undefined when esbuild is not installed or fails.
 */
function bundledSourceBoot(): WorkerBoot | undefined {
  try {
    const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
    const here = new URL("../sandbox/_guest-source.ts", import.meta.url).href;
    const built = esbuild.buildSync({
      entryPoints: [fileURLToPath(new URL("./worker.ts", import.meta.url))],
      bundle: true,
      write: false,
      format: "esm",
      platform: "node",
      target: "node20",
      conditions: ["@hookline/source"],
      define: { "import.meta.url": JSON.stringify(here) },
      external: EXTERNAL,
      logLevel: "silent",
    });
    const code = built.outputFiles[0]?.text;
    if (!code) return undefined;
    const dir = new URL("../../node_modules/.cache/hookline-pool/", import.meta.url);
    const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
    const file = new URL(`worker-${hash}.mjs`, dir);
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true });
      // Unique: test runners start several runtimes at once, in one process or several.
      const temp = new URL(`worker-${hash}.${randomUUID()}.tmp`, dir);
      writeFileSync(temp, code);
      renameSync(temp, file);
    }
    return { entry: file, options: { execArgv: withoutLoaders() } };
  } catch (error) {
    if (process.env.HOOKLINE_POOL_DEBUG) console.error("pool worker bundle failed", error);
    return undefined;
  }
}

/**
 * What stays an import in the bundled worker: QuickJS (it finds its WebAssembly file next to its
 * own code) and packages loaded at run time. Everything else (TypeBox, cron-parser, lru-cache, the
 * workspace packages) is inside: importing TypeBox's hundreds of files took half a second per thread
 * on a loaded machine.
 */
const EXTERNAL = ["quickjs-emscripten", "@jitl/*", "esbuild", "esbuild-wasm", "memfs", "tsx"];

const tsxDir = () =>
  createRequire(import.meta.url)
    .resolve("tsx/package.json")
    .replace(/package\.json$/, "");

/**
 * The worker registers tsx itself before importing worker.ts: on Node 20, tsx's `--import` hooks
 * are set up in the main thread only.
 */
function tsxBoot(): string {
  const api = pathToFileURL(`${tsxDir()}dist/esm/api/index.mjs`).href;
  const entry = new URL("./worker.ts", import.meta.url).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
}

/** Flags that load modules or pick export conditions, with their value in the next argument. */
const MODULE_FLAGS = /^(--import|--require|-r|--loader|--experimental-loader|--conditions|-C)$/;

/**
 * The process's Node flags without those that load modules or pick export conditions (whichever
 * they are: a TypeScript loader, a test runner's hooks...): the bundled worker is plain, complete
 * JavaScript, and the tsx boot registers its own loader.
 */
function withoutLoaders(): string[] {
  const args: string[] = [];
  const given = process.execArgv;
  for (let i = 0; i < given.length; i++) {
    const arg = given[i] as string;
    if (MODULE_FLAGS.test(arg)) i++;
    else if (!MODULE_FLAGS.test(arg.split("=")[0] as string)) args.push(arg);
  }
  return args;
}

/** For the tsx boot: the condition that picks workspace sources, with the process's other flags. */
function sourceExecArgv(): string[] {
  return [...withoutLoaders(), "--conditions=@hookline/source"];
}
