import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryStore } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeRegistry, startFakeRegistry, unreachableUrl } from "../../runtime/test/_fake-registry.js";
import { createHookline, type Hookline } from "../src/index.js";

// A package installed nowhere: the engine gets it from the npm registry (a fake one on loopback).
const SOURCE = `import leftPad from "left-pad-hl";
  export default { name: "Padded", version: "0.1.0", props: {},
    async run(event) { this.$emit({ padded: leftPad(String(event.n), 5, "0") }); } };`;
const PINNED = SOURCE.replace('"left-pad-hl"', '"left-pad-hl@~1.2.0"');

describe("createHookline resolves npm packages: node_modules, the package cache, the registry", () => {
  let registry: FakeRegistry;
  const cacheDir = mkdtempSync(join(tmpdir(), "hookline-packages-"));
  const engines: Hookline[] = [];
  const engine = (registryUrl: string | false) => {
    const hookline = createHookline({ worker: false, packages: { cacheDir, registry: registryUrl } });
    engines.push(hookline);
    return hookline;
  };
  beforeAll(async () => {
    const pad = (v: string) => ({
      files: { "index.js": `module.exports = (s, n, c) => "${v}:" + String(s).padStart(n, c);` },
    });
    registry = await startFakeRegistry({ "left-pad-hl": { "1.2.0": pad("1.2.0"), "1.3.0": pad("1.3.0") } });
  });
  afterAll(async () => {
    for (const hookline of engines) await hookline.close();
    await registry.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  async function deployAndRun(hookline: Hookline, code: string) {
    const ws = await hookline.workspaces.create({ name: "acme" });
    const source = await hookline.sources.deploy(ws.id, { code: { filename: "padded.mjs", code } });
    const run = await hookline.sources.run(ws.id, source.id, { n: 42 });
    expect(run.error).toBeUndefined();
    return run.emitted[0]?.body;
  }

  it("deploys a source importing a package that is not installed, then again from the cache with the registry unreachable", async () => {
    expect(await deployAndRun(engine(registry.url), SOURCE)).toEqual({ padded: "1.3.0:00042" });
    expect(await deployAndRun(engine(registry.url), PINNED)).toEqual({ padded: "1.2.0:00042" });
    expect(registry.requests.filter((r) => r.startsWith("/-/")).sort()).toEqual([
      "/-/left-pad-hl-1.2.0.tgz",
      "/-/left-pad-hl-1.3.0.tgz",
    ]);
    // A new engine (a restart: no bundle in memory) with the registry down, or turned off.
    const down = await unreachableUrl();
    expect(await deployAndRun(engine(down), SOURCE)).toEqual({ padded: "1.3.0:00042" });
    expect(await deployAndRun(engine(down), PINNED)).toEqual({ padded: "1.2.0:00042" });
    expect(await deployAndRun(engine(false), SOURCE)).toEqual({ padded: "1.3.0:00042" });
  });

  it("says which package and range could not be had (422 module_not_found)", async () => {
    const hookline = engine(false);
    const ws = await hookline.workspaces.create({ name: "acme" });
    await expect(
      hookline.sources.deploy(ws.id, {
        code: { filename: "x.mjs", code: SOURCE.replace('"left-pad-hl"', '"left-pad-hl@^2"') },
      }),
    ).rejects.toMatchObject({
      code: "module_not_found",
      status: 422,
      message: `Cannot find package "left-pad-hl@^2" (looked in: node_modules, cache)`,
    });
  });

  it("keeps working with its own store after a restart: a deployed source runs from its stored bundle", async () => {
    const store = createMemoryStore();
    const first = createHookline({ store, worker: false, packages: { cacheDir, registry: registry.url } });
    engines.push(first);
    const ws = await first.workspaces.create({ name: "acme" });
    const source = await first.sources.deploy(ws.id, { code: { filename: "padded.mjs", code: SOURCE } });
    await first.close();
    const emptyCache = mkdtempSync(join(tmpdir(), "hookline-packages-"));
    const second = createHookline({
      store,
      worker: false,
      packages: { cacheDir: emptyCache, registry: false },
    });
    engines.push(second);
    const run = await second.sources.run(ws.id, source.id, { n: 7 });
    expect(run.emitted[0]?.body).toEqual({ padded: "1.3.0:00007" });
    rmSync(emptyCache, { recursive: true, force: true });
  });

  it("an action that pins a version is saved with an action_version_pin warning (SPEC: pins are for sources); the pin is used", async () => {
    const hookline = engine(registry.url);
    const ws = await hookline.workspaces.create({ name: "acme" });
    const code = `import leftPad from "left-pad-hl@1.2.0";
      export default { name: "Pad", version: "0.1.0", type: "action",
        async run() { return leftPad("7", 3, "0"); } };`;
    const saved = await hookline.components.save(ws.id, { filename: "pad.mjs", code });
    expect(saved.description.warnings).toEqual([
      {
        code: "action_version_pin",
        path: "imports.left-pad-hl",
        message: expect.stringContaining(
          '"left-pad-hl@1.2.0": a version in an import applies to sources only',
        ),
      },
    ]);
    const strict = hookline.components.save(ws.id, { filename: "pad.mjs", code }, { strict: true });
    await expect(strict).rejects.toMatchObject({ code: "invalid_component" });
    const wf = await hookline.workflows.create(ws.id, {
      name: "pad",
      trigger: { type: "manual" },
      steps: [{ name: "pad", component_id: saved.id }],
    });
    const exe = await hookline.workflows.run(ws.id, wf.id, { event: {} });
    expect(exe.steps[0]?.returnValue).toBe("1.2.0:007");
    const source = await hookline.components.save(ws.id, { filename: "padded.mjs", code: PINNED });
    expect(source.description.warnings ?? []).toEqual([]);
  });
});
