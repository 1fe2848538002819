// The figures and tables of docs/compatibility.md, computed from a corpus run: the share that
// loads, per package, and every component that does not load with its reason.
import type { CorpusResult } from "./_corpus.js";

/** The share of components that load (0..1). */
export function loadShare(results: CorpusResult[]): number {
  return results.length === 0 ? 0 : results.filter((r) => r.ok).length / results.length;
}

/** `99.4 %` */
export function percent(share: number): string {
  return `${(Math.floor(share * 1000) / 10).toFixed(1)} %`;
}

/** The headline: how many components load of how many, in how many packages. */
export function figureLine(results: CorpusResult[]): string {
  const packages = new Set(results.map((r) => r.pkg)).size;
  const loaded = results.filter((r) => r.ok).length;
  return `**${loaded} of ${results.length} components load (${percent(loadShare(results))})** across ${packages} packages.`;
}

/** One row per package: sources, actions, loaded, share. */
export function packageTable(results: CorpusResult[]): string {
  const rows = ["| package | components | load | share |", "|---|---|---|---|"];
  const byPkg = new Map<string, CorpusResult[]>();
  for (const r of results) byPkg.set(r.pkg, [...(byPkg.get(r.pkg) ?? []), r]);
  for (const [pkg, list] of [...byPkg].sort(([a], [b]) => a.localeCompare(b))) {
    const ok = list.filter((r) => r.ok).length;
    rows.push(`| \`@pipedream/${pkg}\` | ${list.length} | ${ok} | ${percent(ok / list.length)} |`);
  }
  return rows.join("\n");
}

/** What the failures table says until someone writes why a component fails. */
export const UNEXPLAINED = "(to explain)";

/** The error of a failure as the table shows it: its message, without the load's prefix. */
export function errorText(result: CorpusResult): string {
  return (result.message ?? "").replace(/^The component threw while loading: /, "").replaceAll("|", "\\|");
}

/**
 * The failures table: `| component | code | error | reason |`, sorted by file. The error is this
 * run's; the reason is the one written in the page for that component, or {@link UNEXPLAINED}.
 */
export function failureTable(results: CorpusResult[], reasons: Map<string, string>): string {
  const rows = results
    .filter((r) => !r.ok)
    .sort((a, b) => a.file.localeCompare(b.file))
    .map(
      (r) => `| \`${r.file}\` | \`${r.code}\` | ${errorText(r)} | ${reasons.get(r.file) ?? UNEXPLAINED} |`,
    );
  return ["| component | code | error | reason |", "|---|---|---|---|", ...rows].join("\n");
}

/** The failures the page lists: file -> code, error and reason. */
export function documentedFailures(
  doc: string,
): Map<string, { code: string; error: string; reason: string }> {
  const section = doc.split("<!-- compat:failures -->")[1]?.split("<!-- /compat:failures -->")[0] ?? "";
  const out = new Map<string, { code: string; error: string; reason: string }>();
  for (const match of section.matchAll(/^\| `([^`]+)` \| `([a-z_]+)` \| (.*?) \| ((?:[^|]|\\\|)+?) \|$/gm)) {
    out.set(match[1] ?? "", { code: match[2] ?? "", error: match[3] ?? "", reason: match[4] ?? "" });
  }
  return out;
}
