/**
 * A fake npm registry on loopback for tests: packuments (with `latest`, versions, integrity) and
 * gzipped tarballs built on the fly. Shared by the runtime, engine, CLI and e2e tests.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

/** A minimal ustar writer: one 512-byte header per file under `package/`, then the body. */
export function tarball(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const body = Buffer.from(content, "utf8");
    const header = Buffer.alloc(512);
    header.write(`package/${name}`, 0, 100, "utf8");
    header.write("0000644\0", 100, "ascii");
    header.write("0000000\0", 108, "ascii");
    header.write("0000000\0", 116, "ascii");
    header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124, "ascii");
    header.write("00000000000\0", 136, "ascii");
    header.fill(" ", 148, 156);
    header.write("0", 156, "ascii");
    header.write("ustar\0", 257, "ascii");
    header.write("00", 263, "ascii");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

export function sri(data: Buffer): string {
  return `sha512-${createHash("sha512").update(data).digest("base64")}`;
}

/** One version of a fake package. */
export interface FakeVersion {
  files: Record<string, string>;
  dependencies?: Record<string, string>;
  /** Extra package.json fields. */
  pkg?: Record<string, unknown>;
  /** Serve other bytes than the integrity describes. */
  tamper?: boolean;
}

/** Package name -> version -> contents. */
export type FakePackages = Record<string, Record<string, FakeVersion>>;

export interface FakeRegistry {
  /** Base URL (`http://127.0.0.1:<port>`). */
  url: string;
  /** Every path asked, in order. */
  requests: string[];
  /** The packages served (add or change entries between requests). */
  packages: FakePackages;
  /** Dist-tags besides `latest` (the highest version), by package (change between requests). */
  tags: Record<string, Record<string, string>>;
  close(): Promise<void>;
}

/** Starts a fake registry serving `packages` on 127.0.0.1. */
export async function startFakeRegistry(packages: FakePackages): Promise<FakeRegistry> {
  const tarballs = new Map<string, Buffer>();
  const requests: string[] = [];
  const tags: Record<string, Record<string, string>> = {};
  let url = "";

  function packument(name: string) {
    const versions: Record<string, unknown> = {};
    for (const [version, spec] of Object.entries(packages[name] ?? {})) {
      const pkg = { name, version, main: "index.js", dependencies: spec.dependencies ?? {}, ...spec.pkg };
      const data = tarball({ "package.json": JSON.stringify(pkg), ...spec.files });
      const file = `/-/${name.replace("/", "-")}-${version}.tgz`;
      tarballs.set(
        file,
        spec.tamper ? tarball({ "package.json": JSON.stringify(pkg), "index.js": "evil()" }) : data,
      );
      versions[version] = { ...pkg, dist: { tarball: `${url}${file}`, integrity: sri(data) } };
    }
    const latest = Object.keys(versions)
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .at(-1);
    return { name, "dist-tags": { latest, ...tags[name] }, versions };
  }

  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(req.url ?? "/");
    requests.push(path);
    if (path.startsWith("/-/")) {
      const data = tarballs.get(path);
      if (!data) return res.writeHead(404).end();
      return res.writeHead(200, { "content-type": "application/octet-stream" }).end(data);
    }
    const name = path.slice(1);
    if (!packages[name]) return res.writeHead(404, { "content-type": "application/json" }).end("{}");
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument(name)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    packages,
    tags,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL nothing listens on (a port just freed): requests to it are refused. */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
