/**
 * `zlib` in the sandbox, computed by the host: round trips of every format in the sync, callback
 * and stream forms, what Node's own zlib makes of the sandbox's output (and the other way), errors
 * with their codes, and the cap on what one call may produce.
 */
import { brotliCompressSync, deflateRawSync, gunzipSync, gzipSync, inflateSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { InvocationResult, Runtime } from "../src/index.js";
import { testRuntime } from "./_helpers.js";

let runtime: Runtime;
beforeAll(() => {
  runtime = testRuntime();
});
afterAll(() => runtime.close());

async function run(
  body: string,
  event: Record<string, unknown> = {},
  limits = {},
): Promise<InvocationResult> {
  const code = `import zlib from "node:zlib"; import { promisify } from "util"; import { pipeline } from "stream";
export default { name: "zlib", version: "0.1.0", props: {}, async run(event) {\n${body}\n} }`;
  const loaded = await runtime.load({ code, filename: "zlib.mjs" });
  const mounted = await runtime.mount({ id: "dc_zlib", bundle: loaded.bundle, props: {}, limits });
  try {
    return await mounted.run(event);
  } finally {
    mounted.dispose();
  }
}

function emitted(result: InvocationResult): unknown {
  expect(result.error).toBeUndefined();
  return result.emits[0]?.event;
}

const TEXT = "Hookline compresses this line. ".repeat(200);

it("round-trips every format with the sync functions", async () => {
  const result = await run(
    `
    const text = event.text;
    const pairs = [["gzipSync", "gunzipSync"], ["deflateSync", "inflateSync"], ["deflateRawSync", "inflateRawSync"],
      ["brotliCompressSync", "brotliDecompressSync"], ["gzipSync", "unzipSync"], ["deflateSync", "unzipSync"]];
    this.$emit(pairs.map(([pack, unpack]) => {
      const packed = zlib[pack](text, { level: 9 });
      return [pack, packed.length < text.length, zlib[unpack](packed).toString() === text];
    }));`,
    { text: TEXT },
  );
  expect(emitted(result)).toEqual([
    ["gzipSync", true, true],
    ["deflateSync", true, true],
    ["deflateRawSync", true, true],
    ["brotliCompressSync", true, true],
    ["gzipSync", true, true],
    ["deflateSync", true, true],
  ]);
});

it("speaks the same formats as Node's zlib, both ways", async () => {
  const result = await run(
    `const input = (b64) => Buffer.from(b64, "base64");
    this.$emit({
      gunzip: zlib.gunzipSync(input(event.gzip)).toString(),
      inflateRaw: zlib.inflateRawSync(input(event.raw)).toString(),
      brotli: zlib.brotliDecompressSync(input(event.brotli)).toString(),
      gzip: zlib.gzipSync("from the sandbox").toString("base64"),
      deflate: zlib.deflateSync("deflated in the sandbox").toString("base64"),
    });`,
    {
      gzip: gzipSync("node gzip").toString("base64"),
      raw: deflateRawSync("node raw").toString("base64"),
      brotli: brotliCompressSync("node brotli").toString("base64"),
    },
  );
  const out = emitted(result) as Record<string, string>;
  expect(out).toMatchObject({ gunzip: "node gzip", inflateRaw: "node raw", brotli: "node brotli" });
  expect(gunzipSync(Buffer.from(out.gzip ?? "", "base64")).toString()).toBe("from the sandbox");
  expect(inflateSync(Buffer.from(out.deflate ?? "", "base64")).toString()).toBe("deflated in the sandbox");
});

it("has the callback and promisified forms, and constants", async () => {
  const result = await run(`
    const packed = await promisify(zlib.gzip)("promised");
    const text = await new Promise((resolve, reject) => zlib.gunzip(packed, (err, out) => err ? reject(err) : resolve(out.toString())));
    this.$emit({ text, noFlush: zlib.constants.Z_NO_FLUSH, syncFlush: zlib.Z_SYNC_FLUSH,
      brotliQuality: zlib.constants.BROTLI_PARAM_QUALITY, best: zlib.constants.Z_BEST_COMPRESSION });`);
  expect(emitted(result)).toEqual({ text: "promised", noFlush: 0, syncFlush: 2, brotliQuality: 1, best: 9 });
});

it("streams: createGzip piped into createGunzip, chunk by chunk, and a brotli stream", async () => {
  const result = await run(
    `const chunks = [];
    const gzip = zlib.createGzip();
    const gunzip = zlib.createGunzip();
    gunzip.on("data", (c) => chunks.push(c));
    const done = new Promise((resolve, reject) => pipeline(gzip, gunzip, (err) => (err ? reject(err) : resolve())));
    for (let i = 0; i < 5; i++) gzip.write(event.text.slice(i * 100, (i + 1) * 100));
    gzip.end(event.text.slice(500));
    await done;
    const brotli = zlib.createBrotliCompress();
    const parts = [];
    brotli.on("data", (c) => parts.push(c));
    await new Promise((resolve) => { brotli.on("end", resolve); brotli.end(event.text); });
    this.$emit({ same: Buffer.concat(chunks).toString() === event.text, pieces: chunks.length,
      brotli: zlib.brotliDecompressSync(Buffer.concat(parts)).toString() === event.text, written: brotli.bytesWritten });`,
    { text: TEXT },
  );
  expect(emitted(result)).toEqual({
    same: true,
    pieces: expect.any(Number),
    brotli: true,
    written: TEXT.length,
  });
});

it("fails as Node does on bad input, with the error code", async () => {
  const result = await run(`
    let sync = null;
    try { zlib.gunzipSync(Buffer.from("not gzip at all")); } catch (e) { sync = [e.code, e.errno, e.message]; }
    const stream = await new Promise((resolve) => {
      const gunzip = zlib.createGunzip();
      gunzip.on("error", (e) => resolve(e.code));
      gunzip.on("data", () => {});
      gunzip.end(Buffer.from("still not gzip"));
    });
    this.$emit({ sync, stream });`);
  expect(emitted(result)).toEqual({
    sync: ["Z_DATA_ERROR", -3, "incorrect header check"],
    stream: "Z_DATA_ERROR",
  });
});

it("caps what one call may produce at the sandbox's memory limit", async () => {
  const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024)).toString("base64");
  const result = await run(
    `try { zlib.gunzipSync(Buffer.from(event.bomb, "base64")); this.$emit("inflated"); } catch (e) { this.$emit(e.code); }`,
    { bomb },
    { memoryBytes: 4 * 1024 * 1024 },
  );
  expect(emitted(result)).toBe("ERR_BUFFER_TOO_LARGE");
});
