/**
 * Sloppy-mode CommonJS in a strict bundle. An ES module component's bundle runs in strict mode
 * (ES modules are strict on Pipedream too), and the bundle is one script, so the CommonJS
 * packages bundled with it run strict as well, where Node runs them sloppy. The difference that
 * breaks real packages is an assignment to a name nobody declared (`slackify-html`:
 * `entities = new Entities()`): sloppy mode creates a global, strict mode throws
 * `ReferenceError`. So for each CommonJS package file without a `"use strict"` prologue, the
 * names it assigns without declaring are found (acorn parses it, eslint-scope resolves its
 * scopes as Node's module scope), and the bundle declares them on the global object first, which
 * is what sloppy mode would have done on the first assignment. The component's own files are
 * left strict: an undeclared assignment there still throws, as on Pipedream.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { parse } from "acorn";
import { analyze } from "eslint-scope";
import { LRUCache } from "lru-cache";

/** A `"use strict"` directive among the first statements (after comments and a hashbang). */
// One whitespace character per repetition: `(?:\s+|...)*` backtracks exponentially on a long run.
const STRICT_PROLOGUE = /^(?:#![^\n]*\n)?(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*(["'])use strict\1/;
/** A file with no `name =` anywhere cannot assign an undeclared name: not worth parsing. */
const ASSIGNMENT = /(?:^|[^.\w$\s]|\s)[A-Za-z_$][\w$]*\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=(?![=>])/;

/** The names a sloppy CommonJS file assigns without declaring them (none for a strict one). */
export function undeclaredAssignments(code: string): string[] {
  if (STRICT_PROLOGUE.test(code) || !ASSIGNMENT.test(code)) return [];
  try {
    // eslint-scope reads `range` on the nodes; `nodejsScope`: the file is a CommonJS module.
    const ast = parse(code, {
      ecmaVersion: "latest",
      sourceType: "script",
      ranges: true,
      allowHashBang: true,
      allowReturnOutsideFunction: true,
    });
    const scopes = analyze(ast as never, { ecmaVersion: 2022, nodejsScope: true, sourceType: "script" });
    const names = new Set<string>();
    for (const ref of scopes.globalScope?.through ?? []) {
      if (ref.isWrite() && !ref.resolved) names.add(ref.identifier.name);
    }
    return [...names].sort();
  } catch {
    // esbuild bundled it, so this is syntax acorn does not know: the file is left as it is.
    return [];
  }
}

/** Per file path and size (a package version's files do not change in place), what it assigns. */
const seen = new LRUCache<string, string[]>({ max: 5_000 });

/**
 * The undeclared names assigned by the CommonJS package files among `inputs` (esbuild's metafile
 * inputs: path relative to `workingDir`, format `cjs` when esbuild saw CommonJS).
 */
export async function sloppyGlobals(
  inputs: Record<string, { format?: string; bytes: number }>,
  workingDir: string,
): Promise<string[]> {
  const names = new Set<string>();
  for (const [path, input] of Object.entries(inputs)) {
    if (input.format !== "cjs" || !/(^|\/)node_modules\//.test(path) || !/\.c?js$/.test(path)) continue;
    const file = isAbsolute(path) ? path : join(workingDir, path);
    const key = `${file}:${input.bytes}`;
    let found = seen.get(key);
    if (!found) {
      found = undeclaredAssignments(await readFile(file, "utf8").catch(() => ""));
      seen.set(key, found);
    }
    for (const name of found) names.add(name);
  }
  return [...names].sort();
}

/**
 * The statement that declares `names` on the global object unless they are there already, put
 * on the bundle's first line (after the strict-mode banner) so that its source map still holds.
 */
export function declareGlobals(names: string[]): string {
  if (names.length === 0) return "";
  return `(function(g){${JSON.stringify(names)}.forEach(function(n){if(!(n in g))g[n]=void 0;});})(globalThis);`;
}
