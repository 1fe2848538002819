/**
 * The guest files' source text: the prelude every context compiles (guest/core.js and
 * guest/api.js) and the shims compiled on first use, each read once per process (per thread).
 */
import { readFileSync } from "node:fs";

/**
 * guest/<name>.js without indentation, blank lines and whole-line comments: QuickJS compiles the
 * prelude in every new context and quickjs-emscripten copies the text into the heap each time, so
 * fewer characters make a mount cheaper. (The guest files have no multi-line strings.)
 */
function readGuest(name: string): string {
  const text = readFileSync(new URL(`./guest/${name}.js`, import.meta.url), "utf8");
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed !== "" && !trimmed.startsWith("//")) lines.push(trimmed);
  }
  return lines.join("\n");
}

let preludeSource: string | undefined;
/** What every context compiles: guest/core.js and guest/api.js (about 0.1 us a character). */
export function prelude(): string {
  preludeSource ??= `(function (hostCall, hostAsync, cfgJson) {\nvar cfg = JSON.parse(cfgJson);\n${readGuest("core")}\n${readGuest("api")}\nreturn GUEST_API;\n})`;
  return preludeSource;
}

/** The guest files compiled on first use (`load(name)` in guest/core.js). */
const SHIMS = new Set(
  (
    "bytes channels clone component console crypto crypto-more crypto-subtle describe events fetch format fs host intl path prop-options stack " +
    "platform process querystring stream timers unavailable url util web " +
    "assert dns http http-message http-request net zlib"
  ).split(" "),
);
/** Guest files generated from npm packages (scripts/vendor-guest.mjs): minified, read as they are. */
const VENDORED = new Set(
  ["buffer", "events", "stream", "string_decoder", "web-streams"].map((name) => `vendor/${name}`),
);
const shimSources = new Map<string, string>();
/** The source of guest/<name>.js, a function expression of the shim scope; read once per process. */
export function shimSource(name: string): string {
  let source = shimSources.get(name);
  if (source === undefined) {
    if (VENDORED.has(name))
      source = readFileSync(new URL(`./guest/${name}.js`, import.meta.url), "utf8").replace(/^\/\/.*\n/, "");
    else if (SHIMS.has(name)) source = readGuest(name);
    else throw new Error(`unknown guest module ${name}`);
    shimSources.set(name, source);
  }
  return source;
}
