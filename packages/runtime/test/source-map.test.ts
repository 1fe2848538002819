import { describe, expect, it } from "vitest";
import { createStackMapper, decodedMapCount } from "../src/sandbox/_source-map.js";
import { testRuntime } from "./_helpers.js";

/** A bundle of `lines` generated lines with an inline map of `segments` segments on its first line. */
function bundleWithMap(name: string, segments: number): string {
  const map = {
    version: 3,
    sources: [`hookline:/component/${name}.mjs`],
    sourcesContent: ["x".repeat(1000)],
    mappings: `AAAA;${"AAAA,".repeat(segments - 2)}AAAA;AACA`,
  };
  const data = Buffer.from(JSON.stringify(map)).toString("base64");
  return `throw 1;\n\nthrow 2;\n//# sourceMappingURL=data:application/json;base64,${data}`;
}

describe("stack mapping", () => {
  it("maps a real bundle's frames to the component's own file and line", async () => {
    const runtime = testRuntime();
    try {
      const code = [
        "export default {",
        "  name: 'T', version: '0.1.0',",
        "  run() {",
        "    throw new Error('x');",
        "  },",
        "};",
      ].join("\n");
      const { bundle } = await runtime.load({ code, filename: "mapped.mjs" });
      const frame = `    at run (component.bundle.js:${bundle.split("\n").findIndex((l) => l.includes("new Error")) + 1}:11)`;
      const map = createStackMapper(bundle, "component.bundle.js", 0);
      expect(map(`Error: x\n${frame}`)).toMatch(/^Error: x\n {4}at run \(mapped\.mjs:4:\d+\)$/);
      // A stack without a frame of the bundle is left as it is, its sandbox frames dropped.
      expect(map("Error: y\n    at dispatch (hookline:prelude.js:1:1)\n    at f (other.js:1:1)")).toBe(
        "Error: y\n    at f (other.js:1:1)",
      );
    } finally {
      await runtime.close();
    }
  });

  it("keeps decoded maps in one bounded cache, not in each mapper", () => {
    const before = decodedMapCount();
    const code = bundleWithMap("shared", 10);
    const a = createStackMapper(code, "b.js", 0);
    const b = createStackMapper(code, "b.js", 0);
    expect(a("E\n    at f (b.js:3:1)")).toBe("E\n    at f (shared.mjs:2:1)");
    expect(b("E\n    at f (b.js:3:1)")).toBe("E\n    at f (shared.mjs:2:1)");
    // Two mappers of one bundle: one decoded map.
    expect(decodedMapCount()).toBe(before + 1);
    // Three bundles of 1.5 million segments each: the cache (4 million segments) keeps two.
    const mappers = ["big1", "big2", "big3"].map(
      (n) => [n, createStackMapper(bundleWithMap(n, 1_500_000), "b.js", 0)] as const,
    );
    for (const [name, map] of mappers)
      expect(map("E\n    at f (b.js:3:1)")).toBe(`E\n    at f (${name}.mjs:2:1)`);
    expect(decodedMapCount()).toBeLessThanOrEqual(before + 3);
    // A mapper whose map was evicted decodes it again.
    expect(mappers[0]?.[1]("E\n    at f (b.js:1:1)")).toBe("E\n    at f (big1.mjs:1:1)");
  }, 60_000);
});
