/**
 * Builds the web application with Vite when `dist/app` is missing or older than its sources. The
 * root `prestart` runs it, so `npm install && npm start` on a fresh clone serves the UI (a build
 * takes a few seconds and needs no network); the browser tests call it too.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether the built app is missing or older than `app/`, `vite.config.ts` or `package.json`. */
export function uiBuildIsStale(): boolean {
  let built: number;
  try {
    built = statSync(join(here, "dist/app/index.html")).mtimeMs;
  } catch {
    return true;
  }
  const sources = Math.max(
    newest(join(here, "app")),
    newest(join(here, "vite.config.ts")),
    newest(join(here, "package.json")),
  );
  return sources > built;
}

const LOCK = join(here, "node_modules/.ui-build-lock");

/** Takes the build lock (a folder: creating it is atomic); a lock older than 2 minutes is stale. */
async function lock(): Promise<() => void> {
  mkdirSync(dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch {
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }
}

/**
 * Builds the app unless it is up to date; resolves with what it did. Concurrent callers (test
 * files running in parallel, two `npm start`) build once: the others wait for the lock and find
 * the build fresh.
 */
export async function ensureUiBuilt(): Promise<"fresh" | "built"> {
  if (!uiBuildIsStale()) return "fresh";
  const release = await lock();
  try {
    if (!uiBuildIsStale()) return "fresh";
    const { build } = await import("vite");
    await build({ configFile: join(here, "vite.config.ts"), logLevel: "warn" });
    return "built";
  } finally {
    release();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const result = await ensureUiBuilt();
  if (result === "built")
    console.error(`web UI built into packages/ui/dist/app in ${Date.now() - started} ms`);
}
