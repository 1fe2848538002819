import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Bundler,
  cacheResolver,
  createBundler,
  createRuntime,
  nodeModulesResolver,
  npmResolver,
  type PackageResolver,
  type Runtime,
} from "../src/index.js";

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
        { name: "greet", version: "1.4.0" },
        { name: "@acme/util", version: "1.0.3" },
      ]),
    );
    expect(out.packages).toHaveLength(2);
    expect(out.hash).toBe(createHash("sha256").update(out.code).digest("hex"));
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

/** A minimal ustar writer: one 512-byte header per file under `package/`, then the body. */
function tarball(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const body = Buffer.from(content, "utf8");
    const header = Buffer.alloc(512);
    header.write(`package/${name}`, 0, 100, "utf8");
    header.write("0000644\0", 100, "ascii");
    header.write("0000000\0", 108, "ascii");
    header.write("0000000\0", 116, "ascii");
    header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124, "ascii");
    header.write("00000000000\0", 136, "ascii");
    header.fill(" ", 148, 156);
    header.write("0", 156, "ascii");
    header.write("ustar\0", 257, "ascii");
    header.write("00", 263, "ascii");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

function sri(data: Buffer): string {
  return `sha512-${createHash("sha512").update(data).digest("base64")}`;
}

interface FakeVersion {
  files: Record<string, string>;
  dependencies?: Record<string, string>;
  /** Serve other bytes than the integrity describes. */
  tamper?: boolean;
}

describe("npm resolver", () => {
  const registry: Record<string, Record<string, FakeVersion>> = {
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
  };
  const tarballs = new Map<string, Buffer>();
  const requests: string[] = [];
  let server: Server;
  let base = "";
  const cacheDir = join(tmp, "npm-cache");

  function packument(name: string) {
    const versions: Record<string, unknown> = {};
    for (const [version, spec] of Object.entries(registry[name] ?? {})) {
      const pkg = { name, version, main: "index.js", dependencies: spec.dependencies ?? {} };
      const data = tarball({ "package.json": JSON.stringify(pkg), ...spec.files });
      const file = `/-/${name.replace("/", "-")}-${version}.tgz`;
      tarballs.set(
        file,
        spec.tamper ? tarball({ "package.json": JSON.stringify(pkg), "index.js": "evil()" }) : data,
      );
      versions[version] = { ...pkg, dist: { tarball: `${base}${file}`, integrity: sri(data) } };
    }
    const latest = Object.keys(versions).sort().at(-1);
    return { name, "dist-tags": { latest }, versions };
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = decodeURIComponent(req.url ?? "/");
      requests.push(url);
      if (url.startsWith("/-/")) {
        const data = tarballs.get(url);
        if (!data) return res.writeHead(404).end();
        return res.writeHead(200, { "content-type": "application/octet-stream" }).end(data);
      }
      const name = url.slice(1);
      if (!registry[name]) return res.writeHead(404, { "content-type": "application/json" }).end("{}");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument(name)));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const npm = (): PackageResolver[] => [
    cacheResolver(cacheDir),
    npmResolver({ cacheDir, registry: base, fetch: globalThis.fetch }),
  ];

  it("downloads into the cache, runs, and does not ask the registry again", async () => {
    const code = component(`import hello from "hello@^1";`, "hello(event.n)");
    expect(await emitted(runtimeWith({ resolvers: npm() }), code, { n: 7 })).toBe("hello 7");
    expect(existsSync(join(cacheDir, "hello@1.0.0", "node_modules", "hello", "package.json"))).toBe(true);
    expect(existsSync(join(cacheDir, "hello@1.0.0", "node_modules", "hello", "index.js"))).toBe(true);
    const asked = requests.length;
    expect(asked).toBe(2);
    // A fresh runtime (so no bundle cache): the package comes from the cache folder.
    expect(await emitted(runtimeWith({ resolvers: npm() }), code, { n: 8 })).toBe("hello 8");
    expect(requests.length).toBe(asked);
    // The npm resolver alone checks the cache first as well.
    const alone = runtimeWith({
      resolvers: [npmResolver({ cacheDir, registry: base, fetch: globalThis.fetch })],
    });
    expect(await emitted(alone, code, { n: 9 })).toBe("hello 9");
    expect(requests.length).toBe(asked);
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

  it("refuses a tarball whose integrity does not match, leaving nothing in the cache", async () => {
    const code = component(`import t from "tampered";`, "t");
    const error = await runtimeWith({ resolvers: npm() })
      .load({ code, filename: "component.mjs" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/integrity/);
    expect(readdirSync(cacheDir).filter((entry) => entry.startsWith("tampered"))).toEqual([]);
  });

  it("reports an unknown package as module_not_found", async () => {
    const code = component(`import nope from "no-such-package";`, "nope");
    await expect(
      runtimeWith({ resolvers: npm() }).load({ code, filename: "component.mjs" }),
    ).rejects.toMatchObject({
      code: "module_not_found",
      message: expect.stringContaining("no-such-package"),
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
