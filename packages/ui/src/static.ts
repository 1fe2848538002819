/**
 * Reading built files for the UI handler: safe path resolution inside the folder, content types,
 * and an in-memory cache of each file with its compressed forms (refreshed when the file changes).
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".map", ".svg", ".txt"]);

/** A file ready to serve. @internal */
export interface StaticFile {
  type: string;
  etag: string;
  body: Uint8Array;
  /** Brotli and gzip forms, made on first use (compressible files over 1 KB only). */
  br?: Uint8Array;
  gzip?: Uint8Array;
  compressible: boolean;
  mtimeMs: number;
}

/** The absolute path of `urlPath` inside `root`, or undefined when it would leave the folder. @internal */
export function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const full = resolve(root, `.${decoded.startsWith("/") ? decoded : `/${decoded}`}`);
  return full === root || full.startsWith(root.endsWith(sep) ? root : root + sep) ? full : undefined;
}

/** Loads files on demand and keeps them while their modification time stays the same. @internal */
export function createFileCache() {
  const cache = new Map<string, StaticFile>();
  return {
    /** The file at `path`, or undefined when it is absent or a folder. */
    get(path: string): StaticFile | undefined {
      let mtimeMs: number;
      try {
        const stat = statSync(path);
        if (!stat.isFile()) return undefined;
        mtimeMs = stat.mtimeMs;
      } catch {
        return undefined;
      }
      const cached = cache.get(path);
      if (cached && cached.mtimeMs === mtimeMs) return cached;
      const body = readFileSync(path);
      const ext = extname(path).toLowerCase();
      const file: StaticFile = {
        type: TYPES[ext] ?? "application/octet-stream",
        etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
        body,
        compressible: COMPRESSIBLE.has(ext) && body.byteLength > 1024,
        mtimeMs,
      };
      cache.set(path, file);
      return file;
    },
  };
}

/** The body and encoding to send for `accept-encoding`. @internal */
export function encode(file: StaticFile, acceptEncoding: string): { body: Uint8Array; encoding?: string } {
  if (!file.compressible) return { body: file.body };
  const accepted = new Set(
    acceptEncoding
      .split(",")
      .map((part) => part.trim().split(/\s*;\s*/))
      .filter(([, q]) => !q || Number(q.replace(/^q=/, "")) > 0)
      .map(([name]) => name?.toLowerCase()),
  );
  const accepts = (name: string) => accepted.has(name);
  if (accepts("br")) {
    file.br ??= brotliCompressSync(file.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } });
    return { body: file.br, encoding: "br" };
  }
  if (accepts("gzip")) {
    file.gzip ??= gzipSync(file.body, { level: 9 });
    return { body: file.gzip, encoding: "gzip" };
  }
  return { body: file.body };
}

/** `root/index.html`. @internal */
export function indexPath(root: string): string {
  return join(root, "index.html");
}
