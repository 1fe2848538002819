/**
 * Node's pure-JavaScript modules and globals in the sandbox, as SDKs use them: `events` and
 * `util.inherits` with ES5 constructors, `buffer`, `stream`, Blob/File/FormData (and the
 * `form-data` package), AbortController, performance, `crypto` signatures and ciphers compared
 * with Node's own results, `crypto-js`, and Intl. One component per concern, run once.
 */
import {
  createCipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  pbkdf2Sync,
  scryptSync,
  sign,
  verify,
} from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { BridgeRequest, BridgeResponse } from "../src/index.js";
import { mountCode, testRuntime } from "./_helpers.js";

const runtime = testRuntime();
afterAll(() => runtime.close());

/** Runs `body` as an action's `run` and returns its value (failing on a sandbox error). */
async function run(body: string, bridges: Parameters<typeof mountCode>[3] = {}, imports = "") {
  const code = `${imports}\nexport default { name: "T", version: "0.1.0", type: "action", async run({ $ }) {\n${body}\n} };`;
  const m = await mountCode(runtime, code, {}, bridges);
  try {
    const r = await m.runAction();
    if (r.error) throw new Error(`${r.error.name}: ${r.error.message}`);
    return r.returnValue as Record<string, any>;
  } finally {
    m.dispose();
  }
}

describe("events, util and streams from their packages", () => {
  it("an ES5 subclass of EventEmitter (util.inherits, EventEmitter.call) and Node's newer statics", async () => {
    const out = await run(
      `
      function Client(name) { EventEmitter.call(this); this.name = name; }
      util.inherits(Client, EventEmitter);
      Client.prototype.hello = function () { this.emit("hello", this.name); };
      const c = new Client("ada");
      const seen = [];
      c.on("hello", (n) => seen.push("on:" + n));
      c.prependOnceListener("hello", (n) => seen.push("first:" + n));
      c.hello(); c.hello();
      const monitored = [];
      c.on(EventEmitter.errorMonitor, (e) => monitored.push(e.message));
      c.on("error", (e) => monitored.push("handled:" + e.message));
      c.emit("error", new Error("boom"));
      const waited = EventEmitter.once(c, "ready");
      c.emit("ready", 1, 2);
      // An ES5 Readable subclass, as old SDKs write them.
      function Source() { Readable.call(this); this.n = 0; }
      util.inherits(Source, Readable);
      Source.prototype._read = function () { this.push(this.n < 3 ? String(this.n++) : null); };
      let text = "";
      for await (const chunk of new Source()) text += chunk;
      return {
        seen, monitored, waited: await waited, superOk: Client.super_ === EventEmitter,
        isEmitter: c instanceof EventEmitter, raw: c.rawListeners("hello").length, text,
      };`,
      {},
      `import { EventEmitter } from "events"; import util from "util"; import { Readable } from "stream";`,
    );
    expect(out).toEqual({
      seen: ["first:ada", "on:ada", "on:ada"],
      monitored: ["boom", "handled:boom"],
      waited: [1, 2],
      superOk: true,
      isEmitter: true,
      raw: 1,
      text: "012",
    });
  });

  it("Buffer as Node's: copy, fill and alloc with strings, variable-width integers, swap16, range errors", async () => {
    const out = await run(`
      const target = Buffer.alloc(6);
      const copied = Buffer.from("hey").copy(target, 2);
      const filled = Buffer.alloc(5); filled.fill("ab");
      const wide = Buffer.alloc(6); wide.writeUIntLE(0x123456, 0, 3); wide.writeUIntBE(0xabcdef, 3, 3);
      let range; try { Buffer.alloc(1).writeUInt8(300); } catch (e) { range = e.name; }
      return {
        copied, target: [...target], filled: filled.toString(), alloc: Buffer.alloc(4, "ab").toString(),
        le: wide.readUIntLE(0, 3), be: wide.readUIntBE(3, 3), swapped: [...Buffer.from([1, 2, 3, 4]).swap16()],
        range, json: JSON.stringify(Buffer.from("hi")), b64url: Buffer.from("\\xff\\xfe").toString("base64url"),
      };`);
    const wide = Buffer.alloc(6);
    wide.writeUIntLE(0x123456, 0, 3);
    wide.writeUIntBE(0xabcdef, 3, 3);
    const filled = Buffer.alloc(5);
    filled.fill("ab");
    expect(out).toEqual({
      copied: 3,
      target: [0, 0, 104, 101, 121, 0],
      filled: filled.toString(),
      alloc: Buffer.alloc(4, "ab").toString(),
      le: wide.readUIntLE(0, 3),
      be: wide.readUIntBE(3, 3),
      swapped: [2, 1, 4, 3],
      range: "RangeError",
      json: JSON.stringify(Buffer.from("hi")),
      b64url: Buffer.from("\xff\xfe").toString("base64url"),
    });
  });
});

describe("Web globals", () => {
  it("Blob, File and FormData: read back, and sent by fetch as multipart/form-data; AbortSignal, performance", async () => {
    const requests: BridgeRequest[] = [];
    const fetchBridge = async (req: BridgeRequest): Promise<BridgeResponse> => {
      requests.push(req);
      return { status: 200, headers: {}, body: "ok" };
    };
    const out = await run(
      `
      const blob = new Blob(["hello ", Buffer.from("world")], { type: "text/plain" });
      const form = new FormData();
      form.append("name", "ada");
      form.append("file", new File([blob], "hello.txt", { type: "text/plain" }));
      await fetch("https://api.example.com/upload", { method: "POST", body: form });
      const aborted = AbortSignal.abort();
      let refused; try { await fetch("https://api.example.com/x", { signal: aborted }); } catch (e) { refused = e.name; }
      const c = new AbortController(); let heard = 0; c.signal.addEventListener("abort", () => heard++); c.abort();
      performance.mark("a"); performance.mark("b");
      const m = performance.measure("a-b", "a", "b");
      const fd = new FormDataPkg(); fd.append("x", Buffer.from("1"), { filename: "x.bin" });
      return {
        text: await blob.text(), size: blob.size, sliced: await blob.slice(6).text(), type: blob.type,
        names: [...form.keys()], file: form.get("file").name, refused, heard, reason: c.signal.reason.name,
        timeout: AbortSignal.timeout(10) instanceof AbortSignal, measured: m.entryType,
        now: performance.now() >= 0, pkg: fd.getHeaders()["content-type"].startsWith("multipart/form-data"),
        pkgBody: fd.getBuffer().toString().includes('filename="x.bin"'),
        web: (await new Response("x").blob()).size,
      };`,
      { fetch: fetchBridge },
      `import FormDataPkg from "form-data";`,
    );
    expect(out).toEqual({
      text: "hello world",
      size: 11,
      sliced: "world",
      type: "text/plain",
      names: ["name", "file"],
      file: "hello.txt",
      refused: "AbortError",
      heard: 1,
      reason: "AbortError",
      timeout: true,
      measured: "measure",
      now: true,
      pkg: true,
      pkgBody: true,
      web: 1,
    });
    expect(requests).toHaveLength(1);
    const sent = requests[0] as BridgeRequest;
    const type = sent.headers["content-type"] ?? "";
    const boundary = /boundary=(.+)$/.exec(type)?.[1];
    expect(type.startsWith("multipart/form-data; boundary=")).toBe(true);
    const body = Buffer.from(sent.body ?? "", "base64").toString();
    expect(body).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nada\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="hello.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\nhello world\r\n--${boundary}--\r\n`,
    );
  });
});

describe("crypto on the host, as Node computes it", () => {
  it("signs and verifies with RSA, PSS and Ed25519 keys made on either side", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const ed = generateKeyPairSync("ed25519");
    const rsaPem = rsa.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const rsaPub = rsa.publicKey.export({ type: "spki", format: "pem" }) as string;
    const edPem = ed.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const out = await run(
      `
      const rsaPem = ${JSON.stringify(rsaPem)}, rsaPub = ${JSON.stringify(rsaPub)}, edPem = ${JSON.stringify(edPem)};
      const pkcs1 = crypto.createSign("RSA-SHA256").update("pay").update("load").sign(rsaPem, "base64");
      const ed = crypto.sign(null, Buffer.from("payload"), edPem).toString("hex");
      const pss = crypto.sign("sha256", Buffer.from("payload"), {
        key: rsaPem, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32,
      }).toString("base64");
      const mine = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
      const ecSig = crypto.sign("sha256", Buffer.from("x"), mine.privateKey);
      return {
        pkcs1, ed, pss,
        verified: crypto.createVerify("RSA-SHA256").update("payload").verify(rsaPub, pkcs1, "base64"),
        forged: crypto.verify("sha256", Buffer.from("other"), rsaPub, Buffer.from(pkcs1, "base64")),
        ecPub: mine.publicKey.export({ type: "spki", format: "pem" }), ecSig: ecSig.toString("base64"),
        type: mine.privateKey.asymmetricKeyType, curve: mine.privateKey.asymmetricKeyDetails.namedCurve,
        keyType: crypto.createPublicKey(rsaPub).type,
      };`,
      {},
      `import crypto from "crypto";`,
    );
    expect(out.pkcs1).toBe(sign("sha256", Buffer.from("payload"), rsaPem).toString("base64"));
    expect(out.ed).toBe(sign(null, Buffer.from("payload"), edPem).toString("hex"));
    expect(
      verify(
        "sha256",
        Buffer.from("payload"),
        { key: rsaPub, padding: 6, saltLength: 32 },
        Buffer.from(out.pss, "base64"),
      ),
    ).toBe(true);
    expect(out.verified).toBe(true);
    expect(out.forged).toBe(false);
    expect(
      verify("sha256", Buffer.from("x"), createPublicKey(out.ecPub), Buffer.from(out.ecSig, "base64")),
    ).toBe(true);
    expect([out.type, out.curve, out.keyType]).toEqual(["ec", "prime256v1", "public"]);
    expect(createPrivateKey(rsaPem).asymmetricKeyType).toBe("rsa");
  });

  it("fills buffers with random bytes as Node does: randomFillSync, randomFill, randomBytes' callback", async () => {
    // uuid's Node build (googleapis-common's multipart uploads) draws from crypto.randomFillSync.
    const out = await run(
      `
      const pool = new Uint8Array(64);
      const same = crypto.randomFillSync(pool) === pool;
      const buf = Buffer.alloc(8);
      crypto.randomFillSync(buf, 6);
      const head = [...buf.subarray(0, 6)];
      let range; try { crypto.randomFillSync(buf, 4, 10); } catch (e) { range = e.name; }
      const filled = await new Promise((res, rej) => crypto.randomFill(new Uint32Array(4), 1, 2, (e, a) => (e ? rej(e) : res(a))));
      const callback = await new Promise((res, rej) => crypto.randomBytes(5, (e, b) => (e ? rej(e) : res(b.length))));
      return { same, varied: new Set(pool).size > 8, head, range, filledType: filled.constructor.name, first: filled[0], last: filled[3], callback };`,
      {},
      `import crypto from "crypto";`,
    );
    expect(out).toEqual({
      same: true,
      varied: true,
      head: [0, 0, 0, 0, 0, 0],
      range: "RangeError",
      filledType: "Uint32Array",
      first: 0,
      last: 0,
      callback: 5,
    });
  });

  it("ciphers (CBC, GCM with its tag), pbkdf2, scrypt and randomBytes give Node's bytes; crypto-js runs", async () => {
    const out = await run(
      `
      const key = crypto.pbkdf2Sync("secret", "salt", 1000, 32, "sha256");
      const iv = Buffer.alloc(16, 7);
      const c = crypto.createCipheriv("aes-256-cbc", key, iv);
      let cbc = c.update("attack at dawn", "utf8", "hex"); cbc += c.final("hex");
      const d = crypto.createDecipheriv("aes-256-cbc", key, iv);
      const back = Buffer.concat([d.update(Buffer.from(cbc, "hex")), d.final()]).toString();
      const g = crypto.createCipheriv("aes-256-gcm", key, iv.subarray(0, 12));
      g.setAAD(Buffer.from("head"));
      const gcm = Buffer.concat([g.update("x"), g.final()]).toString("hex");
      const tag = g.getAuthTag().toString("hex");
      const gd = crypto.createDecipheriv("aes-256-gcm", key, iv.subarray(0, 12));
      gd.setAAD(Buffer.from("head")); gd.setAuthTag(Buffer.from("00".repeat(16), "hex"));
      let tampered; try { gd.update(Buffer.from(gcm, "hex")); gd.final(); } catch (e) { tampered = "refused"; }
      const scrypt = await new Promise((res, rej) => crypto.scrypt("pw", "salt", 16, (e, k) => (e ? rej(e) : res(k.toString("hex")))));
      return {
        key: key.toString("hex"), cbc, back, gcm, tag, tampered, scrypt, random: crypto.randomBytes(24).length,
        cjs: CryptoJS.HmacSHA256("message", "key").toString(),
        cjsAes: CryptoJS.AES.decrypt(CryptoJS.AES.encrypt("round trip", "pw").toString(), "pw").toString(CryptoJS.enc.Utf8),
        pss: crypto.constants.RSA_PKCS1_PSS_PADDING,
        ciphers: crypto.getCiphers().includes("aes-256-gcm"),
      };`,
      {},
      `import crypto from "crypto"; import CryptoJS from "crypto-js";`,
    );
    const key = pbkdf2Sync("secret", "salt", 1000, 32, "sha256");
    const iv = Buffer.alloc(16, 7);
    const c = createCipheriv("aes-256-cbc", key, iv);
    const g = createCipheriv("aes-256-gcm", key, iv.subarray(0, 12));
    g.setAAD(Buffer.from("head"));
    const gcm = Buffer.concat([g.update("x"), g.final()]).toString("hex");
    expect(out).toEqual({
      key: key.toString("hex"),
      cbc: c.update("attack at dawn", "utf8", "hex") + c.final("hex"),
      back: "attack at dawn",
      gcm,
      tag: g.getAuthTag().toString("hex"),
      tampered: "refused",
      scrypt: scryptSync("pw", "salt", 16).toString("hex"),
      random: 24,
      cjs: createHash("sha256").update("unused").digest("hex").length === 64 ? out.cjs : "",
      cjsAes: "round trip",
      pss: 6,
      ciphers: true,
    });
    // crypto-js's HMAC equals Node's.
    const { createHmac } = await import("node:crypto");
    expect(out.cjs).toBe(createHmac("sha256", "key").update("message").digest("hex"));
  });

  it("stream ciphers (CTR, GCM, ChaCha20) return each update's output as Node does; ECDH, DH groups and diffieHellman agree with Node", async () => {
    // Updates that end mid-block, and a CTR counter that carries over its low bytes.
    const sizes = [5, 20, 70, 1, 130];
    const key = Buffer.alloc(32, 3);
    const ctrIv = Buffer.from("000102030405060708090a0bfffffffe", "hex");
    const nonce = Buffer.alloc(12, 9);
    const chachaIv = Buffer.concat([Buffer.from([0xfe, 0xff, 0xff, 0xff]), nonce]);
    const alice = (await import("node:crypto")).createECDH("prime256v1");
    alice.generateKeys();
    const x = generateKeyPairSync("x25519");
    const modp = (await import("node:crypto")).getDiffieHellman("modp14");
    modp.generateKeys();
    const out = await run(
      `
      const sizes = ${JSON.stringify(sizes)};
      const key = Buffer.alloc(32, 3);
      const chunks = (c) => sizes.map((n, i) => c.update(Buffer.alloc(n, i + 1)).toString("hex"));
      const gcm = crypto.createCipheriv("aes-256-gcm", key, Buffer.alloc(12, 9));
      gcm.setAAD(Buffer.from("head"));
      const gcmParts = chunks(gcm); gcm.final();
      const gd = crypto.createDecipheriv("aes-256-gcm", key, Buffer.alloc(12, 9));
      gd.setAAD(Buffer.from("head")); gd.setAuthTag(gcm.getAuthTag());
      const plain = gd.update(Buffer.from(gcmParts.join(""), "hex")); gd.final();
      const bob = crypto.createECDH("prime256v1");
      const bobPublic = bob.generateKeys("hex");
      const y = crypto.generateKeyPairSync("x25519");
      const dh = crypto.createDiffieHellmanGroup("modp14");
      const dhPublic = dh.generateKeys("hex");
      const dhSecret = dh.computeSecret(Buffer.from("${modp.getPublicKey("hex")}", "hex")).toString("hex");
      const latin = Buffer.from([0x53, 0x53, 0x48, 0xe9]);
      const written = Buffer.alloc(8);
      return {
        ctr: chunks(crypto.createCipheriv("aes-256-ctr", key, Buffer.from("${ctrIv.toString("hex")}", "hex"))),
        chacha: chunks(crypto.createCipheriv("chacha20", key, Buffer.from("${chachaIv.toString("hex")}", "hex"))),
        gcm: gcmParts, tag: gcm.getAuthTag().toString("hex"), plainLength: plain.length,
        bobPublic, bobPrivate: bob.getPrivateKey("hex"),
        ecdhSecret: bob.computeSecret(Buffer.from("${alice.getPublicKey("hex")}", "hex")).toString("hex"),
        yPublic: y.publicKey.export({ type: "spki", format: "der" }).toString("base64"),
        yPrivate: y.privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
        x25519: crypto.diffieHellman({ privateKey: y.privateKey, publicKey: crypto.createPublicKey(${JSON.stringify(
          x.publicKey.export({ type: "spki", format: "pem" }),
        )}) }).toString("hex"),
        dhPublic, dhSecret,
        latin1: latin.latin1Slice(0, 4), wrote: written.utf8Write("héllo", 1, 4), written: written.toString("hex"),
      };`,
      {},
      `import crypto from "crypto";`,
    );
    const chunks = (c: { update: (b: Buffer) => Buffer }) =>
      sizes.map((n, i) => c.update(Buffer.alloc(n, i + 1)).toString("hex"));
    const gcm = createCipheriv("aes-256-gcm", key, nonce);
    gcm.setAAD(Buffer.from("head"));
    const gcmParts = chunks(gcm);
    gcm.final();
    const { createECDH, createPrivateKey: privateOf, diffieHellman } = await import("node:crypto");
    const bob = createECDH("prime256v1");
    bob.setPrivateKey(Buffer.from(out.bobPrivate, "hex"));
    const y = {
      publicKey: createPublicKey({ key: Buffer.from(out.yPublic, "base64"), format: "der", type: "spki" }),
      privateKey: privateOf({ key: Buffer.from(out.yPrivate, "base64"), format: "der", type: "pkcs8" }),
    };
    expect(out).toEqual({
      ctr: chunks(createCipheriv("aes-256-ctr", key, ctrIv)),
      chacha: chunks(createCipheriv("chacha20", key, chachaIv)),
      gcm: gcmParts,
      tag: gcm.getAuthTag().toString("hex"),
      plainLength: sizes.reduce((a, b) => a + b),
      bobPublic: bob.getPublicKey("hex"),
      bobPrivate: out.bobPrivate,
      ecdhSecret: alice.computeSecret(bob.getPublicKey()).toString("hex"),
      yPublic: out.yPublic,
      yPrivate: out.yPrivate,
      x25519: diffieHellman({ privateKey: x.privateKey, publicKey: y.publicKey }).toString("hex"),
      dhPublic: out.dhPublic,
      dhSecret: modp.computeSecret(Buffer.from(out.dhPublic, "hex")).toString("hex"),
      latin1: "SSH\u00e9",
      wrote: Buffer.from("héllo").subarray(0, 4).length,
      written: Buffer.from([0, ...Buffer.from("héllo").subarray(0, 4), 0, 0, 0]).toString("hex"),
    });
  });

  it("bounds what the host derives synchronously", async () => {
    const out = await run(
      `
      try { crypto.pbkdf2Sync("p", "s", 50000000, 32, "sha256"); return "derived"; } catch (e) { return { name: e.name, message: e.message }; }`,
      {},
      `import crypto from "crypto";`,
    );
    expect(out).toEqual({
      name: "RangeError",
      message: expect.stringContaining("at most 1000000 iterations"),
    });
  });
});

describe("Intl over the host's", () => {
  it("formats dates, numbers, plurals and compares as Node does, in UTC unless a zone is named", async () => {
    const out = await run(`
      const d = new Date(Date.UTC(2024, 0, 15, 13, 5, 9));
      return {
        medium: new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "America/New_York" }).format(d),
        euro: new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).format(1234.5),
        sorted: ["b", "a", "C", "ä"].sort(new Intl.Collator("de").compare),
        plural: [0, 1, 2].map((n) => new Intl.PluralRules("en-US").select(n)),
        ordinal: new Intl.PluralRules("en-US", { type: "ordinal" }).select(2),
        relative: new Intl.RelativeTimeFormat("en", { numeric: "auto" }).format(-1, "day"),
        zone: new Intl.DateTimeFormat().resolvedOptions().timeZone,
        local: d.toLocaleString("en-US"), date: d.toLocaleDateString("en-GB"), time: d.toLocaleTimeString("en-US"),
        number: (1234567.891).toLocaleString("en-US"), compare: "a".localeCompare("B"),
      };`);
    const d = new Date(Date.UTC(2024, 0, 15, 13, 5, 9));
    expect(out).toEqual({
      medium: new Intl.DateTimeFormat("en-US", {
        dateStyle: "medium",
        timeStyle: "short",
        timeZone: "America/New_York",
      }).format(d),
      euro: new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).format(1234.5),
      sorted: ["b", "a", "C", "ä"].sort(new Intl.Collator("de").compare),
      plural: ["other", "one", "other"],
      ordinal: "two",
      relative: "yesterday",
      zone: "UTC",
      local: d.toLocaleString("en-US", { timeZone: "UTC" }),
      date: d.toLocaleDateString("en-GB", { timeZone: "UTC" }),
      time: d.toLocaleTimeString("en-US", { timeZone: "UTC" }),
      number: "1,234,567.891",
      compare: -1,
    });
  });
});
