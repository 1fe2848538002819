import { createMemoryStore } from "@hookline/store";
import { describe, expect, it } from "vitest";
import { createHookline } from "../src/index.js";

describe("the secrets key check (issue 14 item 10)", () => {
  it("a node started with another key than the store's first node refuses to start, naming HOOKLINE_SECRETS_KEY", async () => {
    const store = createMemoryStore();
    const first = createHookline({ store, secretsKey: "the-right-key", worker: false });
    await first.start();
    expect(await store.settings.get("secrets_key_check")).toMatch(/^v1:/);
    expect(await store.settings.get("secrets_key_check")).not.toContain("the-right-key");

    const wrong = createHookline({ store, secretsKey: "another-key", worker: false, timerPollMs: 10 });
    await expect(wrong.start()).rejects.toMatchObject({
      code: "configuration_error",
      message: expect.stringContaining("HOOKLINE_SECRETS_KEY"),
    });
    await expect(wrong.start()).rejects.toMatchObject({ code: "configuration_error" }); // still refused

    // The same key (as a 64-hex-digit key or any string, as given) starts.
    const same = createHookline({ store, secretsKey: "the-right-key", worker: false });
    await expect(same.start()).resolves.toBeUndefined();
    await Promise.all([first.close(), wrong.close(), same.close()]);
  });

  it("an engine without a secretsKey (a random key per process) writes no check value", async () => {
    const store = createMemoryStore();
    const engine = createHookline({ store, worker: false });
    await engine.start();
    expect(await store.settings.get("secrets_key_check")).toBeUndefined();
    await engine.close();
  });
});
