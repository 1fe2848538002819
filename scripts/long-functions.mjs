#!/usr/bin/env node
import { readdirSync, readFileSync, statSync } from "node:fs";
// Lists the production functions longer than N lines (issue 30's "functions over 100 lines"):
// declarations, expressions, arrows, methods, accessors and constructors whose text spans more
// than N lines (first line of the node to its last, inclusive), parsed with the TypeScript compiler.
// Reads packages/*/src/**/*.{ts,tsx,js,mjs} (no *.test.*, no .d.ts); the stores' conformance suite
// and the sandbox guest modules' whole-file wrappers are not production functions (`--all` lists
// them too). Usage: node scripts/long-functions.mjs [root=.] [N=100] [--all]. Reports; never fails.
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";

const root = resolve(process.argv.slice(2).find((a) => !/^(\d+|--all)$/.test(a)) ?? ".");
const limit = Number(process.argv.slice(3).find((a) => /^\d+$/.test(a)) ?? 100);
const ts = createRequire(join(root, "package.json"))("typescript");
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(ts|tsx|js|mjs)$/.test(name) && !/\.test\.|\.d\.ts$/.test(name)) files.push(p);
  }
};
for (const pkg of readdirSync(join(root, "packages"))) {
  try {
    walk(join(root, "packages", pkg, "src"));
  } catch {}
}
const rows = [];
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : undefined,
  );
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const a = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const b = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = b - a + 1;
      if (lines > limit) {
        let name = node.name?.getText(sf);
        if (!name && ts.isVariableDeclaration(node.parent)) name = node.parent.name.getText(sf);
        if (!name && ts.isPropertyAssignment(node.parent)) name = node.parent.name.getText(sf);
        rows.push([lines, `${relative(root, file)}:${a + 1}`, name ?? "(anonymous)"]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
rows.sort((x, y) => y[0] - x[0]);
// Not production code: the stores' conformance suite (tests shipped as code), and the whole-file
// wrappers `(function () { ... })()` of the sandbox's guest modules (a file, not a function).
const notProduction = (r) =>
  r[1].startsWith("packages/store/src/testing/") ||
  (r[1].startsWith("packages/runtime/src/sandbox/guest/") && r[2] === "(anonymous)");
const production = rows.filter((r) => !notProduction(r));
for (const r of process.argv.includes("--all") ? rows : production) console.log(r.join("\t"));
console.log(
  `${production.length} production functions over ${limit} lines (${rows.length} with the conformance suite and guest wrappers) in ${files.length} files`,
);
