#!/usr/bin/env node
// `npm run decisions`: writes the table of docs/decisions/README.md from the records themselves
// (each file's `# NNNN. Title` heading and its `Date:` line), so that the index never misses a record.
// `npm run lint:decisions` (`--check`) fails, naming the records, when the index is not what it writes.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = "docs/decisions";
const index = join(dir, "README.md");
const check = process.argv.includes("--check");

/** One table row per record, in number order. */
function rows() {
  const problems = [];
  const out = [];
  for (const file of readdirSync(dir)
    .filter((f) => /^\d{4}-.*\.md$/.test(f))
    .sort()) {
    const text = readFileSync(join(dir, file), "utf8");
    const number = file.slice(0, 4);
    const heading = /^# (\d{4})\. (.+)$/m.exec(text);
    const date = /^Date: (\d{4}-\d{2}-\d{2})/m.exec(text);
    if (!heading || heading[1] !== number)
      problems.push(`${file}: the first heading is not "# ${number}. Title"`);
    if (!date) problems.push(`${file}: no "Date: YYYY-MM-DD" line`);
    if (heading && date)
      out.push(`| [${number}](${file}) | ${heading[2].replaceAll("|", "\\|")} | ${date[1]} |`);
  }
  return { out, problems };
}

const { out, problems } = rows();
const current = readFileSync(index, "utf8");
const start = current.indexOf("| # | decision | date |");
if (start < 0) problems.push(`${index}: no "| # | decision | date |" table`);
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
const next = `${current.slice(0, start)}| # | decision | date |\n|---|---|---|\n${out.join("\n")}\n`;
if (check) {
  if (next !== current) {
    const listed = new Set(current.match(/\]\((\d{4}-[^)]+\.md)\)/g) ?? []);
    const missing = out.filter((row) => !listed.has(/\]\([^)]+\)/.exec(row)?.[0] ?? ""));
    console.error(
      `${index} is not up to date; run \`npm run decisions\`.${missing.length ? `\nNot listed:\n${missing.join("\n")}` : ""}`,
    );
    process.exit(1);
  }
} else {
  writeFileSync(index, next);
  console.log(`${index}: ${out.length} decisions`);
}
