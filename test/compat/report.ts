// `npm run compat`: loads the compatibility corpus and prints the figure, the table per package and
// every component that does not load. `npm run compat -- --write` also rewrites the generated
// parts of docs/compatibility.md (between its `<!-- compat:... -->` markers), keeping the reasons
// written there for components that still fail.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadCorpus, ROOT } from "./_corpus.js";
import { documentedFailures, failureTable, figureLine, packageTable } from "./_report.js";

const DOC = join(ROOT, "docs", "compatibility.md");

function replaceBlock(doc: string, name: string, body: string): string {
  const start = `<!-- compat:${name} -->`;
  const end = `<!-- /compat:${name} -->`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/compatibility.md has no ${start} ... ${end} block`);
  return `${doc.slice(0, from + start.length)}\n${body}\n${doc.slice(to)}`;
}

const started = Date.now();
const results = await loadCorpus();
const doc = readFileSync(DOC, "utf8");
const reasons = new Map([...documentedFailures(doc)].map(([file, { reason }]) => [file, reason]));
const failures = failureTable(results, reasons);
const failed = results.filter((r) => !r.ok).length;

console.log(figureLine(results));
console.log(`(loaded in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
console.log(packageTable(results));
console.log(`\n${failed === 0 ? "Every component loads." : failures}`);
if (process.argv.includes("--write")) {
  let next = replaceBlock(doc, "figure", figureLine(results));
  next = replaceBlock(next, "packages", packageTable(results));
  next = replaceBlock(next, "failures", failures);
  writeFileSync(DOC, next);
  console.log(`\nwrote ${DOC}`);
}
process.exit(0);
