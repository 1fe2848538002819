import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHookline, type Hookline, type HooklineOptions } from "@hookline/engine";
import { toNodeListener } from "../src/adapters/node.js";
import { createHandler, type HandlerOptions } from "../src/index.js";

/** How a test reaches the API: the handler directly, or a real node:http server on loopback. */
export type Mode = "fetch" | "node";
export const MODES: Mode[] = ["fetch", "node"];

export interface Api {
  hookline: Hookline;
  key: string;
  /** An operator key of the same workspace (it may also manage workspaces and keys). */
  operatorKey: string;
  workspaceId: string;
  base: string;
  /** A raw request (path relative to the server). */
  raw(path: string, init?: RequestInit): Promise<Response>;
  /** An authenticated JSON request: `query` in the query string, `body` as JSON. */
  call(
    method: string,
    path: string,
    options?: {
      query?: Record<string, string>;
      body?: unknown;
      key?: string | null;
      headers?: Record<string, string>;
    },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function startApi(
  mode: Mode,
  options: { engine?: HooklineOptions; handler?: HandlerOptions } = {},
): Promise<Api> {
  const hookline = createHookline({ allowPrivateUrls: true, secretsKey: "http-tests", ...options.engine });
  const ws = await hookline.workspaces.create({ name: "acme" });
  const { key } = await hookline.apiKeys.create(ws.id);
  const apiKey = key;
  const operatorKey = (await hookline.apiKeys.create(ws.id, { name: "operator", role: "operator" })).key;
  const handler = createHandler(hookline, { onError: () => undefined, ...options.handler });
  let server: Server | undefined;
  let base = "http://hookline.test";
  if (mode === "node") {
    server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const raw = (path: string, init?: RequestInit) =>
    mode === "node" ? fetch(`${base}${path}`, init) : handler(new Request(`${base}${path}`, init));
  return {
    hookline,
    key,
    operatorKey,
    workspaceId: ws.id,
    base,
    raw,
    async call(method, path, opts = {}) {
      const url = new URL(path, base);
      for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
      const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
      const key = opts.key === undefined ? apiKey : opts.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      const res = await raw(url.pathname + url.search, {
        method,
        headers,
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body, headers: res.headers };
    },
    async close() {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server?.closeAllConnections?.();
      await hookline.close();
    },
  };
}

export interface Receiver {
  url: string;
  requests: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[];
  status: number;
  close(): Promise<void>;
}

/** A webhook receiver on loopback that records every request and answers `status`. */
export async function startReceiver(status = 200): Promise<Receiver> {
  const receiver: Receiver = {
    url: "",
    requests: [],
    status,
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      receiver.requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(receiver.status).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

/** Waits until `check` passes (polling), or fails after `ms`. */
export async function eventually(check: () => void | Promise<void>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

export const HTTP_SOURCE = `export default {
  name: "Orders", version: "0.1.0",
  props: { http: "$.interface.http" },
  run(event) { this.$emit(event.body, { summary: "order", name: event.body.channel }); },
};`;
