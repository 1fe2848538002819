// The REST API of a Hookline engine on a real node:http server on loopback, for the compatibility
// tests: an authenticated JSON client, and `pd deploy <file>`'s bundling of relative imports.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bundleComponent } from "@hookline/cli";
import { createHookline, type Hookline, type HooklineOptions } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import { toNodeListener } from "@hookline/http/node";

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
  text: string;
}

export interface RestApi {
  hookline: Hookline;
  workspaceId: string;
  base: string;
  /** An authenticated JSON request: `body` as JSON. */
  call(method: string, path: string, body?: unknown): Promise<Answer>;
  /** A request without the API key (what a third party sends to an HTTP interface). */
  raw(path: string, init?: RequestInit): Promise<Answer>;
  close(): Promise<void>;
}

async function read(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, headers: res.headers, text };
}

/** Starts an engine and its REST API on 127.0.0.1 with an API key of a new workspace. */
export async function startRestApi(options: HooklineOptions = {}): Promise<RestApi> {
  const hookline = createHookline({
    allowPrivateUrls: true,
    secretsKey: "compat-tests",
    worker: false,
    ...options,
  });
  const ws = await hookline.workspaces.create({ name: "compat" });
  const { key } = await hookline.apiKeys.create(ws.id);
  const server = createServer(toNodeListener(createHandler(hookline, { onError: () => undefined })));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    hookline,
    workspaceId: ws.id,
    base,
    async call(method, path, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return read(res);
    },
    async raw(path, init) {
      return read(await fetch(`${base}${path}`, init));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await hookline.close();
    },
  };
}

/**
 * Writes `files` (relative path -> code) in a new folder and bundles `entry` with its relative
 * imports as `pd deploy <file>` does. Returns the REST body fields of the code.
 */
export async function bundleFiles(
  files: Record<string, string>,
  entry: string,
): Promise<{ component_code: string; filename: string }> {
  const dir = mkdtempSync(join(tmpdir(), "hookline-compat-"));
  for (const [path, code] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), code);
  }
  const bundled = await bundleComponent(join(dir, entry));
  return { component_code: bundled.code, filename: bundled.filename };
}
