/**
 * Bundling reuses esbuild contexts and remembers where packages' own imports resolved: what a
 * bundle contains, the packages it reports and the errors it gives must be the same as a build
 * from scratch, and upgrading a package in `node_modules` must show in the next bundle.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ResolutionCache } from "../src/bundler/_resolution-cache.js";
import { type Bundler, createBundler, createRuntime, nodeModulesResolver } from "../src/index.js";

const tmp = mkdtempSync(join(tmpdir(), "hookline-reuse-"));
const bundlers: Bundler[] = [];
afterAll(async () => {
  for (const bundler of bundlers) await bundler.close();
  rmSync(tmp, { recursive: true, force: true });
});

function writePackage(
  root: string,
  name: string,
  pkg: Record<string, unknown>,
  files: Record<string, string>,
) {
  const dir = join(root, "node_modules", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, ...pkg }));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
}

/** `wrap` (which imports `inner`, as a package's own dependency) at `root`, with `inner@version`. */
function project(name: string, innerVersion: string, innerMain: string): string {
  const root = join(tmp, name);
  writePackage(
    root,
    "wrap",
    { version: "1.0.0", main: "index.js", dependencies: { inner: "*" } },
    {
      "index.js": 'const inner = require("inner");\nmodule.exports = (x) => inner + ":" + x;\n',
    },
  );
  writePackage(
    root,
    "inner",
    { version: innerVersion, main: innerMain },
    {
      "one.js": 'module.exports = "one";\n',
      "two.js": 'module.exports = "two";\n',
    },
  );
  return root;
}

/** A component using `wrap`; `tag` makes the source (and so the bundle cache key) differ. */
const component = (tag: string) => `import wrap from "wrap";
export default { name: "Reuse ${tag}", version: "0.1.0", props: {}, async run() { this.$emit(wrap("${tag}")); } };
`;

async function bundler(root: string, contexts?: number): Promise<Bundler> {
  const made = await createBundler({
    resolvers: [nodeModulesResolver(root)],
    ...(contexts === undefined ? {} : { contexts }),
  });
  bundlers.push(made);
  return made;
}

/** Runs a bundle once and returns what it emitted. */
async function emits(code: string): Promise<unknown> {
  const runtime = createRuntime();
  try {
    const mounted = await runtime.mount({ id: "dc_reuse", bundle: code, props: {} });
    const result = await mounted.run({});
    expect(result.error).toBeUndefined();
    return result.emits[0]?.event;
  } finally {
    await runtime.close();
  }
}

describe("bundling with reused contexts", () => {
  it("gives the same bundles, hashes and packages as building each from scratch, also at once", async () => {
    const root = project("same", "1.0.0", "one.js");
    const reused = await bundler(root, 1);
    const scratch = await bundler(root, 0);
    const inputs = ["a", "b", "c", "d", "e"].map((tag) => ({ code: component(tag), filename: "c.mjs" }));
    const fresh = [];
    for (const input of inputs) fresh.push(await scratch.bundle(input));
    // More builds at once than contexts: each keeps its own files and packages.
    const together = await Promise.all(inputs.map((input) => reused.bundle(input)));
    expect(together.map((o) => [o.hash, o.packages])).toEqual(fresh.map((o) => [o.hash, o.packages]));
    expect(together[0]?.packages).toEqual([{ name: "wrap", version: "1.0.0" }]);
    expect(await emits(together[2]?.code ?? "")).toBe("one:c");
  });

  it("sees a package upgraded in node_modules in the next bundle", async () => {
    const root = project("upgrade", "1.0.0", "one.js");
    const b = await bundler(root);
    expect(await emits((await b.bundle({ code: component("v1"), filename: "c.mjs" })).code)).toBe("one:v1");
    // inner@2 points its main at another file; the old one is still there.
    writePackage(
      root,
      "inner",
      { version: "2.0.0", main: "two.js" },
      {
        "one.js": 'module.exports = "one";\n',
        "two.js": 'module.exports = "two";\n',
      },
    );
    writePackage(
      root,
      "wrap",
      { version: "1.1.0", main: "index.js" },
      {
        "index.js": 'const inner = require("inner");\nmodule.exports = (x) => inner + "+" + x;\n',
      },
    );
    const after = await b.bundle({ code: component("v2"), filename: "c.mjs" });
    expect(after.packages).toEqual([{ name: "wrap", version: "1.1.0" }]);
    expect(await emits(after.code)).toBe("two+v2");
  });

  it("gives the same errors after a build warmed the context, and builds again after one", async () => {
    const root = project("errors", "1.0.0", "one.js");
    const b = await bundler(root, 1);
    await b.bundle({ code: component("warm"), filename: "c.mjs" });
    const missing = await b
      .bundle({ code: 'import x from "nope";\nexport default x;\n', filename: "c.mjs" })
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({
      code: "module_not_found",
      message: 'Cannot find package "nope" (looked in: node_modules)',
    });
    const syntax = await b
      .bundle({ code: "export default {\n  name: (1,;\n};\n", filename: "bad.mjs" })
      .catch((e: unknown) => e);
    expect(syntax).toMatchObject({ code: "bundle_failed", errors: ['bad.mjs:2:12: Unexpected ";"'] });
    const sibling = await b
      .bundle({
        code: 'import x from "./gone.mjs";\nexport default x;\n',
        filename: "c.mjs",
        files: { "./x.mjs": "" },
      })
      .catch((e: unknown) => e);
    expect(sibling).toMatchObject({ code: "module_not_found", missingFiles: ["gone.mjs"] });
    expect(await emits((await b.bundle({ code: component("again"), filename: "c.mjs" })).code)).toBe(
      "one:again",
    );
  });
});

describe("describing a bundle", () => {
  it.each(["thread", "pool"] as const)(
    "names the component's own file and line when its module code throws while loading (%s mode)",
    async (mode) => {
      const runtime = createRuntime({ mode });
      try {
        const code =
          'const x = 1;\nfunction boom() {\n  throw new Error("no");\n}\nboom();\nexport default {};\n';
        const error = await runtime.load({ code, filename: "thrower.mjs" }).catch((e: unknown) => e);
        expect(error).toMatchObject({
          code: "load_failed",
          message: "The component threw while loading: Error: no",
        });
        const stack = (error as { details?: { stack?: string } }).details?.stack ?? "";
        expect(stack).toMatch(/at boom \(thrower\.mjs:3:\d+\)/);
        expect(stack).not.toContain("component.bundle.js");
      } finally {
        await runtime.close();
      }
    },
    30_000, // starting the pool's threads on a loaded machine
  );
});

describe("resolution cache", () => {
  it("answers from memory while the package's version is unchanged, and forgets it when it changes", () => {
    const root = project("cache", "1.0.0", "one.js");
    const cache = new ResolutionCache();
    const dir = join(root, "node_modules", "wrap");
    const file = join(root, "node_modules", "inner", "one.js");
    cache.set(dir, "inner", "require-call", { path: file, namespace: "file" }, ResolutionCache.versions());
    expect(cache.get(dir, "inner", "require-call", ResolutionCache.versions())).toEqual({
      path: file,
      namespace: "file",
    });
    expect(cache.hits).toBe(1);
    // Another kind of import, or another folder, is another question.
    expect(cache.get(dir, "inner", "import-statement", ResolutionCache.versions())).toBeUndefined();
    writePackage(root, "inner", { version: "1.0.1", main: "one.js" }, { "one.js": "" });
    expect(cache.get(dir, "inner", "require-call", ResolutionCache.versions())).toBeUndefined();
    expect(cache.hits).toBe(1);
  });

  it("does not remember answers outside node_modules", () => {
    const cache = new ResolutionCache();
    cache.set("/x", "y", "require-call", { path: "/x/y.js", namespace: "file" }, () => "1");
    expect(cache.get("/x", "y", "require-call", () => "1")).toBeUndefined();
  });
});
