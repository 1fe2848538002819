/**
 * A package that needs a native addon (`.node`) cannot run in the sandbox: the load at deploy
 * fails with `native_module_unsupported` naming the package (as `snappy`'s napi-rs loader or a
 * `bindings` user would), while a package that only tries one (ssh2's optional crypto binding)
 * loads, with a warning, and runs without it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntime, nodeModulesResolver } from "../src/index.js";

const root = mkdtempSync(join(tmpdir(), "hookline-native-"));
function pkg(name: string, files: Record<string, string>) {
  const dir = join(root, "node_modules", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", main: "index.js" }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
}
// napi-rs's loader, as `snappy` has it: the addon for this platform, else an error.
pkg("napped", {
  "index.js": `let binding;
    try { binding = require("./napped.linux-x64-gnu.node"); } catch (e) {
      try { binding = require("@napped/napped-linux-x64-gnu"); } catch (e2) { throw new Error("Failed to load native binding"); }
    }
    module.exports = binding;`,
});
// A package that uses an addon when there is one.
pkg("maybe-native", {
  "index.js": `let fast; try { fast = require("./build/Release/fast.node"); } catch (e) {}
    module.exports = () => (fast ? "native" : "javascript");`,
});
const runtime = createRuntime({ resolvers: [nodeModulesResolver(root)] });
afterAll(async () => {
  await runtime.close();
  rmSync(root, { recursive: true, force: true });
});
const component = (imports: string, value: string) =>
  `${imports}\nexport default { name: "N", version: "0.1.0", type: "action", run() { return ${value}; } };`;

describe("native addons", () => {
  it("a package that needs one fails at deploy with native_module_unsupported naming it", async () => {
    await expect(
      runtime.load({ code: component(`import snappy from "napped";`, "typeof snappy"), filename: "c.mjs" }),
    ).rejects.toMatchObject({
      code: "native_module_unsupported",
      status: 422,
      message: expect.stringMatching(
        /^"napped" needs a native addon \(\.node\), which cannot run in the Hookline sandbox: .*Failed to load native binding/,
      ),
      details: { packages: ["napped"] },
    });
  });

  it("a package that only tries one loads with a warning and runs without it", async () => {
    const loaded = await runtime.load({
      code: component(`import pick from "maybe-native";`, "pick()"),
      filename: "c.mjs",
    });
    expect(loaded.description.warnings).toContainEqual({
      code: "native_addon_skipped",
      path: "imports.maybe-native",
      message: expect.stringContaining('"maybe-native" references a native addon (.node)'),
    });
    const m = await runtime.mount({ id: "dc_native", bundle: loaded.bundle, props: {} });
    expect((await m.runAction()).returnValue).toBe("javascript");
    m.dispose();
  });

  it("a load failing for another reason stays load_failed", async () => {
    await expect(
      runtime.load({
        code: component(`import pick from "maybe-native"; throw new Error("boom");`, "pick()"),
        filename: "c.mjs",
      }),
    ).rejects.toMatchObject({ code: "load_failed" });
  });
});
