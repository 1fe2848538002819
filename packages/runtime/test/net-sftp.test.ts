/**
 * `ssh2-sftp-client` (Pipedream's sftp components), unchanged from npm, in the sandbox against an
 * SFTP server on loopback: ssh2's own `Server` in this process, over an in-memory file tree. Each
 * case pins a key exchange and a cipher (the server records what was negotiated), so the paths
 * the guest needs are each exercised: curve25519 (`diffieHellman`), ECDH (`createECDH`), a MODP
 * group (`createDiffieHellmanGroup`),
 * chacha20-poly1305 (the bundler's pure-JS Poly1305 for ssh2's WebAssembly one), AES-GCM and
 * AES-CTR (ciphers whose `update()` returns output).
 */
import { generateKeyPairSync } from "node:crypto";
import type { AddressInfo } from "node:net";
import ssh2 from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, nodeModulesResolver, type Runtime } from "../src/index.js";
import { REPO_ROOT } from "./_helpers.js";
import { loopbackBridges } from "./_net.js";

const { STATUS_CODE, OPEN_MODE } = ssh2.utils.sftp;

const COMPONENT = `import Client from "ssh2-sftp-client";
export default { name: "sftp", version: "0.1.0", props: {}, async run(event) {
  const sftp = new Client();
  await sftp.connect({ host: "127.0.0.1", port: event.port, username: "ada", password: "secret",
    algorithms: { kex: [event.kex], cipher: [event.cipher] } });
  await sftp.put(Buffer.from(event.text), "/up.txt");
  const list = await sftp.list("/");
  const got = await sftp.get("/up.txt");
  await sftp.end();
  this.$emit({ list: list.map((f) => [f.name, f.type, f.size]), got: got.toString() });
} }`;

const files = new Map<string, Buffer>();
const negotiated: { kex: string; cipher: string }[] = [];

/** An SFTP subsystem over `files` (flat: every file is in "/"). */
function serveSftp(sftp: ssh2.SFTPWrapper): void {
  const handles = new Map<number, { path: string; dir: boolean; listed?: boolean }>();
  let next = 0;
  const handle = (path: string, dir: boolean) => {
    const id = next++;
    handles.set(id, { path, dir });
    const h = Buffer.alloc(4);
    h.writeUInt32BE(id);
    return h;
  };
  const of = (h: Buffer) => handles.get(h.readUInt32BE(0));
  const attrs = (dir: boolean, size: number) => ({
    mode: dir ? 0o40755 : 0o100644,
    uid: 0,
    gid: 0,
    size,
    atime: 1_700_000_000,
    mtime: 1_700_000_000,
  });
  const stat = (reqid: number, path: string) => {
    if (path === "/" || path === ".") return sftp.attrs(reqid, attrs(true, 0));
    const file = files.get(path);
    if (!file) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
    sftp.attrs(reqid, attrs(false, file.length));
  };
  sftp.on("REALPATH", (reqid, path) =>
    sftp.name(reqid, [{ filename: path === "." ? "/" : path, longname: "", attrs: attrs(true, 0) }]),
  );
  sftp.on("STAT", stat);
  sftp.on("LSTAT", stat);
  sftp.on("OPEN", (reqid, path, flags) => {
    if (flags & OPEN_MODE.WRITE) files.set(path, Buffer.alloc(0));
    else if (!files.has(path)) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
    sftp.handle(reqid, handle(path, false));
  });
  sftp.on("FSTAT", (reqid, h) => stat(reqid, of(h)?.path ?? ""));
  sftp.on("WRITE", (reqid, h, offset, data) => {
    const path = of(h)?.path ?? "";
    const old = files.get(path) ?? Buffer.alloc(0);
    const grown = Buffer.alloc(Math.max(old.length, offset + data.length));
    old.copy(grown);
    data.copy(grown, offset);
    files.set(path, grown);
    sftp.status(reqid, STATUS_CODE.OK);
  });
  sftp.on("READ", (reqid, h, offset, length) => {
    const file = files.get(of(h)?.path ?? "") ?? Buffer.alloc(0);
    if (offset >= file.length) return sftp.status(reqid, STATUS_CODE.EOF);
    sftp.data(reqid, file.subarray(offset, offset + length));
  });
  sftp.on("OPENDIR", (reqid, path) => sftp.handle(reqid, handle(path, true)));
  sftp.on("READDIR", (reqid, h) => {
    const dir = of(h);
    if (!dir || dir.listed) return sftp.status(reqid, STATUS_CODE.EOF);
    dir.listed = true;
    sftp.name(
      reqid,
      [...files].map(([path, data]) => ({
        filename: path.slice(1),
        longname: `-rw-r--r--    1 ada      ada      ${data.length} Jan  1 00:00 ${path.slice(1)}`,
        attrs: attrs(false, data.length),
      })),
    );
  });
  sftp.on("CLOSE", (reqid, h) => {
    handles.delete(h.readUInt32BE(0));
    sftp.status(reqid, STATUS_CODE.OK);
  });
}

let server: ssh2.Server;
let port = 0;
const runtimes: Record<"thread" | "pool", Runtime> = {} as never;
let loaded: ReturnType<Runtime["load"]>;
beforeAll(async () => {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  server = new ssh2.Server({ hostKeys: [privateKey] }, (client) => {
    client.on("handshake", (n) => negotiated.push({ kex: n.kex, cipher: n.cs.cipher }));
    client.on("authentication", (ctx) =>
      ctx.method === "password" && ctx.username === "ada" && ctx.password === "secret"
        ? ctx.accept()
        : ctx.reject(["password"]),
    );
    client.on("session", (accept) => {
      accept().on("sftp", (acceptSftp) => serveSftp(acceptSftp()));
    });
    client.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  for (const mode of ["thread", "pool"] as const)
    runtimes[mode] = createRuntime({ resolvers: [nodeModulesResolver(REPO_ROOT)], mode, pool: { size: 1 } });
  loaded = runtimes.thread.load({ code: COMPONENT, filename: "sftp.mjs" });
});
afterAll(async () => {
  await Promise.all(Object.values(runtimes).map((r) => r.close()));
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Runs the component in `mode` and checks the round trip and what the server negotiated. */
async function roundTrip(mode: "thread" | "pool", kex: string, cipher: string): Promise<void> {
  files.clear();
  const runtime = runtimes[mode];
  const { bundle, description } = await loaded;
  const mounted = await runtime.mount({
    id: "dc_sftp",
    bundle,
    description,
    props: {},
    bridges: loopbackBridges(),
  });
  // Longer than one 32 KB SFTP packet, so that the cipher streams over several.
  const text = `hello over ${cipher} `.repeat(3000);
  try {
    const result = await mounted.run({ port, kex, cipher, text });
    expect(result.error).toBeUndefined();
    expect(result.emits[0]?.event).toEqual({ list: [["up.txt", "-", text.length]], got: text });
    expect(files.get("/up.txt")?.toString()).toBe(text);
    expect(negotiated.at(-1)).toEqual({ kex, cipher });
  } finally {
    mounted.dispose();
  }
}

describe("ssh2-sftp-client in the sandbox", () => {
  it.each([
    ["curve25519-sha256", "chacha20-poly1305@openssh.com"],
    ["ecdh-sha2-nistp256", "aes128-gcm@openssh.com"],
    ["ecdh-sha2-nistp384", "aes256-ctr"],
    ["diffie-hellman-group14-sha256", "aes128-ctr"],
  ])("puts, lists and gets a file over %s and %s", (kex, cipher) => roundTrip("thread", kex, cipher));

  it("does the same in pool mode", () =>
    roundTrip("pool", "curve25519-sha256", "chacha20-poly1305@openssh.com"));
});
