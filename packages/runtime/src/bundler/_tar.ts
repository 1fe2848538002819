/**
 * Extracts an npm tarball (gzip + ustar, files under `package/`) into a folder. Paths that would
 * leave the folder are refused.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { gunzipSync } from "node:zlib";

function field(block: Buffer, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString("utf8");
}

/** Writes every regular file of the gzipped tarball into `target`, stripping the first path part. */
export function extractTarball(gzipped: Uint8Array, target: string): void {
  const data = gunzipSync(gzipped);
  const root = resolve(target);
  let offset = 0;
  let paxPath: string | undefined;
  while (offset + 512 <= data.length) {
    const header = data.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(field(header, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156] ?? 48);
    const prefix = field(header, 345, 155);
    let name = paxPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const body = data.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      const m = /\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
      paxPath = m?.[1];
      continue;
    }
    paxPath = undefined;
    if (type !== "0" && type !== "\0") continue;
    name = name.split("/").slice(1).join("/");
    if (!name) continue;
    const dest = resolve(join(root, name));
    if (!dest.startsWith(root + sep)) throw new Error(`tarball entry escapes the package folder: ${name}`);
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, body);
  }
}
