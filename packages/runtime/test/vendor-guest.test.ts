/**
 * The guest files built from npm packages (guest/vendor/, scripts/vendor-guest.mjs) are what the
 * installed packages build to: upgrading `buffer`, `events`, `readable-stream`, `string_decoder`
 * or `web-streams-polyfill` without `npm run vendor:guest -w packages/runtime` fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script without types
import { buildVendored, VENDOR_DIR } from "../scripts/vendor-guest.mjs";

describe("vendored guest modules", () => {
  it("match a fresh build from the installed packages", async () => {
    const built = (await buildVendored()) as Map<string, string>;
    expect([...built.keys()].sort()).toEqual(["buffer", "events", "stream", "string_decoder", "web-streams"]);
    for (const [name, source] of built) {
      expect(readFileSync(join(VENDOR_DIR, `${name}.js`), "utf8"), `guest/vendor/${name}.js is stale`).toBe(
        source,
      );
    }
  });
});
