// The open compatibility corpus: every source and action of the real `@pipedream/*` packages in the
// root package.json's dev dependencies, bundled as `pd deploy <file>` bundles it and saved through
// `createHookline`. At least 99 % must load, and docs/compatibility.md must list exactly the
// components that do not (with the error code of this run), so the page cannot drift.
// `npm run compat` prints the same figures; `npm run compat -- --write` updates the page.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type CorpusResult, corpusPackages, loadCorpus, ROOT } from "./_corpus.js";
import {
  documentedFailures,
  errorText,
  figureLine,
  loadShare,
  packageTable,
  UNEXPLAINED,
} from "./_report.js";

const TARGET = 0.99;
const doc = readFileSync(join(ROOT, "docs", "compatibility.md"), "utf8");
let results: CorpusResult[] = [];

beforeAll(async () => {
  results = await loadCorpus();
}, 900_000); // generous for a loaded machine; a quiet one takes well under a minute

describe("compatibility corpus", () => {
  it("has the packages of the root package.json, each with components", () => {
    const packages = corpusPackages();
    expect(packages.length).toBeGreaterThanOrEqual(20);
    for (const pkg of packages) {
      expect(results.filter((r) => r.pkg === pkg).length, pkg).toBeGreaterThan(0);
    }
    expect(results.filter((r) => r.type === "source").length).toBeGreaterThan(50);
    expect(results.filter((r) => r.type === "action").length).toBeGreaterThan(200);
  });

  it(`loads at least ${TARGET * 100} % of the components`, () => {
    expect(loadShare(results)).toBeGreaterThanOrEqual(TARGET);
  });

  it("lists every component that does not load in docs/compatibility.md, with this run's error and a reason, and nothing else", () => {
    const listed = documentedFailures(doc);
    const failed = new Map(results.filter((r) => !r.ok).map((r) => [r.file, `${r.code}: ${errorText(r)}`]));
    expect(new Map([...listed].map(([file, { code, error }]) => [file, `${code}: ${error}`]))).toEqual(
      failed,
    );
    for (const [file, { reason }] of listed) {
      expect(reason, file).not.toBe(UNEXPLAINED);
      expect(reason.trim().length, file).toBeGreaterThan(20);
    }
  });

  it("shows this run's figure and package table in docs/compatibility.md", () => {
    expect(doc).toContain(figureLine(results));
    expect(doc).toContain(packageTable(results));
  });

  it("gives every loaded component its key, and only warnings with a code and a path", () => {
    for (const r of results.filter((x) => x.ok)) {
      expect(r.key, r.file).toMatch(/^[a-z0-9_]+-[a-z0-9_-]+$/);
      for (const w of r.warnings) expect([w.code, w.path].every(Boolean), r.file).toBe(true);
    }
  });
});
