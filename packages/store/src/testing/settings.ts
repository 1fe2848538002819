/** Conformance: settings. */
import { describe, expect } from "vitest";
import { type SuiteContext, unique } from "./context.js";

/** Registers the settings tests. */
export function settingsSuite(t: SuiteContext): void {
  describe("settings", () => {
    t.test("setIfAbsent keeps the first value; get reads it", async () => {
      const key = unique("setting");
      expect(await t.store.settings.get(key)).toBeUndefined();
      expect(await t.store.settings.setIfAbsent(key, "first")).toBe("first");
      expect(await t.store.settings.setIfAbsent(key, "second")).toBe("first");
      expect(await t.store.settings.get(key)).toBe("first");
    });

    t.test("concurrent setIfAbsent calls agree on one value", async () => {
      const key = unique("setting");
      const values = await Promise.all(
        Array.from({ length: 8 }, (_, i) => t.store.settings.setIfAbsent(key, `v${i}`)),
      );
      expect(new Set(values).size).toBe(1);
      expect(await t.store.settings.get(key)).toBe(values[0]);
    });
  });
}
