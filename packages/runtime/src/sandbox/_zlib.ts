/**
 * The host half of the guest's `zlib` (guest/zlib.js): one-shot calls (`gunzipSync`,
 * `brotliCompress`...) run synchronously with Node's `*Sync` functions; streams (`createGunzip()`...)
 * are Node zlib streams of this sandbox fed chunk by chunk (a write answers, asynchronously, with
 * the output that chunk produced). Output is capped (`maxOutputLength`) so that a small bomb cannot
 * fill the host's memory; errors come back as values so that the guest keeps their `code`
 * (`Z_DATA_ERROR`...).
 */
import zlib from "node:zlib";

const KINDS = {
  gzip: zlib.createGzip,
  gunzip: zlib.createGunzip,
  deflate: zlib.createDeflate,
  inflate: zlib.createInflate,
  deflateRaw: zlib.createDeflateRaw,
  inflateRaw: zlib.createInflateRaw,
  unzip: zlib.createUnzip,
  brotliCompress: zlib.createBrotliCompress,
  brotliDecompress: zlib.createBrotliDecompress,
} as const;
type Kind = keyof typeof KINDS;

const SYNC: Record<Kind, (data: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions) => Buffer> = {
  gzip: zlib.gzipSync,
  gunzip: zlib.gunzipSync,
  deflate: zlib.deflateSync,
  inflate: zlib.inflateSync,
  deflateRaw: zlib.deflateRawSync,
  inflateRaw: zlib.inflateRawSync,
  unzip: zlib.unzipSync,
  brotliCompress: zlib.brotliCompressSync,
  brotliDecompress: zlib.brotliDecompressSync,
};

/** Streams a sandbox may have open at once. */
const MAX_STREAMS = 64;

type Request =
  | { op: "sync"; kind: Kind; data: string; options?: Record<string, unknown> }
  | { op: "open"; kind: Kind; options?: Record<string, unknown> }
  | { op: "write"; id: number; data: string; flush?: boolean; end?: boolean }
  | { op: "close"; id: number };

function errorValue(error: unknown): { error: Record<string, unknown> } {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown };
  return {
    error: {
      code: typeof e.code === "string" ? e.code : "ERR_ZLIB",
      ...(typeof e.errno === "number" ? { errno: e.errno } : {}),
      message: typeof e.message === "string" ? e.message : String(error),
    },
  };
}

function zlibError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** One sandbox's zlib streams. */
export class ZlibHost {
  private readonly streams = new Map<number, zlib.Gzip>();
  private seq = 0;

  /** @param maxOutput - The most bytes one call may produce (the sandbox's memory limit). */
  constructor(private readonly maxOutput: number) {}

  /** A synchronous request (sync, open, close), JSON in and out: `{ data }`, `{ id }` or `{ error }`. */
  call(json: string): string {
    try {
      return JSON.stringify(this.run(JSON.parse(json) as Request));
    } catch (error) {
      return JSON.stringify(errorValue(error));
    }
  }

  /** A stream write (`end`: the last one; `flush`: flush what it holds), answered with its output. */
  async callAsync(json: string): Promise<string> {
    try {
      const request = JSON.parse(json) as Extract<Request, { op: "write" }>;
      const stream = this.streams.get(request.id);
      if (!stream) throw zlibError("ERR_STREAM_DESTROYED", "The zlib stream is closed");
      const out = await this.write(stream, Buffer.from(request.data, "base64"), request);
      if (request.end) this.close(request.id);
      return JSON.stringify({ data: out.toString("base64") });
    } catch (error) {
      const { id } = JSON.parse(json) as { id: number };
      this.close(id);
      return JSON.stringify(errorValue(error));
    }
  }

  /** Feeds `data` and collects what the stream outputs until it has taken it (or ended). */
  private write(
    stream: zlib.Gzip,
    data: Buffer,
    request: { flush?: boolean; end?: boolean },
  ): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const onData = (chunk: Buffer) => chunks.push(chunk);
      const finish = (error?: Error | null) => {
        stream.off("data", onData).off("error", finish).off("end", finishOk);
        if (error) reject(error);
        else resolve(Buffer.concat(chunks));
      };
      const finishOk = () => finish();
      stream.on("data", onData).once("error", finish);
      if (request.end) {
        stream.once("end", finishOk);
        stream.end(data);
      } else if (request.flush) {
        stream.write(data);
        stream.flush(() => finish());
      } else stream.write(data, (error) => finish(error));
    });
  }

  private create(kind: Kind, options: Record<string, unknown> = {}): zlib.ZlibOptions & zlib.BrotliOptions {
    if (!Object.hasOwn(KINDS, kind)) throw zlibError("ERR_INVALID_ARG_VALUE", `Unknown zlib kind ${kind}`);
    const given = { ...options };
    if (typeof given.dictionary === "string") given.dictionary = Buffer.from(given.dictionary, "base64");
    const cap = Math.min(Number(given.maxOutputLength) || this.maxOutput, this.maxOutput);
    return { ...given, maxOutputLength: cap };
  }

  private run(request: Request): unknown {
    switch (request.op) {
      case "sync": {
        const options = this.create(request.kind, request.options);
        return { data: SYNC[request.kind](Buffer.from(request.data, "base64"), options).toString("base64") };
      }
      case "open": {
        if (this.streams.size >= MAX_STREAMS)
          throw zlibError(
            "ERR_SANDBOX_ZLIB_LIMIT",
            `A sandbox may have ${MAX_STREAMS} zlib streams open at once`,
          );
        const options = this.create(request.kind, request.options);
        const id = ++this.seq;
        this.streams.set(id, (KINDS[request.kind] as (o: typeof options) => zlib.Gzip)(options));
        return { id };
      }
      case "close":
        this.close(request.id);
        return {};
      default:
        throw zlibError("ERR_INVALID_ARG_VALUE", "Unknown zlib request");
    }
  }

  private close(id: number): void {
    this.streams.get(id)?.destroy();
    this.streams.delete(id);
  }

  /** Frees every stream (the sandbox is disposed). */
  dispose(): void {
    for (const stream of this.streams.values()) stream.destroy();
    this.streams.clear();
  }
}
