import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakePackages,
  type FakeRegistry,
  startFakeRegistry,
  unreachableUrl,
} from "../../runtime/test/_fake-registry.js";
import { baseEnv, pd, post, type Served, serve, stop, tempDir, waitForAsync } from "./_helpers.js";

// An npm package of components in Pipedream's layout. Its source imports "shout", a package
// installed nowhere: the server gets it from the (fake) npm registry.
const PACKAGES: FakePackages = {
  "@acme/hookline-components": {
    "1.2.0": {
      files: {
        "http.app.mjs": `export default { type: "app", app: "http", methods: { loud(s) { return s + "!"; } } };`,
        "sources/common/base.mjs": `import http from "../../http.app.mjs";
          export default { props: { http, httpInterface: "$.interface.http" } };`,
        "sources/new-shout/new-shout.mjs": `import shout from "shout";
          import common from "../common/base.mjs";
          export default {
            ...common,
            key: "http-new-shout", name: "New Shout", version: "0.3.0", type: "source",
            async run(event) { this.$emit({ said: this.http.loud(shout(event.body.text)) }); },
          };`,
        "sources/new-shout/test-event.mjs": "export default {};",
        "actions/shout-it/shout-it.mjs": `import shout from "shout";
          import http from "../../http.app.mjs";
          export default {
            key: "http-shout-it", name: "Shout It", version: "0.1.0", type: "action",
            props: { http, text: { type: "string" } },
            async run() { return shout(this.text); },
          };`,
        "actions/broken/broken.mjs": `export default { key: "http-broken", name: "Broken", type: "action", run() {} };`,
        "common/helpers.mjs": "export default 1;",
      },
      // Its components' bare imports are published with this range ("shout@^1.0.0").
      dependencies: { shout: "^1.0.0" },
    },
  },
  shout: {
    "1.0.0": { files: { "index.js": 'module.exports = (s) => String(s).toUpperCase() + "!";' } },
    // The latest, outside the declared range: never used.
    "2.0.0": { files: { "index.js": 'module.exports = () => "wrong major";' } },
  },
};

const json = <T>(text: string): T => JSON.parse(text) as T;

interface Imported {
  package: string;
  results: Array<{ file: string; status: string; key?: string; error?: { code: string } }>;
}

describe("the registry: essentials, pd serve --import, pd registry import, npm packages", () => {
  let registry: FakeRegistry;
  const dir = tempDir();
  let served: Served | undefined;
  beforeAll(async () => {
    registry = await startFakeRegistry(PACKAGES);
  });
  afterAll(async () => {
    if (served) await stop(served);
    await registry.close();
  });

  it("publishes the essentials and an npm package at start-up, imports with the CLI, and works offline after a restart", async () => {
    // A memory store (quick to start); the package cache is a folder of the test's own.
    const serverEnv = baseEnv({ HOOKLINE_PACKAGES_DIR: join(dir, "packages") });
    served = await serve(
      [
        "--memory",
        "--allow-private-urls",
        "--npm-registry",
        registry.url,
        "--import",
        "@acme/hookline-components",
      ],
      { cwd: dir, env: serverEnv },
      60_000,
    );
    const banner = served.output.stdout;
    expect(banner).toContain(`npm:      ${registry.url}; packages cached in ${join(dir, "packages")}`);
    expect(banner).toContain("Registry: essentials: 13 published");
    expect(banner).toContain("Registry: @acme/hookline-components@1.2.0: 2 published, 1 failed");
    expect(served.output.stderr).toMatch(
      /registry: @acme\/hookline-components@1\.2\.0: actions\/broken\/broken\.mjs: \w+:/,
    );
    const env = baseEnv({
      HOOKLINE_API_KEY: served.key ?? "",
      HOOKLINE_BASE_URL: served.url,
      XDG_CONFIG_HOME: join(dir, "config"),
      XDG_CACHE_HOME: join(dir, "cache"),
    });

    // REST: the public registry lists the essentials and the imported components.
    const listed = await fetch(`${served.url}/v1/components/registry`, {
      headers: { authorization: `Bearer ${served.key}` },
    }).then((r) => r.json() as Promise<{ data: Array<{ key: string; visibility: string }> }>);
    expect(listed.data.map((c) => `${c.key}:${c.visibility}`).sort()).toEqual([
      "data_stores-get-record:public",
      "data_stores-set-record:public",
      "email-send-email:public",
      "formatting-format-text:public",
      "github-new-signed-event:public",
      "helper_functions-delay:public",
      "helper_functions-filter:public",
      "http-new-requests:public",
      "http-new-shout:public",
      "http-send-request:public",
      "http-shout-it:public",
      "rss-new-item-in-feed:public",
      "schedule-custom-interval:public",
      "shopify-new-signed-event:public",
      "stripe-new-signed-event:public",
    ]);

    // pd deploy <key>: the imported source runs with "shout", fetched from the npm registry.
    const deployed = await pd(["deploy", "http-new-shout", "--name", "shouter", "--json"], { cwd: dir, env });
    expect(deployed.stderr).toBe("");
    const source = json<{ id: string; endpoint_url: string }>(deployed.stdout);
    expect(await post(source.endpoint_url, { text: "hi" })).toBe(200);
    await waitForAsync(async () => {
      const events = await pd(["events", "shouter", "-n", "1", "--json"], { cwd: dir, env });
      return /"said":\s*"HI!!"/.test(events.stdout);
    }, 20_000);
    expect(registry.requests).toEqual(expect.arrayContaining(["/shout", "/-/shout-1.0.0.tgz"]));
    expect(registry.requests).not.toContain("/-/shout-2.0.0.tgz");

    // The essentials deploy by key too.
    const http = await pd(["deploy", "http-new-requests", "--name", "inbox", "--json"], { cwd: dir, env });
    expect(http.stderr).toBe("");
    const inbox = json<{ endpoint_url: string }>(http.stdout);
    const answer = await fetch(inbox.endpoint_url, { method: "POST", body: "{}" });
    expect([answer.status, await answer.text()]).toEqual([200, '{ "success": true }']);

    // pd registry import: the same package again is "already published"; the broken one says why.
    const again = await pd(
      ["registry", "import", "@acme/hookline-components", "--npm-registry", registry.url, "--json"],
      { cwd: dir, env },
    );
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    const imported = json<Imported>(again.stdout);
    expect(imported.package).toBe("@acme/hookline-components@1.2.0");
    expect(imported.results.map((r) => [r.file, r.status])).toEqual([
      ["sources/new-shout/new-shout.mjs", "exists"],
      ["actions/broken/broken.mjs", "failed"],
      ["actions/shout-it/shout-it.mjs", "exists"],
    ]);
    const unknown = await pd(["registry", "import", "no-such-package", "--npm-registry", registry.url], {
      cwd: dir,
      env,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^package_not_found: Cannot find package "no-such-package" \(looked in: node_modules, npm\)/m,
    );
    const folder = tempDir();
    const empty = await pd(["registry", "import", folder], { cwd: dir, env });
    expect([empty.code, empty.stderr.split(":")[0]]).toEqual([1, "no_components"]);

    // Restart with the registry unreachable: the package cache serves the import (published again
    // into the new memory store) and new deploys.
    expect(await stop(served)).toBe(0);
    served = undefined;
    const down = await unreachableUrl();
    // The registry and the import given by environment variables this time.
    served = await serve(
      ["--memory", "--allow-private-urls"],
      {
        cwd: dir,
        env: { ...serverEnv, HOOKLINE_NPM_REGISTRY: down, HOOKLINE_IMPORT: " @acme/hookline-components ," },
      },
      60_000,
    );
    expect(served.output.stdout).toContain(`npm:      ${down}; packages cached in ${join(dir, "packages")}`);
    expect(served.output.stdout).toContain("Registry: essentials: 13 published");
    expect(served.output.stdout).toContain(
      "Registry: @acme/hookline-components@1.2.0: 2 published, 1 failed",
    );
    const offlineEnv = { ...env, HOOKLINE_BASE_URL: served.url, HOOKLINE_API_KEY: served.key ?? "" };
    const file = join(dir, "yell.mjs");
    writeFileSync(
      file,
      `import shout from "shout@^1";
      export default { name: "Yell", version: "0.1.0", props: { http: "$.interface.http" },
        async run(event) { this.$emit({ said: shout(event.body.text) }); } };`,
    );
    const offline = await pd(["deploy", "yell.mjs", "--name", "yell", "--json"], {
      cwd: dir,
      env: offlineEnv,
    });
    // The cache served "shout" because the registry could not be reached, and the deploy says so
    // (issue 34: the cache serves only then, with a warning), on stderr; the deploy still succeeds.
    expect(offline.code).toBe(0);
    expect(offline.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^⚠ warning imports\.shout: shout@1\.0\.0 came from the package cache: the npm registry http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\).*\(package_from_cache\)$/,
      ),
    ]);
    const yell = json<{ endpoint_url: string }>(offline.stdout);
    expect(await post(yell.endpoint_url, { text: "offline" })).toBe(200);
    await waitForAsync(async () => {
      const events = await pd(["events", "yell", "-n", "1", "--json"], { cwd: dir, env: offlineEnv });
      return /"said":\s*"OFFLINE!"/.test(events.stdout);
    }, 20_000);
    // A package that was never fetched cannot be had offline: the error names it and why.
    writeFileSync(
      file,
      `import x from "never-fetched@2"; export default { name: "N", version: "1", run() {} };`,
    );
    const missing = await pd(["deploy", "yell.mjs"], { cwd: dir, env: offlineEnv });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^module_not_found: Cannot find package "never-fetched@2" \(looked in: node_modules, npm\): npm: the npm registry http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\), and the package cache has no version of it/m,
    );
  }, 180_000);

  it("--no-npm turns the registry off; a bad --npm-registry is a usage error", async () => {
    const bad = await pd(["serve", "--memory", "--npm-registry", "ftp://example.com"], {
      cwd: tempDir(),
      env: baseEnv(),
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'usage: --npm-registry must be an http(s) URL or "off", got "ftp://example.com"',
    );
    const off = await serve(["--memory", "--no-npm", "--no-essentials"], { cwd: tempDir(), env: baseEnv() });
    try {
      expect(off.output.stdout).toContain("npm:      off (packages from node_modules and the cache)");
      expect(off.output.stdout).not.toContain("Registry:");
    } finally {
      expect(await stop(off)).toBe(0);
    }
  }, 60_000);
});
