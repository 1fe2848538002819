import { describe, expect, it } from "vitest";
import { compareVersions, maxSatisfying, parseSpecifier, satisfies } from "./_semver.js";

describe("satisfies", () => {
  const table: [version: string, range: string, expected: boolean][] = [
    // exact
    ["1.2.3", "1.2.3", true],
    ["1.2.4", "1.2.3", false],
    ["1.2.3", "=1.2.3", true],
    ["1.2.3", "v1.2.3", true],
    // caret
    ["1.9.9", "^1.2.3", true],
    ["1.2.2", "^1.2.3", false],
    ["2.0.0", "^1.2.3", false],
    ["0.2.5", "^0.2.3", true],
    ["0.3.0", "^0.2.3", false],
    ["0.0.3", "^0.0.3", true],
    ["0.0.4", "^0.0.3", false],
    ["1.0.0", "^1", true],
    ["1.99.0", "^1", true],
    ["2.0.0", "^1", false],
    ["1.3.0", "^1.2", true],
    ["0.1.9", "^0.1", true],
    ["0.2.0", "^0.1", false],
    // tilde
    ["1.2.9", "~1.2.3", true],
    ["1.3.0", "~1.2.3", false],
    ["1.2.2", "~1.2.3", false],
    ["1.2.0", "~1.2", true],
    ["1.3.0", "~1.2", false],
    ["1.9.0", "~1", true],
    ["2.0.0", "~1", false],
    // comparators
    ["1.0.0", ">=1.0.0", true],
    ["0.9.9", ">=1.0.0", false],
    ["1.9.9", "<2", true],
    ["2.0.0", "<2", false],
    ["2.0.1", ">2.0.0", true],
    ["2.0.0", ">2.0.0", false],
    ["2.5.0", ">2", false],
    ["3.0.0", ">2", true],
    ["2.9.0", "<=2", true],
    ["3.0.0", "<=2", false],
    ["1.5.0", ">=1.2.0 <2.0.0", true],
    ["2.0.0", ">=1.2.0 <2.0.0", false],
    ["1.5.0", ">= 1.2.0 < 2.0.0", true],
    // x-ranges and partial versions
    ["1.2.0", "1.2", true],
    ["1.2.99", "1.2", true],
    ["1.3.0", "1.2", false],
    ["1.9.0", "1", true],
    ["2.0.0", "1", false],
    ["1.4.2", "1.x", true],
    ["2.0.0", "1.x", false],
    ["1.2.7", "1.2.x", true],
    ["1.3.0", "1.2.x", false],
    ["1.2.7", "1.2.*", true],
    // or
    ["1.5.0", "^1 || ^3", true],
    ["2.5.0", "^1 || ^3", false],
    ["3.0.0", "^1 || ^3", true],
    ["4.0.0", "1.0.0 || 4.0.0", true],
    // hyphen ranges
    ["1.2.3", "1.2.3 - 2.3.4", true],
    ["2.3.4", "1.2.3 - 2.3.4", true],
    ["2.3.5", "1.2.3 - 2.3.4", false],
    ["1.2.2", "1.2.3 - 2.3.4", false],
    ["2.9.0", "1 - 2", true],
    ["3.0.0", "1 - 2", false],
    // prereleases match only an exact (prerelease) range
    ["2.0.0-beta.1", "2.0.0-beta.1", true],
    ["2.0.0-beta.2", "2.0.0-beta.1", false],
    ["2.0.0-beta.1", "^1", false],
    ["2.0.0-beta.1", ">=1.0.0", false],
    ["2.0.0-beta.1", "*", false],
    ["2.0.0-beta.1", "latest", false],
    ["2.0.0-beta.1", "", false],
    // anything
    ["9.9.9", "*", true],
    ["0.0.1", "latest", true],
    ["3.1.4", "", true],
    ["3.1.4", "x", true],
    // not a version, or not a range
    ["not-a-version", "*", false],
    ["1.2.3", "garbage", false],
  ];
  it.each(table)("%s satisfies %j: %s", (version, range, expected) => {
    expect(satisfies(version, range)).toBe(expected);
  });
});

describe("maxSatisfying", () => {
  const versions = ["1.0.0", "1.2.0", "1.10.0", "2.0.0-rc.1", "2.0.0", "2.1.3", "3.0.0-alpha"];
  const table: [range: string, expected: string | undefined][] = [
    ["^1", "1.10.0"],
    ["~1.2", "1.2.0"],
    ["1.0.0", "1.0.0"],
    ["^2", "2.1.3"],
    [">=2 <2.1", "2.0.0"],
    ["2.0.0-rc.1", "2.0.0-rc.1"],
    ["*", "2.1.3"],
    ["latest", "2.1.3"],
    ["", "2.1.3"],
    ["^3", undefined],
    ["^4", undefined],
    ["1.0.0 - 1.5.0", "1.2.0"],
    ["^1 || ^2", "2.1.3"],
  ];
  it.each(table)("%j -> %s", (range, expected) => {
    expect(maxSatisfying(versions, range)).toBe(expected);
  });

  it("orders numerically and puts a prerelease before its release", () => {
    expect(compareVersions("1.10.0", "1.9.0")).toBeGreaterThan(0);
    expect(compareVersions("2.0.0-rc.1", "2.0.0")).toBeLessThan(0);
    expect(compareVersions("2.0.0", "2.0.0")).toBe(0);
  });
});

describe("parseSpecifier", () => {
  const table: [spec: string, name: string, range: string, subpath: string][] = [
    ["pkg", "pkg", "", ""],
    ["pkg@1.2.3", "pkg", "1.2.3", ""],
    ["pkg@~1.2", "pkg", "~1.2", ""],
    ["pkg@^1", "pkg", "^1", ""],
    ["pkg@latest", "pkg", "latest", ""],
    ["pkg/sub/path.js", "pkg", "", "sub/path.js"],
    ["pkg@^2/sub", "pkg", "^2", "sub"],
    ["@scope/pkg", "@scope/pkg", "", ""],
    ["@scope/pkg@1", "@scope/pkg", "1", ""],
    ["@scope/pkg@^1/sub/path", "@scope/pkg", "^1", "sub/path"],
    ["@scope/pkg/sub/x.js", "@scope/pkg", "", "sub/x.js"],
    ["@scope/pkg@>=1.2.0/sub", "@scope/pkg", ">=1.2.0", "sub"],
  ];
  it.each(table)("%s", (spec, name, range, subpath) => {
    expect(parseSpecifier(spec)).toEqual({ name, range, subpath });
  });
});
