import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Bundler,
  cacheResolver,
  createBundler,
  createRuntime,
  nodeModulesResolver,
  npmResolver,
  type PackageResolver,
  packageResolvers,
  type Runtime,
} from "../src/index.js";
import { type FakeRegistry, startFakeRegistry, unreachableUrl } from "./_fake-registry.js";

const tmp = mkdtempSync(join(tmpdir(), "hookline-bundler-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
});

function runtimeWith(options: Parameters<typeof createRuntime>[0]): Runtime {
  const runtime = createRuntime(options);
  runtimes.push(runtime);
  return runtime;
}

/** Writes a package (its package.json plus files) into `dir`. */
function writePackage(dir: string, pkg: Record<string, unknown>, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify(pkg));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
}

/** A source component whose run emits `body` (an expression over `event`). */
function component(imports: string, body: string): string {
  return `${imports}
    export default {
      name: "Fixture", version: "0.1.0", props: {},
      async run(event) { this.$emit(${body}); },
    };`;
}

/** Loads, mounts, runs once and returns the first emitted event. */
async function emitted(runtime: Runtime, code: string, event: unknown = {}): Promise<unknown> {
  const loaded = await runtime.load({ code, filename: "component.mjs" });
  const m = await runtime.mount({ id: "dc_bundler", bundle: loaded.bundle, props: {} });
  try {
    const result = await m.run(event);
    expect(result.error).toBeUndefined();
    return result.emits[0]?.event;
  } finally {
    m.dispose();
  }
}

// --- node_modules -------------------------------------------------------------------------

const modulesRoot = join(tmp, "project");
writePackage(
  join(modulesRoot, "node_modules", "greet"),
  { name: "greet", version: "1.4.0", main: "index.js" },
  { "index.js": 'module.exports = (n) => "hi " + n;' },
);
writePackage(
  join(modulesRoot, "node_modules", "@acme", "util"),
  { name: "@acme/util", version: "1.0.3", main: "index.js" },
  { "index.js": "exports.main = true;", "sub/x.js": 'exports.x = (s) => "x:" + s;' },
);

// Sloppy-mode CommonJS as `slackify-html` is: it assigns a name it never declared.
writePackage(
  join(modulesRoot, "node_modules", "sloppy"),
  { name: "sloppy", version: "1.0.0", main: "index.js" },
  {
    "index.js": `var dep = require("./dep");
      entities = { decode: function (s) { return s.replace("&amp;", "&"); } };
      counter += 1;
      module.exports = function (s) { return entities.decode(s) + dep + counter; };`,
    "dep.js": 'module.exports = "!"; counter = 0;',
  },
);
writePackage(
  join(modulesRoot, "node_modules", "strict-cjs"),
  { name: "strict-cjs", version: "1.0.0", main: "index.js" },
  { "index.js": '"use strict";\nmodule.exports = function () { undeclared = 1; };' },
);

const GREETER = component(
  `import greet from "greet";
   import greetCaret from "greet@^1";
   import greetTilde from "greet@~1.4";
   import { x } from "@acme/util@1/sub/x.js";`,
  "{ a: greet(event.n), b: greetCaret(1), c: greetTilde(2), x: x(event.n) }",
);

describe("node_modules resolver", () => {
  const runtime = runtimeWith({ resolvers: [nodeModulesResolver(modulesRoot)] });

  it("bundles plain, ranged and scoped subpath imports, and lists the packages used", async () => {
    expect(await emitted(runtime, GREETER, { n: "bob" })).toEqual({
      a: "hi bob",
      b: "hi 1",
      c: "hi 2",
      x: "x:bob",
    });
    const bundler = await createBundler({ resolvers: [nodeModulesResolver(modulesRoot)] });
    const out = await bundler.bundle({ code: GREETER, filename: "component.mjs" });
    expect(out.packages).toEqual(
      expect.arrayContaining([
        { name: "greet", version: "1.4.0", range: "^1, ~1.4" },
        { name: "@acme/util", version: "1.0.3", range: "1" },
      ]),
    );
    expect(out.packages).toHaveLength(2);
    expect(out.hash).toBe(createHash("sha256").update(out.code).digest("hex"));
  });

  it("runs sloppy-mode CommonJS packages as Node does, while the component and strict packages stay strict", async () => {
    // The component (an ES module) is strict; the package assigns undeclared names, which sloppy
    // mode makes globals.
    const code = component(
      `import decode from "sloppy";
       import strictFn from "strict-cjs";`,
      `{ decoded: decode("a&amp;b"), counter: globalThis.counter,
         strictPkg: (() => { try { strictFn(); return "no error"; } catch (e) { return e.name; } })(),
         own: (() => { try { ownUndeclared = 1; return "no error"; } catch (e) { return e.name; } })() }`,
    );
    expect(await emitted(runtime, code)).toEqual({
      decoded: "a&b!1",
      counter: 1,
      strictPkg: "ReferenceError",
      own: "ReferenceError",
    });
  });

  it("refuses a range the installed version does not satisfy with module_not_found", async () => {
    const code = component(`import greet from "greet@^2";`, "greet(1)");
    await expect(runtime.load({ code, filename: "component.mjs" })).rejects.toMatchObject({
      code: "module_not_found",
      message: expect.stringContaining("greet@^2"),
    });
  });
});

// --- cache --------------------------------------------------------------------------------

describe("cache resolver", () => {
  const cacheDir = join(tmp, "cache");
  for (const version of ["1.0.0", "1.2.0"]) {
    writePackage(
      join(cacheDir, `versioned@${version}`, "node_modules", "versioned"),
      { name: "versioned", version, main: "index.js" },
      { "index.js": `module.exports = "versioned ${version}";` },
    );
  }
  writePackage(
    join(cacheDir, "@acme+scoped@2.0.0", "node_modules", "@acme", "scoped"),
    { name: "@acme/scoped", version: "2.0.0", main: "index.js" },
    { "index.js": 'module.exports = "scoped 2";' },
  );
  const runtime = runtimeWith({ resolvers: [cacheResolver(cacheDir)] });

  it("picks the highest satisfying version, or the exact one asked for", async () => {
    const latest = await emitted(runtime, component(`import v from "versioned@^1";`, "v"));
    const pinned = await emitted(runtime, component(`import v from "versioned@1.0.0";`, "v"));
    const bare = await emitted(runtime, component(`import v from "versioned";`, "v"));
    expect(latest).toBe("versioned 1.2.0");
    expect(pinned).toBe("versioned 1.0.0");
    expect(bare).toBe("versioned 1.2.0");
  });

  it("finds scoped packages stored as scope+name", async () => {
    expect(await emitted(runtime, component(`import s from "@acme/scoped@^2";`, "s"))).toBe("scoped 2");
    const code = component(`import v from "versioned@^3";`, "v");
    await expect(runtime.load({ code, filename: "component.mjs" })).rejects.toMatchObject({
      code: "module_not_found",
    });
  });
});

// --- npm ----------------------------------------------------------------------------------

describe("npm resolver", () => {
  let registry: FakeRegistry;
  const cacheDir = join(tmp, "npm-cache");
  let base = "";
  let requests: string[] = [];

  beforeAll(async () => {
    registry = await startFakeRegistry({
      hello: { "1.0.0": { files: { "index.js": 'module.exports = (n) => "hello " + n;' } } },
      withdep: {
        "1.0.0": {
          files: { "index.js": 'const leaf = require("leaf"); module.exports = () => "withdep+" + leaf;' },
          dependencies: { leaf: "^2.0.0" },
        },
      },
      leaf: {
        "2.1.0": { files: { "index.js": 'module.exports = "leaf 2.1.0";' } },
        "2.2.0": { files: { "index.js": 'module.exports = "leaf 2.2.0";' } },
        "3.0.0": { files: { "index.js": 'module.exports = "leaf 3.0.0";' } },
      },
      tampered: { "1.0.0": { files: { "index.js": 'module.exports = "ok";' }, tamper: true } },
      "@acme/remote": { "1.1.0": { files: { "index.js": 'module.exports = "remote";' } } },
      moving: { "1.0.0": { files: { "index.js": 'module.exports = "moving 1.0.0";' } } },
      twin: { "1.0.0": { files: { "index.js": 'module.exports = "twin";' } } },
    });
    base = registry.url;
    requests = registry.requests;
  });
  afterAll(() => registry.close());

  const npm = (): PackageResolver[] => [
    cacheResolver(cacheDir),
    npmResolver({ cacheDir, registry: base, fetch: globalThis.fetch }),
  ];

  it("downloads into the cache, runs, and does not ask the registry again", async () => {
    const code = component(`import hello from "hello@^1";`, "hello(event.n)");
    expect(await emitted(runtimeWith({ resolvers: npm() }), code, { n: 7 })).toBe("hello 7");
    expect(existsSync(join(cacheDir, "hello@1.0.0", "node_modules", "hello", "package.json"))).toBe(true);
    expect(existsSync(join(cacheDir, "hello@1.0.0", "node_modules", "hello", "index.js"))).toBe(true);
    expect(requests).toEqual(["/hello", "/-/hello-1.0.0.tgz"]);
    // A fresh runtime (so no bundle cache): the range is resolved against the registry again, and
    // the version it picks comes from the cache folder, not downloaded again.
    const alone = () =>
      runtimeWith({ resolvers: [npmResolver({ cacheDir, registry: base, fetch: globalThis.fetch })] });
    expect(await emitted(alone(), code, { n: 8 })).toBe("hello 8");
    expect(requests).toEqual(["/hello", "/-/hello-1.0.0.tgz", "/hello"]);
    // An exact version that is cached needs no registry at all.
    const exact = component(`import hello from "hello@1.0.0";`, "hello(event.n)");
    expect(await emitted(alone(), exact, { n: 9 })).toBe("hello 9");
    expect(requests).toHaveLength(3);
  });

  it("downloads scoped packages", async () => {
    const code = component(`import remote from "@acme/remote";`, "remote");
    expect(await emitted(runtimeWith({ resolvers: npm() }), code)).toBe("remote");
    expect(existsSync(join(cacheDir, "@acme+remote@1.1.0", "node_modules", "@acme", "remote"))).toBe(true);
  });

  it("fetches a dependency of a downloaded package with the range it declares", async () => {
    const code = component(`import withdep from "withdep";`, "withdep()");
    const bundler = await createBundler({ resolvers: npm() });
    const out = await bundler.bundle({ code, filename: "component.mjs" });
    expect(out.packages).toEqual(
      expect.arrayContaining([
        { name: "withdep", version: "1.0.0" },
        { name: "leaf", version: "2.2.0" },
      ]),
    );
    expect(await emitted(runtimeWith({ bundler }), code)).toBe("withdep+leaf 2.2.0");
    expect(existsSync(join(cacheDir, "leaf@2.2.0", "node_modules", "leaf", "index.js"))).toBe(true);
    expect(existsSync(join(cacheDir, "leaf@3.0.0"))).toBe(false);
  });

  it("resolves an import without a range to the registry's latest at deploy time, and offline to the cache", async () => {
    const resolvers = () => [npmResolver({ cacheDir, registry: base })];
    const code = component(`import moving from "moving";`, "moving");
    expect(await emitted(runtimeWith({ resolvers: resolvers() }), code)).toBe("moving 1.0.0");
    registry.packages.moving = {
      ...registry.packages.moving,
      "1.1.0": { files: { "index.js": 'module.exports = "moving 1.1.0";' } },
    };
    // Cached 1.0.0 hides neither the new latest nor the highest version of a range it satisfies.
    expect(await emitted(runtimeWith({ resolvers: resolvers() }), code)).toBe("moving 1.1.0");
    expect(
      await emitted(
        runtimeWith({ resolvers: resolvers() }),
        component(`import moving from "moving@^1.0.0";`, "moving"),
      ),
    ).toBe("moving 1.1.0");
    const ranged = component(`import moving from "moving@~1.0";`, "moving");
    expect(await emitted(runtimeWith({ resolvers: resolvers() }), ranged)).toBe("moving 1.0.0");
    // With the registry unreachable, the highest cached version serves the import.
    const down = await unreachableUrl();
    const offline = () => [npmResolver({ cacheDir, registry: down })];
    expect(await emitted(runtimeWith({ resolvers: offline() }), code)).toBe("moving 1.1.0");
    const loaded = await runtimeWith({ resolvers: offline() }).load({
      code: component(`import moving from "moving@^1";`, "moving"),
      filename: "component.mjs",
    });
    expect(loaded.packages).toEqual([
      {
        name: "moving",
        version: "1.1.0",
        range: "^1",
        offline: expect.stringMatching(/could not be reached/),
      },
    ]);
    // ... and the load says so, as a warning.
    expect(loaded.description.warnings).toContainEqual({
      code: "package_from_cache",
      path: "imports.moving",
      message: expect.stringMatching(
        /^moving@1\.1\.0 came from the package cache: the npm registry http:\/\/127\.0\.0\.1:\d+ could not be reached/,
      ),
    });
  });

  it("orders prereleases as npm does and resolves dist-tags other than latest", async () => {
    const pre = (v: string) => ({ files: { "index.js": `module.exports = "pre ${v}";` } });
    registry.packages.pre = {
      "2.0.0-beta.2": pre("2.0.0-beta.2"),
      "2.0.0-beta.10": pre("2.0.0-beta.10"),
      "1.4.0": pre("1.4.0"),
    };
    registry.tags.pre = { latest: "1.4.0", next: "2.0.0-beta.10", legacy: "1.4.0" };
    const resolver = npmResolver({ cacheDir, registry: base });
    expect((await resolver.resolve("pre", "^2.0.0-beta.1"))?.version).toBe("2.0.0-beta.10");
    expect((await resolver.resolve("pre", ">=2.0.0-beta.2 <2.0.0-beta.3"))?.version).toBe("2.0.0-beta.2");
    expect((await resolver.resolve("pre", "next"))?.version).toBe("2.0.0-beta.10");
    expect((await resolver.resolve("pre", "*"))?.version).toBe("1.4.0");
    expect((await resolver.resolve("pre", "^1"))?.version).toBe("1.4.0");
    const code = component(`import pre from "pre@next";`, "pre");
    expect(await emitted(runtimeWith({ resolvers: [resolver] }), code)).toBe("pre 2.0.0-beta.10");
    await expect(resolver.resolve("pre", "nightly")).rejects.toThrow(
      '"nightly" is neither a version range nor a dist-tag of the package (its tags: latest, next, legacy)',
    );
  });

  it("shares one download between deploys that need the same version at once", async () => {
    const resolver = npmResolver({ cacheDir, registry: base });
    const [a, b] = await Promise.all([resolver.resolve("twin", "^1"), resolver.resolve("twin", "1.0.0")]);
    expect(a).toEqual({ dir: join(cacheDir, "twin@1.0.0", "node_modules", "twin"), version: "1.0.0" });
    expect(b).toEqual(a);
    expect(requests.filter((r) => r === "/-/twin-1.0.0.tgz")).toHaveLength(1);
  });

  it("names the package, the range and the reason when it cannot be had", async () => {
    const load = (imports: string, resolvers = npm()) =>
      runtimeWith({ resolvers }).load({ code: component(imports, "0"), filename: "component.mjs" });
    await expect(load(`import leaf from "leaf@^9";`)).rejects.toMatchObject({
      code: "module_not_found",
      message: `Cannot find package "leaf@^9" (looked in: cache, npm): npm: the npm registry has no version that matches (latest is 3.0.0)`,
    });
    const down = await unreachableUrl();
    const offline = [npmResolver({ cacheDir, registry: down })];
    await expect(load(`import x from "never-fetched@1.2.3";`, offline)).rejects.toMatchObject({
      code: "module_not_found",
      message: expect.stringMatching(
        /^Cannot find package "never-fetched@1\.2\.3" \(looked in: npm\): npm: the npm registry http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\), and the package cache has no version of it$/,
      ),
    });
  });

  it("refuses a tarball whose integrity does not match, leaving nothing in the cache", async () => {
    const code = component(`import t from "tampered";`, "t");
    await expect(
      runtimeWith({ resolvers: npm() }).load({ code, filename: "component.mjs" }),
    ).rejects.toMatchObject({
      code: "module_not_found",
      message: 'Cannot find package "tampered" (looked in: cache, npm): npm: tarball integrity check failed',
    });
    expect(readdirSync(cacheDir).filter((entry) => entry.startsWith("tampered"))).toEqual([]);
  });

  it("reports an unknown package as module_not_found", async () => {
    const code = component(`import nope from "no-such-package";`, "nope");
    await expect(
      runtimeWith({ resolvers: npm() }).load({ code, filename: "component.mjs" }),
    ).rejects.toMatchObject({
      code: "module_not_found",
      message: 'Cannot find package "no-such-package" (looked in: cache, npm)',
    });
  });

  it("packageResolvers: node_modules, then the cache and the registry; without a registry, the cache alone", async () => {
    const chain = packageResolvers({ root: modulesRoot, cacheDir, registry: base });
    expect(chain.map((r) => r.name)).toEqual(["node_modules", "npm"]);
    const code = component(`import greet from "greet"; import hello from "hello@^1";`, "greet(hello(1))");
    expect(
      await emitted(runtimeWith({ packages: { root: modulesRoot, cacheDir, registry: base } }), code),
    ).toBe("hi hello 1");
    const noNpm = runtimeWith({ packages: { root: modulesRoot, cacheDir, registry: false } });
    expect(await emitted(noNpm, code)).toBe("hi hello 1");
    await expect(
      noNpm.load({ code: component(`import r from "@acme/remote@^2";`, "r"), filename: "c.mjs" }),
    ).rejects.toMatchObject({
      code: "module_not_found",
      message: 'Cannot find package "@acme/remote@^2" (looked in: node_modules, cache)',
    });
  });
});

// --- engines and the bundle cache ---------------------------------------------------------

describe("bundler", () => {
  const resolvers = () => [nodeModulesResolver(modulesRoot)];

  it("bundles the same component with esbuild-wasm as with native esbuild", { timeout: 60_000 }, async () => {
    const wasm = await createBundler({ engine: "wasm", resolvers: resolvers() });
    const native = await createBundler({ engine: "native", resolvers: resolvers() });
    expect(wasm.engine).toBe("wasm");
    expect(native.engine).toBe("native");
    const input = { code: GREETER, filename: "component.mjs" };
    const [w, n] = await Promise.all([wasm.bundle(input), native.bundle(input)]);
    expect(w.packages).toEqual(n.packages);
    const expected = { a: "hi w", b: "hi 1", c: "hi 2", x: "x:w" };
    for (const bundler of [wasm, native] as Bundler[]) {
      expect(await emitted(runtimeWith({ bundler }), GREETER, { n: "w" })).toEqual(expected);
    }
  });

  it("caches bundles by input", async () => {
    const bundler = await createBundler({ engine: "native", resolvers: resolvers() });
    const input = { code: GREETER, filename: "component.mjs" };
    const first = await bundler.bundle(input);
    const second = await bundler.bundle({ ...input });
    expect(second).toBe(first);
    expect(second.hash).toBe(first.hash);
    const other = await bundler.bundle({ ...input, code: `${GREETER}\n// changed` });
    expect(other).not.toBe(first);
    await bundler.close();
  });
});
