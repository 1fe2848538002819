// The registry from the server: GET /v1/components/registry?q=&type=&app= searches it (app and own
// fields for the web application's grouping), and POST /v1/components/registry/import imports an npm
// package's components from a (loopback stand-in) npm registry, as `pd registry import` does: the
// relative imports read from the package, bare imports given the package's declared range.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeRegistry, startFakeRegistry } from "../../runtime/test/_fake-registry.js";
import { type Api, startApi } from "./_harness.js";

const PACKAGES = {
  "@pipedream/acme": {
    "0.4.0": {
      files: {
        "acme.app.mjs": `export default { type: "app", app: "acme", propDefinitions: { text: { type: "string", label: "Text", description: "What to **shout**" } }, methods: { loud(s) { return s + "!"; } } };`,
        "actions/shout/shout.mjs": `import shout from "shout";
          import acme from "../../acme.app.mjs";
          export default {
            key: "acme-shout", name: "Shout", version: "0.1.0", type: "action", description: "Shouts a text",
            props: { acme, text: { propDefinition: [acme, "text"] } },
            async run() { return this.acme.loud(shout(this.text)); },
          };`,
        "sources/new-thing/new-thing.mjs": `import acme from "../../acme.app.mjs";
          export default {
            key: "acme-new-thing", name: "New Thing", version: "0.2.0", type: "source",
            props: { acme, http: "$.interface.http" },
            async run(e) { this.$emit(e.body); },
          };`,
        "actions/escape/escape.mjs": `import secret from "../../../outside.mjs";
          export default { key: "acme-escape", name: "Escape", version: "0.1.0", type: "action", run() { return secret; } };`,
      },
      dependencies: { shout: "^1.0.0" },
    },
  },
  shout: {
    "1.0.0": { files: { "index.js": "module.exports = (s) => String(s).toUpperCase();" } },
    "2.0.0": { files: { "index.js": 'module.exports = () => "wrong major";' } },
  },
};

describe("the registry: search and import from npm", () => {
  let api: Api;
  let registry: FakeRegistry;
  const cacheDir = mkdtempSync(join(tmpdir(), "hookline-import-"));
  beforeAll(async () => {
    registry = await startFakeRegistry(PACKAGES);
    api = await startApi("fetch", {
      engine: {
        worker: false,
        noAuthApps: ["acme"],
        packages: { registry: registry.url, cacheDir, root: false },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await registry.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  const list = async (query: string) =>
    ((await api.call("GET", `/v1/components/registry${query}`)).body.data as { key: string }[]).map(
      (c) => c.key,
    );

  it("imports a package's components, then finds them by search, app and type", async () => {
    const res = await api.call("POST", "/v1/components/registry/import", {
      body: { package: "@pipedream/acme", visibility: "public" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const got = res.body.data;
    expect(got).toMatchObject({ name: "@pipedream/acme", version: "0.4.0" });
    const byFile = Object.fromEntries(
      got.components.map((c: { file: string; status: string }) => [c.file, c.status]),
    );
    expect(byFile).toEqual({
      "sources/new-thing/new-thing.mjs": "published",
      "actions/escape/escape.mjs": "failed", // its import leaves the package
      "actions/shout/shout.mjs": "published",
    });
    // The declared range was used: shout 1.x, never the latest 2.0.0.
    expect(registry.requests).not.toContain("/-/shout-2.0.0.tgz");

    const shout = (await api.call("GET", "/v1/components/registry/acme-shout")).body.data;
    expect(shout).toMatchObject({ app: "acme", own: true, visibility: "public", type: "action" });
    expect(shout.configurable_props.find((p: { name: string }) => p.name === "text").description).toBe(
      "What to **shout**",
    );

    expect(await list("?q=SHOUT")).toEqual(["acme-shout"]);
    expect(await list("?q=acme%20thing")).toEqual(["acme-new-thing"]);
    expect((await list("?app=acme")).sort()).toEqual(["acme-new-thing", "acme-shout"]);
    expect(await list("?app=acme&type=action")).toEqual(["acme-shout"]);
    expect(await list("?q=nothing-like-this")).toEqual([]);

    // Again: already there.
    const again = (
      await api.call("POST", "/v1/components/registry/import", { body: { package: "@pipedream/acme" } })
    ).body.data;
    expect(again.components.filter((c: { status: string }) => c.status === "exists")).toHaveLength(2);

    // The imported action runs with its package's dependency.
    const wf = await api.call("POST", "/v1/workflows", {
      body: {
        name: "shouts",
        trigger: { type: "manual" },
        steps: [{ name: "shout", component_key: "acme-shout", configured_props: { text: "hi" } }],
      },
    });
    expect(wf.status, JSON.stringify(wf.body)).toBe(200);
    const run = await api.call("POST", `/v1/workflows/${wf.body.data.id}/test`);
    expect(run.body.data.steps[0]).toMatchObject({ status: "succeeded", return_value: "HI!" });
  });

  it("refuses a name that is not a package, and says when no resolver has it", async () => {
    const bad = await api.call("POST", "/v1/components/registry/import", { body: { package: "../etc" } });
    expect([bad.status, bad.body.error.code]).toEqual([400, "bad_request"]);
    const missing = await api.call("POST", "/v1/components/registry/import", {
      body: { package: "no-such-pkg" },
    });
    expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
    expect(missing.body.error.message).toContain('Cannot find package "no-such-pkg"');
  });
});
