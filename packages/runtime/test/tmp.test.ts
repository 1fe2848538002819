import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BridgeRequest, BridgeResponse, HostBridges, MountedComponent } from "../src/index.js";
import { REPO_ROOT, testRuntime } from "./_helpers.js";

const runtime = testRuntime({ limits: { tmpBytes: 64 * 1024 } });
afterAll(() => runtime.close());

/** A fetch bridge over the real network (loopback only in these tests). */
const fetchBridge = async (req: BridgeRequest): Promise<BridgeResponse> => {
  const res = await fetch(req.url, { method: req.method, headers: req.headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: bytes.toString("base64"),
    bodyEncoding: "base64",
  };
};

let server: Server;
let base = "";
// 15,000 bytes of every byte value: binary content survives the download.
const BLOB = Buffer.from(Array.from({ length: 15_000 }, (_, i) => (i * 7) % 256));
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/blob.bin") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(BLOB);
    } else if (req.url === "/big.bin") {
      res.end(Buffer.alloc(100 * 1024, 1));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** An action whose run body is `body` (with fs, fs/promises, path, os, stream imported). */
async function action(body: string, id = "dc_tmp", bridges: HostBridges = { fetch: fetchBridge }) {
  const code = `
    import fs from "fs";
    import fsp from "node:fs/promises";
    import path from "path";
    import os from "os";
    import { pipeline } from "stream/promises";
    import { Readable, Transform } from "stream";
    import { axios, getFileStream, getFileStreamAndMetadata } from "@pipedream/platform";
    export default {
      name: "Tmp", version: "0.1.0", type: "action",
      props: { url: { type: "string", optional: true } },
      async run({ $ }) {
        const probe = (fn) => { try { return fn(); } catch (e) { return e.code + ": " + e.message; } };
        ${body}
      },
    };`;
  const loaded = await runtime.load({ code, filename: "tmp.mjs" });
  return runtime.mount({ id, bundle: loaded.bundle, props: { url: base }, bridges });
}

async function run(m: MountedComponent) {
  const r = await m.runAction();
  expect(r.error).toBeUndefined();
  return r.returnValue as Record<string, unknown>;
}

describe("/tmp", () => {
  it("writes a CSV and reads it back; path, os.tmpdir and fs.promises work as in Node", async () => {
    const m = await action(`
      const dir = path.join(os.tmpdir(), "reports");
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, "out.csv");
      fs.writeFileSync(file, "id,name\\n");
      fs.appendFileSync(file, "1,Ada\\n2,Grace\\n");
      const rows = fs.readFileSync(file, "utf8").trim().split("\\n").map((l) => l.split(","));
      await fsp.writeFile("/tmp/notes.txt", Buffer.from("hé"));
      const entries = await fs.promises.readdir("/tmp", { withFileTypes: true });
      const stat = fs.statSync(file);
      return {
        tmpdir: os.tmpdir(),
        rows,
        listing: entries.map((d) => d.name + (d.isDirectory() ? "/" : "")),
        names: await fsp.readdir(dir),
        size: stat.size,
        isFile: stat.isFile(),
        exists: [fs.existsSync(file), fs.existsSync("/tmp/nope")],
        notes: (await fsp.readFile("/tmp/notes.txt")).toString("hex"),
        missing: probe(() => fs.readFileSync("/tmp/nope")),
      };`);
    const out = await run(m);
    expect(out).toEqual({
      tmpdir: "/tmp",
      rows: [
        ["id", "name"],
        ["1", "Ada"],
        ["2", "Grace"],
      ],
      listing: ["notes.txt", "reports/"],
      names: ["out.csv"],
      size: 22,
      isFile: true,
      exists: [true, false],
      notes: "68c3a9",
      missing: "ENOENT: ENOENT: no such file or directory, open '/tmp/nope'",
    });
    m.dispose();
  });

  it("keeps files across invocations and rebuilt sandboxes while mounted; a new mount starts empty", async () => {
    const recycling = testRuntime({ recycleAfter: 1 });
    const code = `import fs from "fs";
      export default { name: "Count", version: "0.1.0", type: "action", async run() {
        const n = fs.existsSync("/tmp/n") ? Number(fs.readFileSync("/tmp/n", "utf8")) + 1 : 1;
        fs.writeFileSync("/tmp/n", String(n));
        return n;
      } };`;
    const loaded = await recycling.load({ code, filename: "count.mjs" });
    const m = await recycling.mount({ id: "dc_count", bundle: loaded.bundle, props: {} });
    expect((await m.runAction()).returnValue).toBe(1);
    expect((await m.runAction()).returnValue).toBe(2);
    expect((await m.runAction()).returnValue).toBe(3);
    m.dispose();
    const again = await recycling.mount({ id: "dc_count", bundle: loaded.bundle, props: {} });
    expect((await again.runAction()).returnValue).toBe(1);
    again.dispose();
    await recycling.close();
  });

  it("one component cannot see another's files, even with the same id mounted twice", async () => {
    const writer = await action(
      `fs.writeFileSync("/tmp/secret.txt", "mine"); return { ok: fs.readdirSync("/tmp") };`,
    );
    expect(await run(writer)).toEqual({ ok: ["secret.txt"] });
    const reader = await action(
      `return { list: fs.readdirSync("/tmp"), read: probe(() => fs.readFileSync("/tmp/secret.txt", "utf8")) };`,
      "dc_other",
    );
    expect(await run(reader)).toEqual({
      list: [],
      read: "ENOENT: ENOENT: no such file or directory, open '/tmp/secret.txt'",
    });
    const sameId = await action(`return { list: fs.readdirSync("/tmp") };`);
    expect(await run(sameId)).toEqual({ list: [] });
    for (const m of [writer, reader, sameId]) m.dispose();
  });

  it("refuses every path outside /tmp with EACCES: ../, absolute, relative, /proc, /etc/passwd, symlinks", async () => {
    const m = await action(`
      fs.writeFileSync("/tmp/inside", "x");
      const attempts = {
        dotdot: probe(() => fs.readFileSync("/tmp/../etc/passwd", "utf8")),
        passwd: probe(() => fs.readFileSync("/etc/passwd", "utf8")),
        proc: probe(() => fs.readdirSync("/proc/self")),
        root: probe(() => fs.readdirSync("/")),
        relative: probe(() => fs.writeFileSync("out.txt", "x")),
        sibling: probe(() => fs.mkdirSync("/tmpx")),
        mkdtemp: probe(() => fs.mkdtempSync("/tmp")),
        rmTmp: probe(() => fs.rmSync("/tmp", { recursive: true })),
        symlinkOut: probe(() => fs.symlinkSync("/etc/passwd", "/tmp/link")),
        symlinkUp: probe(() => fs.symlinkSync("../..", "/tmp/up")),
        renameOut: probe(() => fs.renameSync("/tmp/inside", "/var/inside")),
        copyIn: probe(() => fs.copyFileSync("/etc/hostname", "/tmp/h")),
        stream: await new Promise((resolve) => fs.createReadStream("/etc/passwd").on("error", (e) => resolve(e.code))),
        promise: await fsp.readFile("/proc/self/environ").then(() => "read", (e) => e.code),
        fileUrl: probe(() => fs.readFileSync(new URL("file:///etc/passwd"))),
      };
      // A link inside /tmp works, and is stored with its absolute target: moving it changes nothing.
      fs.mkdirSync("/tmp/a/b", { recursive: true });
      fs.symlinkSync("../../inside", "/tmp/a/b/link");
      fs.renameSync("/tmp/a/b/link", "/tmp/link");
      attempts.viaLink = fs.readFileSync("/tmp/link", "utf8");
      attempts.readlink = fs.readlinkSync("/tmp/link");
      return attempts;`);
    const out = await run(m);
    const denied = (syscall: string, path: string) =>
      `EACCES: EACCES: permission denied (only /tmp is writable in the sandbox), ${syscall} '${path}'`;
    expect(out).toEqual({
      dotdot: denied("open", "/tmp/../etc/passwd"),
      passwd: denied("open", "/etc/passwd"),
      proc: denied("scandir", "/proc/self"),
      root: denied("scandir", "/"),
      relative: denied("open", "out.txt"),
      sibling: denied("mkdir", "/tmpx"),
      mkdtemp: "EACCES: EACCES: permission denied, mkdtemp '/tmp'",
      rmTmp: "EACCES: EACCES: permission denied, rm '/tmp'",
      symlinkOut: denied("symlink", "/etc/passwd"),
      symlinkUp: denied("symlink", "/"),
      renameOut: denied("rename", "/var/inside"),
      copyIn: denied("copyfile", "/etc/hostname"),
      stream: "EACCES",
      promise: "EACCES",
      fileUrl: denied("open", "/etc/passwd"),
      viaLink: "x",
      readlink: "/tmp/inside",
    });
    m.dispose();
  });

  it("caps the bytes of /tmp: a write past the cap fails with ENOSPC, deleting frees room", async () => {
    const m = await action(`
      const chunk = Buffer.alloc(30 * 1024, 1);
      fs.writeFileSync("/tmp/a", chunk);
      fs.writeFileSync("/tmp/b", chunk);
      const over = probe(() => fs.writeFileSync("/tmp/c", chunk));
      const append = probe(() => fs.appendFileSync("/tmp/a", chunk));
      const fd = fs.openSync("/tmp/d", "w");
      const viaFd = probe(() => fs.writeSync(fd, chunk));
      fs.closeSync(fd);
      const viaStream = await pipeline(Readable.from([chunk, chunk]), fs.createWriteStream("/tmp/e")).then(() => "ok", (e) => e.code);
      const viaCopy = probe(() => fs.copyFileSync("/tmp/a", "/tmp/f"));
      fs.unlinkSync("/tmp/b");
      fs.writeFileSync("/tmp/c", chunk);
      // Overwriting a file in place needs no more room.
      fs.writeFileSync("/tmp/c", chunk);
      return { over, append, viaFd, viaStream, viaCopy, after: fs.readdirSync("/tmp") };`);
    const out = await run(m);
    const full = (syscall: string, path?: string) =>
      `ENOSPC: ENOSPC: no space left on device (/tmp is limited to 65536 bytes), ${syscall}${path ? ` '${path}'` : ""}`;
    expect(out).toEqual({
      over: full("write", "/tmp/c"),
      append: full("write", "/tmp/a"),
      viaFd: full("write"),
      viaStream: "ENOSPC",
      viaCopy: full("copyfile", "/tmp/f"),
      after: ["a", "c", "d", "e"],
    });
    m.dispose();
  });

  // 10,000 files through memfs: seconds on a loaded machine.
  it("caps the number of entries", { timeout: 30_000 }, async () => {
    const small = testRuntime({ limits: { tmpBytes: 1024 } });
    const code = `import fs from "fs";
      export default { name: "Many", version: "0.1.0", type: "action", run() {
        let made = 0;
        try { for (;;) { fs.writeFileSync("/tmp/f" + made, ""); made++; } } catch (e) { return { made, code: e.code }; }
      } };`;
    const loaded = await small.load({ code, filename: "many.mjs" });
    const m = await small.mount({ id: "dc_many", bundle: loaded.bundle, props: {} });
    const r = await m.runAction();
    expect(r.returnValue).toEqual({ made: 9_999, code: "ENOSPC" });
    m.dispose();
    await small.close();
  });

  it("downloads into /tmp with fetch + pipeline and axios streams, and reads back with createReadStream", async () => {
    const m = await action(`
      const res = await fetch(this.url + "/blob.bin");
      await pipeline(res.body, fs.createWriteStream("/tmp/fetched.bin"));
      const stream = await axios($, { url: this.url + "/blob.bin", responseType: "stream" });
      await pipeline(stream, fs.createWriteStream("/tmp/axios.bin"));
      const buffer = await axios($, { url: this.url + "/blob.bin", responseType: "arraybuffer" });
      fs.writeFileSync("/tmp/buffer.bin", buffer);
      // Read back in chunks, counting bytes through a Transform.
      // (The chunks the Transform sees; async iteration may join what arrived in one tick, as Node's does.)
      let seen = 0;
      let chunks = 0;
      const counter = new Transform({ transform(chunk, _enc, cb) { seen += chunk.length; chunks++; cb(null, chunk); } });
      const parts = [];
      for await (const chunk of fs.createReadStream("/tmp/fetched.bin", { highWaterMark: 4096 }).pipe(counter)) parts.push(chunk);
      const tooBig = await fetch(this.url + "/big.bin").then((r) => pipeline(r.body, fs.createWriteStream("/tmp/big.bin"))).then(() => "ok", (e) => e.code);
      return {
        fetched: fs.readFileSync("/tmp/fetched.bin").toString("base64"),
        axios: fs.readFileSync("/tmp/axios.bin").toString("base64"),
        buffer: fs.readFileSync("/tmp/buffer.bin").toString("base64"),
        chunks,
        seen,
        joined: Buffer.concat(parts).equals(fs.readFileSync("/tmp/fetched.bin")),
        tooBig,
      };`);
    const out = await run(m);
    const expected = BLOB.toString("base64");
    expect(out).toMatchObject({
      fetched: expected,
      axios: expected,
      buffer: expected,
      seen: BLOB.length,
      joined: true,
    });
    expect(out.chunks).toBe(4);
    expect(out.tooBig).toBe("ENOSPC");
    m.dispose();
  });

  it("gives a file of /tmp, a URL or a data: URL as a stream with its metadata (platform's getFileStream)", async () => {
    // The file-upload actions of youtube_data_api, slack, shopify... pass this stream to their SDK.
    const m = await action(`
      const read = async (stream) => { const parts = []; for await (const c of stream) parts.push(Buffer.from(c)); return Buffer.concat(parts); };
      fs.writeFileSync("/tmp/clip.mp4", Buffer.from([0, 1, 2, 255]));
      const local = await getFileStreamAndMetadata("/tmp/clip.mp4");
      const remote = await getFileStreamAndMetadata(this.url + "/blob.bin");
      const data = await getFileStreamAndMetadata("data:text/plain;name=hi.txt;base64," + Buffer.from("hi there").toString("base64"));
      const missing = await getFileStream("/tmp/nope.mp4").then(() => "found", (e) => e.message);
      return {
        local: { ...local.metadata, lastModified: local.metadata.lastModified instanceof Date, bytes: [...await read(local.stream)] },
        remote: { size: remote.metadata.size, name: remote.metadata.name, type: remote.metadata.contentType, same: (await read(remote.stream)).toString("base64") },
        data: { ...data.metadata, text: (await read(data.stream)).toString() },
        plain: (await read(await getFileStream("/tmp/clip.mp4"))).length,
        missing,
      };`);
    const out = await run(m);
    expect(out).toEqual({
      local: {
        size: 4,
        name: "clip.mp4",
        contentType: "video/mp4",
        lastModified: true,
        bytes: [0, 1, 2, 255],
      },
      remote: {
        size: BLOB.length,
        name: "blob.bin",
        type: "application/octet-stream",
        same: BLOB.toString("base64"),
      },
      data: { size: 8, name: "hi.txt", contentType: "text/plain", text: "hi there" },
      plain: 4,
      missing: "File not found: /tmp/nope.mp4",
    });
    m.dispose();
  });

  it("runs @pipedream/helper_functions' download-file-to-tmp unchanged", async () => {
    const dir = join(REPO_ROOT, "node_modules/@pipedream/helper_functions");
    const code = readFileSync(join(dir, "actions/download-file-to-tmp/download-file-to-tmp.mjs"), "utf8");
    const app = readFileSync(join(dir, "helper_functions.app.mjs"), "utf8");
    const loaded = await runtime.load({
      code,
      filename: "download-file-to-tmp.mjs",
      files: { "../../helper_functions.app.mjs": app },
    });
    const m = await runtime.mount({
      id: "dc_download",
      bundle: loaded.bundle,
      props: { helper_functions: { $auth: {} }, url: `${base}/blob.bin`, filename: "blob.bin" },
      bridges: { fetch: fetchBridge },
    });
    const r = await m.runAction();
    expect(r.error).toBeUndefined();
    expect(r.returnValue).toEqual(["blob.bin", "/tmp/blob.bin"]);
    m.dispose();
  });
});
