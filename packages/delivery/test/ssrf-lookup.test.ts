// The guarded lookup checks every address a host name resolves to, whichever comes first: DNS is
// replaced by a table (no query leaves the machine), so that a name can resolve to a public and a
// private address at once, as a rebinding or a split-horizon name does.
import type { LookupAddress } from "node:dns";
import { describe, expect, it, vi } from "vitest";
import { createGuardedLookup, SsrfError } from "../src/ssrf.js";

const TABLE: Record<string, LookupAddress[]> = {
  "public.test": [{ address: "93.184.216.34", family: 4 }],
  "private-second.test": [
    { address: "93.184.216.34", family: 4 },
    { address: "10.0.0.7", family: 4 },
  ],
  "mapped-second.test": [
    { address: "2606:2800:220:1::1", family: 6 },
    { address: "::ffff:169.254.169.254", family: 6 },
  ],
};

vi.mock("node:dns", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:dns")>();
  const lookup = (
    hostname: string,
    _options: unknown,
    callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    const found = TABLE[hostname];
    if (found) callback(null, found);
    else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
  };
  return { ...real, default: { ...real, lookup }, lookup };
});

function resolve(host: string, all: boolean): Promise<{ err: NodeJS.ErrnoException | null; found: unknown }> {
  const lookup = createGuardedLookup({});
  return new Promise((done) =>
    lookup(host, { all }, (err: NodeJS.ErrnoException | null, found: unknown) => done({ err, found })),
  );
}

describe("createGuardedLookup with a name of several addresses", () => {
  it("passes a name whose addresses are all public", async () => {
    expect(await resolve("public.test", false)).toEqual({ err: null, found: "93.184.216.34" });
  });

  it("refuses a name when any of its addresses is private, not only the first", async () => {
    for (const all of [false, true]) {
      const { err } = await resolve("private-second.test", all);
      expect(err).toBeInstanceOf(SsrfError);
      expect(err).toMatchObject({ reason: "private_address", address: "10.0.0.7" });
      expect((await resolve("mapped-second.test", all)).err).toMatchObject({
        reason: "private_address",
        address: "::ffff:169.254.169.254",
      });
    }
  });
});
