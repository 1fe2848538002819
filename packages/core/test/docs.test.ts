// docs/errors.md is the user-facing list of codes: it must name every code with its status.
import { readFileSync } from "node:fs";
import { ERROR_CODES, PROBLEM_CODES } from "@hookline/core";
import { describe, expect, it } from "vitest";

const page = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8");
const [errorSection = "", problemSection = ""] = page.split("## Problem codes");
const table = (section: string) =>
  new Map(
    [...section.matchAll(/^\| `([a-z_]+)`\s*\|\s*([^|]+?)\s*\|/gm)].map((match) => [
      match[1] ?? "",
      match[2]?.trim(),
    ]),
  );
const errors = table(errorSection);
const problems = table(problemSection);

describe("docs/errors.md", () => {
  it.each(Object.entries(ERROR_CODES))("lists error code %s with status %i", (code, status) => {
    expect(errors.get(code)).toBe(String(status));
  });

  it.each(Object.keys(PROBLEM_CODES))("lists problem code %s", (code) => {
    expect(problems.has(code)).toBe(true);
  });

  it("lists no code that does not exist", () => {
    for (const code of errors.keys()) expect(code in ERROR_CODES).toBe(true);
    for (const code of problems.keys()) expect(code in PROBLEM_CODES).toBe(true);
  });
});
