/**
 * Builds the web application with Vite when `dist/app` is missing or older than its sources. The
 * root `prestart` runs it, so `npm install && npm start` on a fresh clone serves the UI (a build
 * takes a few seconds and needs no network); the browser tests call it too.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
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

/** Builds the app unless it is up to date; resolves with what it did. */
export async function ensureUiBuilt(): Promise<"fresh" | "built"> {
  if (!uiBuildIsStale()) return "fresh";
  const { build } = await import("vite");
  await build({ configFile: join(here, "vite.config.ts"), logLevel: "warn" });
  return "built";
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const result = await ensureUiBuilt();
  if (result === "built")
    console.error(`web UI built into packages/ui/dist/app in ${Date.now() - started} ms`);
}
