import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeRegistry, startFakeRegistry } from "../../runtime/test/_fake-registry.js";
import { baseEnv, pd, type Served, serve, stop, tempDir } from "./_helpers.js";

// SPEC, Versioning 3: a version in an import (`pkg@1.0.0`) applies to sources only. An action that
// pins one is published with an `action_version_pin` warning; its import still resolves.
describe("an action that pins an npm version; an apphook source as a subscription's listener", () => {
  let registry: FakeRegistry;
  let served: Served | undefined;
  const dir = tempDir();
  beforeAll(async () => {
    registry = await startFakeRegistry({
      shout: {
        "1.0.0": { files: { "index.js": 'module.exports = (s) => String(s).toUpperCase() + "!";' } },
        "2.0.0": { files: { "index.js": 'module.exports = () => "latest";' } },
      },
    });
    served = await serve(
      ["--memory", "--allow-private-urls", "--no-essentials", "--npm-registry", registry.url],
      { cwd: dir, env: baseEnv({ HOOKLINE_PACKAGES_DIR: join(dir, "packages") }) },
      60_000,
    );
  }, 90_000);
  afterAll(async () => {
    if (served) await stop(served);
    await registry.close();
  });

  it("pd publish prints the action_version_pin warning and publishes; a source's pin gets none; pd subscriptions create takes a dc_ listener", async () => {
    const env = baseEnv({
      HOOKLINE_API_KEY: served?.key ?? "",
      HOOKLINE_BASE_URL: served?.url ?? "",
      XDG_CONFIG_HOME: join(dir, "config"),
    });
    writeFileSync(
      join(dir, "shout-it.mjs"),
      `import shout from "shout@1.0.0";
export default {
  key: "custom-shout-it", name: "Shout It", version: "0.1.0", type: "action",
  props: { text: { type: "string" } },
  async run() { return shout(this.text); },
};\n`,
    );
    const published = await pd(["publish", "shout-it.mjs", "--json"], { cwd: dir, env });
    expect(published.code, published.stderr).toBe(0);
    expect(published.stderr).toMatch(
      /⚠ warning imports\.shout: "shout@1\.0\.0": .*sources only.*\(action_version_pin\)/,
    );
    expect(JSON.parse(published.stdout).key).toBe("custom-shout-it");

    writeFileSync(
      join(dir, "shouter.mjs"),
      `import shout from "shout@1.0.0";
export default { name: "Shouter", version: "0.1.0", run(e) { this.$emit({ said: shout(e.text) }); } };\n`,
    );
    const deployed = await pd(["deploy", "shouter.mjs", "--name", "shouter", "--json"], { cwd: dir, env });
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stderr).not.toContain("action_version_pin");

    // pd subscriptions create takes an apphook source (dc_...) as the listener.
    writeFileSync(
      join(dir, "relay.mjs"),
      `export default { name: "Relay", version: "0.1.0",
  props: { app: { type: "app", app: "http" }, hook: { type: "$.interface.apphook", appProp: "app", eventNames: ["default"] } },
  run(e) { this.$emit({ relayed: e }); } };\n`,
    );
    const relay = await pd(["deploy", "relay.mjs", "--name", "relay", "--json"], { cwd: dir, env });
    expect(relay.code, relay.stderr).toBe(0);
    const relayId = JSON.parse(relay.stdout).id as string;
    const sub = await pd(["subscriptions", "create", "shouter", relayId], { cwd: dir, env });
    expect(sub.code, sub.stderr).toBe(0);
    expect(sub.stdout).toContain(`Subscribed ${relayId} to`);
    const self = await pd(["subscriptions", "create", "relay", relayId], { cwd: dir, env });
    expect(self.code).not.toBe(0);
    expect(self.stderr).toContain("subscription_cycle");
  }, 120_000);
});
