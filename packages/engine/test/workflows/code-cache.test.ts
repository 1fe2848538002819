import type { ComponentDescription } from "@hookline/core";
import { describe, expect, it } from "vitest";
import { type LoadedCode, rememberCode } from "../../src/workflows/code-cache.js";

const description = { type: "action", props: {} } as unknown as ComponentDescription;
const code = (chars: number): LoadedCode => ({ bundle: "x".repeat(chars), description });

describe("the code steps a node keeps", () => {
  it("drops the oldest past the count", () => {
    const cache = new Map<string, LoadedCode>();
    for (const hash of ["a", "b", "c", "d"]) rememberCode(cache, hash, code(1), { count: 3, chars: 100 });
    expect([...cache.keys()]).toEqual(["b", "c", "d"]);
  });

  it("drops the oldest past the bundles' total size, and keeps the newest even when it alone is over", () => {
    const cache = new Map<string, LoadedCode>();
    rememberCode(cache, "a", code(40), { count: 10, chars: 100 });
    rememberCode(cache, "b", code(40), { count: 10, chars: 100 });
    rememberCode(cache, "c", code(40), { count: 10, chars: 100 });
    expect([...cache.keys()]).toEqual(["b", "c"]);
    rememberCode(cache, "d", code(150), { count: 10, chars: 100 });
    expect([...cache.keys()]).toEqual(["d"]);
  });

  it("counts a hash loaded again once, as the newest", () => {
    const cache = new Map<string, LoadedCode>();
    for (const hash of ["a", "b", "a", "c"]) rememberCode(cache, hash, code(10), { count: 2, chars: 100 });
    expect([...cache.keys()]).toEqual(["a", "c"]);
  });
});
