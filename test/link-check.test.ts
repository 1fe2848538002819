// scripts/check-links.mjs (`npm run lint:links`) on a fixture: GitHub's heading slugs (inline code,
// punctuation, repeated headings), HTML anchors, files and images; each broken link named with its
// page and line.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../scripts/check-links.mjs", import.meta.url));

function check(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "links-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: "utf8" });
  return { code: run.status, out: `${run.stdout}${run.stderr}` };
}

const GUIDE = [
  "# Guide",
  "## 5. Run a receiver (terminal 3)",
  "## `pd serve`",
  "## Errors: `$errors`",
  "## Limits",
  "## Limits",
  '<a id="kept"></a>',
  "![shot](ui/shot.png)",
  "",
].join("\n\n");

describe("the link check", () => {
  it("accepts links to files and to headings by GitHub's slugs", () => {
    const result = check({
      "README.md":
        "See [a](docs/guide.md#5-run-a-receiver-terminal-3), [b](docs/guide.md#pd-serve), [c](https://example.com/x#y).\n",
      "docs/guide.md": `${GUIDE}[d](#errors-errors) [e](#limits-1) [f](#kept) [g](../README.md) [h](guide.md)\n\n| t |\n|---|\n| [i](#limits) |\n`,
      "docs/ui/shot.png": "png",
    });
    expect(result.out).toContain("every relative link and anchor resolves");
    expect(result.code).toBe(0);
  });

  it("names each missing file, heading and image with its page and line", () => {
    const result = check({
      "README.md": "One [a](docs/gone.md).\n\nTwo [b](docs/guide.md#limits-2)\n",
      "docs/guide.md": `${GUIDE}| t |\n|---|\n| [c](#concurrency-one-invocation) |\n\n![x](ui/missing.png)\n`,
    });
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^5 broken links:$/m);
    expect(result.out.split("\n").filter((l) => l.includes(": "))).toEqual([
      "README.md:1: docs/gone.md: no file docs/gone.md",
      "README.md:3: docs/guide.md#limits-2: no heading #limits-2 in docs/guide.md",
      "docs/guide.md:15: ui/shot.png: no file docs/ui/shot.png",
      "docs/guide.md:19: #concurrency-one-invocation: no heading #concurrency-one-invocation in docs/guide.md",
      "docs/guide.md:21: ui/missing.png: no file docs/ui/missing.png",
    ]);
  });
});
