// `npm run compat:run [-- pkg ...]`: deploys every source and runs every action of the corpus
// (test/compat/_run-corpus.ts), prints the share that behaves, for components that import npm
// packages and for self-contained ones, and groups the rest by cause. `--sdk` keeps to the
// packages that import npm packages; `--limit N` takes N components per package; `--match TEXT`
// only the components whose path contains TEXT. Each package runs in a child process of its own.
import { corpusPackages } from "./_corpus.js";
import { type RunResult, runCorpusIsolated } from "./_run-corpus.js";

const args = process.argv.slice(2);
const limitAt = args.indexOf("--limit");
const limit = limitAt >= 0 ? Number(args[limitAt + 1]) : undefined;
const matchAt = args.indexOf("--match");
const match = matchAt >= 0 ? args[matchAt + 1] : undefined;
const named = args.filter(
  (a, i) => !a.startsWith("--") && (limitAt < 0 || i !== limitAt + 1) && (matchAt < 0 || i !== matchAt + 1),
);
const packages = named.length > 0 ? named : corpusPackages();
const started = Date.now();
const results = await runCorpusIsolated(packages, {
  ...(limit ? { limit } : {}),
  ...(match ? { match } : {}),
  onResult: (r) =>
    process.stderr.write(`${r.behaves ? "ok  " : "FAIL"} ${r.file} ${r.behaves ? r.outcome : r.message}\n`),
});
const sdkOnly = args.includes("--sdk");

function share(list: RunResult[], label: string): string {
  const ok = list.filter((r) => r.behaves).length;
  const pct = list.length ? ((100 * ok) / list.length).toFixed(1) : "-";
  return `${label}: ${ok} of ${list.length} behave (${pct} %)`;
}
const groups = [
  ["import npm packages", results.filter((r) => r.sdk)],
  ["self-contained", sdkOnly ? [] : results.filter((r) => !r.sdk)],
] as const;
for (const [label, list] of groups) {
  if (list.length === 0) continue;
  console.log(share(list, label));
  console.log(
    share(
      list.filter((r) => r.kind === "source"),
      `  sources`,
    ),
  );
  console.log(
    share(
      list.filter((r) => r.kind !== "source"),
      `  actions`,
    ),
  );
}
const causes = new Map<string, RunResult[]>();
for (const r of results.filter((x) => !x.behaves))
  causes.set(r.outcome, [...(causes.get(r.outcome) ?? []), r]);
console.log("\n| cause | count | examples |\n|---|---|---|");
for (const [cause, list] of [...causes].sort((a, b) => b[1].length - a[1].length))
  console.log(
    `| ${cause.replaceAll("|", "\\|")} | ${list.length} | ${list
      .slice(0, 3)
      .map((r) => `\`${r.file.split("/").slice(0, 3).join("/")}\``)
      .join(", ")} |`,
  );
const outcomes = new Map<string, number>();
for (const r of results) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
console.log(
  `\n(${results.length} components in ${((Date.now() - started) / 1000).toFixed(0)} s; ok ${outcomes.get("ok") ?? 0}, reached the API ${outcomes.get("api") ?? 0}, refused their placeholder input ${outcomes.get("input") ?? 0})`,
);
process.exit(0);
