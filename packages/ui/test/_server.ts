/**
 * What the browser tests run against: a real Hookline server on loopback (the engine, the `/v1`
 * handler and the UI through `withUi`, on `node:http`) and a loopback webhook receiver.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHookline, type Hookline, type HooklineOptions } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import { toNodeListener } from "@hookline/http/node";
import { withUi } from "../src/index.js";

/** A running server with an API key. */
export interface TestServer {
  base: string;
  key: string;
  hookline: Hookline;
  /** An authenticated API call; resolves with `data`. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Starts the server; deliveries fail at once after one failed attempt (no retry schedule). `engine`
 * adds options of `createHookline` (a clock...).
 */
export async function startServer(engine: HooklineOptions = {}): Promise<TestServer> {
  let listener: ((req: IncomingMessage, res: import("node:http").ServerResponse) => void) | undefined;
  const server = createServer((req, res) => listener?.(req, res));
  const base = await listen(server);
  const hookline = createHookline({
    secretsKey: "ui-tests",
    baseUrl: base,
    allowPrivateUrls: true,
    worker: { retrySchedule: [], pollIntervalMs: 200 },
    ...engine,
  });
  const ws = await hookline.workspaces.create({ name: "default" });
  const { key } = await hookline.apiKeys.create(ws.id);
  listener = toNodeListener(withUi(createHandler(hookline, { rateLimit: false })));
  hookline.start();
  return {
    base,
    key,
    hookline,
    async api(method, path, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as { data?: unknown; error?: { code: string; message: string } };
      if (!res.ok)
        throw new Error(`${method} ${path}: ${res.status} ${json.error?.code} ${json.error?.message}`);
      return json.data as any;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await hookline.close();
    },
  };
}

/** A webhook receiver on loopback answering `status` (changeable), recording every request. */
export interface Receiver {
  url: string;
  status: number;
  requests: { path: string; body: string }[];
  /** Extra files it serves on GET (for deploys from a URL). */
  files: Map<string, string>;
  close(): Promise<void>;
}

/** Starts a receiver. */
export async function startReceiver(status = 200): Promise<Receiver> {
  const receiver: Receiver = {
    url: "",
    status,
    requests: [],
    files: new Map(),
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const file = req.method === "GET" ? receiver.files.get(req.url ?? "") : undefined;
      if (file !== undefined) {
        res.writeHead(200, { "content-type": "text/javascript" }).end(file);
        return;
      }
      receiver.requests.push({ path: req.url ?? "/", body: Buffer.concat(chunks).toString("utf8") });
      res
        .writeHead(receiver.status, { "content-type": "text/plain" })
        .end(`receiver answered ${receiver.status}`);
    });
  });
  receiver.url = await listen(server);
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  };
  return receiver;
}
