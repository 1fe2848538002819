/**
 * `googleapis` requires all of its ~300 APIs from two index files; the bundler keeps only those a
 * component names (bundler/_googleapis.ts). The real package (200 MB installed) is too large for
 * this repository's devDependencies, so a package laid out as it is stands in for it: the same
 * index files' require shapes, two APIs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, nodeModulesResolver, type Runtime } from "../src/index.js";

const FILES: Record<string, string> = {
  "package.json": '{"name":"googleapis","version":"171.0.0","main":"./build/src/index.js"}',
  // build/src/index.js: the client, then every version's namespace re-exported through a getter.
  "build/src/index.js": `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.drive_v3 = exports.gmail_v1 = exports.google = void 0;
const googleapis_1 = require("./googleapis");
exports.google = new googleapis_1.GoogleApis();
var v3_1 = require("./apis/drive/v3");
Object.defineProperty(exports, "drive_v3", { enumerable: true, get: function () { return v3_1.drive_v3; } });
var v1_1 = require("./apis/gmail/v1");
Object.defineProperty(exports, "gmail_v1", { enumerable: true, get: function () { return v1_1.gmail_v1; } });`,
  "build/src/googleapis.js": `"use strict";
const apis_1 = require("./apis");
class GoogleApis extends apis_1.GeneratedAPIs {}
exports.GoogleApis = GoogleApis;`,
  "build/src/apis/index.js": `"use strict";
const drive_1 = require("./drive");
const gmail_1 = require("./gmail");
exports.APIS = { drive: drive_1.VERSIONS, gmail: gmail_1.VERSIONS };
class GeneratedAPIs {
    drive = drive_1.drive;
    gmail = gmail_1.gmail;
}
exports.GeneratedAPIs = GeneratedAPIs;`,
  "build/src/apis/gmail/index.js": `const v1_1 = require("./v1");
exports.VERSIONS = { v1: v1_1.gmail_v1.Gmail };
exports.gmail = function (options) { return new exports.VERSIONS[options.version](options); };`,
  "build/src/apis/gmail/v1.js": `exports.gmail_v1 = { Gmail: class Gmail { constructor(o) { this.marker = "GMAIL_V1_CODE"; this.version = o.version; } } };`,
  "build/src/apis/drive/index.js": `const v3_1 = require("./v3");
exports.VERSIONS = { v3: v3_1.drive_v3.Drive };
exports.drive = function (options) { return new exports.VERSIONS[options.version](options); };`,
  "build/src/apis/drive/v3.js": `exports.drive_v3 = { Drive: class Drive { constructor() { this.marker = "DRIVE_V3_CODE"; } } };`,
};

let root = "";
let runtime: Runtime;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "hookline-googleapis-"));
  for (const [path, text] of Object.entries(FILES)) {
    const file = join(root, "node_modules", "googleapis", path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  runtime = createRuntime({ resolvers: [nodeModulesResolver(root)] });
});
afterAll(async () => {
  await runtime.close();
  rmSync(root, { recursive: true, force: true });
});

describe("googleapis in a bundle", () => {
  it("keeps the APIs the component names and leaves the others out, whose call says so", async () => {
    const loaded = await runtime.load({
      filename: "gmail.mjs",
      code: `import { google } from "googleapis";
      export default { name: "G", version: "0.1.0", props: {}, async run() {
        const gmail = google.gmail({ version: "v1" });
        let other; try { google["dr" + "ive"]({ version: "v3" }); } catch (e) { other = e.message; }
        this.$emit({ marker: gmail.marker, version: gmail.version, other });
      } }`,
    });
    expect(loaded.bundle).toContain("GMAIL_V1_CODE");
    expect(loaded.bundle).not.toContain("DRIVE_V3_CODE");
    const mounted = await runtime.mount({ id: "dc_g", bundle: loaded.bundle, props: {} });
    try {
      const result = await mounted.run({});
      expect(result.error).toBeUndefined();
      expect(result.emits[0]?.event).toEqual({
        marker: "GMAIL_V1_CODE",
        version: "v1",
        other: expect.stringMatching(/^googleapis: the "drive" API was left out of the bundle/),
      });
    } finally {
      mounted.dispose();
    }
  });

  it("a component naming both APIs gets both", async () => {
    const loaded = await runtime.load({
      filename: "both.mjs",
      code: `import { google } from "googleapis";
      export default { name: "B", version: "0.1.0", props: {}, async run() {
        this.$emit([google.gmail({ version: "v1" }).marker, google.drive({ version: "v3" }).marker]);
      } }`,
    });
    const mounted = await runtime.mount({ id: "dc_b", bundle: loaded.bundle, props: {} });
    try {
      expect((await mounted.run({})).emits[0]?.event).toEqual(["GMAIL_V1_CODE", "DRIVE_V3_CODE"]);
    } finally {
      mounted.dispose();
    }
  });
});
