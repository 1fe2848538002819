import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import {
  checkUrl,
  createGuardedLookup,
  createUrlChecker,
  isPrivateAddress,
  SsrfError,
  type SsrfGuardOptions,
} from "../src/ssrf.js";

describe("isPrivateAddress", () => {
  const privateAddresses = [
    "0.0.0.0",
    "0.255.255.255",
    "10.0.0.1",
    "10.255.255.255",
    "100.64.0.1",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.255.254",
    "169.254.0.1",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.168.1.1",
    "198.18.0.1",
    "198.19.255.255",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "[::1]",
    "fc00::1",
    "fd12:3456:789a::1",
    "fe80::1",
    "fe80::1%eth0",
    "febf::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "64:ff9b::127.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
    "metadata.google.internal",
    "METADATA.GOOGLE.INTERNAL.",
  ];
  const publicAddresses = [
    "1.1.1.1",
    "8.8.8.8",
    "93.184.216.34",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "169.253.255.255",
    "192.0.1.1",
    "192.169.0.1",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "11.0.0.0",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "fbff::1",
    "fec0::1".replace("fec0", "fe7f"),
    "example.com",
    "localhost",
  ];

  it.each(privateAddresses)("%s is private", (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(publicAddresses)("%s is public", (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });
});

describe("checkUrl", () => {
  const blocked = (url: string, options?: SsrfGuardOptions) => {
    try {
      checkUrl(url, options);
    } catch (error) {
      expect(error).toBeInstanceOf(SsrfError);
      expect(error).toBeInstanceOf(Error);
      expect((error as SsrfError).code).toBe("ssrf_blocked");
      return (error as SsrfError).reason;
    }
    return undefined;
  };

  it("accepts public http(s) URLs and host names", () => {
    expect(checkUrl("https://example.com/hook").hostname).toBe("example.com");
    expect(blocked("http://8.8.8.8:8080/")).toBeUndefined();
    expect(blocked("http://localhost:3000/")).toBeUndefined(); // resolved at connect time
  });

  it("refuses literal private IPs, including non-canonical spellings", () => {
    expect(blocked("http://127.0.0.1/")).toBe("private_address");
    expect(blocked("http://169.254.169.254/latest/meta-data")).toBe("private_address");
    expect(blocked("http://[::1]:8080/")).toBe("private_address");
    expect(blocked("http://[::ffff:127.0.0.1]/")).toBe("private_address");
    expect(blocked("http://2130706433/")).toBe("private_address");
    expect(blocked("http://0x7f.1/")).toBe("private_address");
    expect(blocked("http://metadata.google.internal/")).toBe("blocked_hostname");
  });

  it("refuses other schemes", () => {
    expect(blocked("file:///etc/passwd")).toBe("invalid_scheme");
    expect(blocked("ftp://example.com/")).toBe("invalid_scheme");
    expect(blocked("gopher://example.com/")).toBe("invalid_scheme");
  });

  it("honours allowPrivate and allowList", () => {
    expect(blocked("http://127.0.0.1/", { allowPrivate: true })).toBeUndefined();
    expect(blocked("http://127.0.0.1/", { allowList: ["127.0.0.1"] })).toBeUndefined();
    expect(blocked("http://10.1.2.3/", { allowList: ["10.0.0.0/8"] })).toBeUndefined();
    expect(blocked("http://10.1.2.3/", { allowList: ["10.0.0.0/16"] })).toBe("private_address");
    expect(blocked("http://[::1]/", { allowList: ["::1"] })).toBeUndefined();
    expect(blocked("http://metadata.google.internal/", { allowList: ["metadata.google.internal"] })).toBe(
      undefined,
    );
  });

  it("decides the same through createUrlChecker, whose options are compiled once", () => {
    const urls = [
      "https://example.com/hook",
      "http://127.0.0.1/",
      "http://10.1.2.3/",
      "http://10.2.0.1/",
      "http://[::ffff:10.1.0.1]/",
      "http://metadata.google.internal/",
      "file:///etc/passwd",
    ];
    const reason = (check: () => URL) => {
      try {
        return check().href;
      } catch (error) {
        return (error as SsrfError).reason;
      }
    };
    for (const options of [
      {},
      { allowList: ["10.1.0.0/16"] },
      { allowPrivate: true },
    ] as SsrfGuardOptions[]) {
      const check = createUrlChecker(options);
      for (const url of urls) expect(reason(() => check(url))).toBe(reason(() => checkUrl(url, options)));
    }
    const check = createUrlChecker({ allowList: ["10.1.0.0/16"] });
    expect(check("http://10.1.2.3/").hostname).toBe("10.1.2.3");
    expect(() => check("http://10.2.0.1/")).toThrow(SsrfError);
  });
});

type LookupResult = { err: NodeJS.ErrnoException | null; address?: string; addresses?: LookupAddress[] };

function lookupOne(options: SsrfGuardOptions, host: string): Promise<LookupResult> {
  const lookup = createGuardedLookup(options);
  return new Promise((resolve) =>
    lookup(host, {}, (err, address) => resolve({ err, address: address as string })),
  );
}

function lookupAll(options: SsrfGuardOptions, host: string): Promise<LookupResult> {
  const lookup = createGuardedLookup(options);
  return new Promise((resolve) =>
    lookup(host, { all: true }, (err, addresses) => resolve({ err, addresses })),
  );
}

describe("createGuardedLookup", () => {
  it("refuses localhost", async () => {
    const { err } = await lookupOne({}, "localhost");
    expect(err).toBeInstanceOf(SsrfError);
    expect(err?.code).toBe("ssrf_blocked");
    const all = await lookupAll({}, "localhost");
    expect(all.err).toBeInstanceOf(SsrfError);
  });

  it("refuses literal private addresses and metadata host names", async () => {
    expect((await lookupOne({}, "127.0.0.1")).err).toBeInstanceOf(SsrfError);
    expect((await lookupOne({}, "169.254.169.254")).err).toBeInstanceOf(SsrfError);
    expect((await lookupOne({}, "metadata.google.internal")).err).toBeInstanceOf(SsrfError);
  });

  it("allows localhost with allowPrivate", async () => {
    const { err, address } = await lookupOne({ allowPrivate: true }, "localhost");
    expect(err).toBeNull();
    expect(isPrivateAddress(address!)).toBe(true);
  });

  it("allows localhost with an allow list naming its addresses or the host", async () => {
    const options = { allowList: ["127.0.0.1", "::1"] };
    const { err, addresses } = await lookupAll(options, "localhost");
    expect(err).toBeNull();
    expect(addresses!.length).toBeGreaterThan(0);
    const one = await lookupOne({ allowList: ["127.0.0.1"] }, "127.0.0.1");
    expect(one.err).toBeNull();
    expect(one.address).toBe("127.0.0.1");
    expect((await lookupAll({ allowList: ["localhost"] }, "localhost")).err).toBeNull();
  });

  it("allows localhost over IPv4 with allowList 127.0.0.1", async () => {
    const lookup = createGuardedLookup({ allowList: ["127.0.0.1"] });
    const address = await new Promise<string>((resolve, reject) =>
      lookup("localhost", { family: 4 }, (err, found) => (err ? reject(err) : resolve(found))),
    );
    expect(address).toBe("127.0.0.1");
  });

  it("supports the (hostname, family, callback) and (hostname, callback) forms", async () => {
    const lookup = createGuardedLookup({ allowPrivate: true });
    const withFamily = await new Promise<[string, number]>((resolve, reject) =>
      lookup("127.0.0.1", 4, (err, address, family) => (err ? reject(err) : resolve([address, family]))),
    );
    expect(withFamily).toEqual(["127.0.0.1", 4]);
    const bare = await new Promise<string>((resolve, reject) =>
      lookup("127.0.0.1", (err, address) => (err ? reject(err) : resolve(address))),
    );
    expect(bare).toBe("127.0.0.1");
  });
});
