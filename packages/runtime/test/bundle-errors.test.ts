/** Bundle and load errors a person can act on: where the problem is, once, and what is missing. */
import { afterAll, describe, expect, it } from "vitest";
import { createBundler, createRuntime } from "../src/index.js";

const runtime = createRuntime();
afterAll(() => runtime.close());

describe("bundle errors", () => {
  it("name the file, line and column and show the offending line with a caret, each error once", async () => {
    const bundler = await createBundler();
    const code = 'export default {\n  name: "x",\n  run() {\n    const a = [1, 2,;\n  },\n};\n';
    const error = await bundler.bundle({ filename: "bad.mjs", code }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "bundle_failed", errors: ['bad.mjs:4:21: Unexpected ";"'] });
    expect((error as Error).message).toBe(
      ['bad.mjs:4:21: Unexpected ";"', "    4 |     const a = [1, 2,;", "      |                     ^"].join(
        "\n",
      ),
    );
    expect((error as Error).message.match(/Unexpected/g)).toHaveLength(1);
  });

  it("point into the imported file that is wrong, by its own name", async () => {
    const error = await runtime
      .load({
        filename: "main.mjs",
        code: 'import lib from "./lib/util.mjs";\nexport default lib;\n',
        files: { "./lib/util.mjs": "export default {\n\tname: (1,;\n};\n" },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "bundle_failed" });
    expect((error as Error).message).toBe(
      ['lib/util.mjs:2:11: Unexpected ";"', "    2 |   name: (1,;", "      |            ^"].join("\n"),
    );
  });

  it("say that a module without a default export has none, and what it exports instead", async () => {
    const error = await runtime
      .load({ filename: "named.mjs", code: 'export const source = { name: "x", version: "1", run() {} };\n' })
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      "The module has no default export: export the component with `export default { ... }` (it exports source)",
    );
    expect((error as Error).message).not.toMatch(/name is required/);
  });
});
