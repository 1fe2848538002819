import { afterAll, describe, expect, it } from "vitest";
import { testRuntime } from "./_helpers.js";

const runtime = testRuntime();
afterAll(() => runtime.close());

describe("sibling files", () => {
  it("keeps files apart that climb different numbers of folders (Pipedream's layout), and names them in stacks", async () => {
    // components/app/sources/new-thing/new-thing.mjs imports ../common/base.mjs (sources/common)
    // and ../../app.app.mjs, which imports ./common/base.mjs (components/app/common): two files
    // called common/base.mjs that must not meet.
    const loaded = await runtime.load({
      filename: "new-thing.mjs",
      code: `import base from "../common/base.mjs";
        import app from "../../app.app.mjs";
        export default { name: "New thing", version: "0.1.0", props: { app }, async run() {
          this.$emit({ source: base, app: app.methods.which() });
          throw new Error("boom");
        } };`,
      files: {
        "../common/base.mjs": `export default "sources/common/base";`,
        "../../app.app.mjs": `import which from "./common/base.mjs";
          export default { type: "app", app: "app", methods: { which() { return which; } } };`,
        "../../common/base.mjs": `export default "common/base";`,
      },
    });
    const m = await runtime.mount({ id: "dc_files", bundle: loaded.bundle, props: { app: { $auth: {} } } });
    const r = await m.run({});
    expect(r.emits[0]?.event).toEqual({ source: "sources/common/base", app: "common/base" });
    expect(r.error?.stack).toContain("at run (new-thing.mjs:5:");
    m.dispose();
  });

  it("lists every relative import that was not given, relative to the entry's folder", async () => {
    await expect(
      runtime.load({
        filename: "entry.mjs",
        code: `import a from "../../app.app.mjs"; import b from "./util.mjs"; export default { name: "E", version: "1", run() {} };`,
        files: { "./present.mjs": "export default 1;" },
      }),
    ).rejects.toMatchObject({
      code: "module_not_found",
      details: { missingFiles: ["../../app.app.mjs", "util.mjs"] },
    });
  });
});
