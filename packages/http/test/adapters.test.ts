import { type ChildProcess, spawn } from "node:child_process";
import { createServer, IncomingMessage, type Server } from "node:http";
import { createRequire, Module } from "node:module";
import type { AddressInfo } from "node:net";
import { Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { createHookline, type Hookline } from "@hookline/engine";
import Fastify, { type FastifyInstance } from "fastify";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hooklineRouter } from "../src/adapters/express.js";
import { hooklinePlugin } from "../src/adapters/fastify.js";
import { hooklineApp } from "../src/adapters/hono.js";
import { onClientError, RequestError, toNodeListener, toRequest } from "../src/adapters/node.js";
import { createHandler } from "../src/index.js";
import { HTTP_SOURCE } from "./_harness.js";
import { openSocket } from "./_raw-http.js";

// Vitest starts its workers with `--conditions import` (from the root config's resolve conditions),
// so Express 5's `require("is-promise")` resolves to that package's ESM build and gets a namespace
// object instead of the function. Pin the CommonJS build under the ESM path before loading Express.
const require = createRequire(import.meta.url);
{
  const esmPath = require.resolve("is-promise");
  if (esmPath.endsWith(".mjs")) {
    const pinned = new Module(esmPath);
    pinned.exports = require(join(dirname(esmPath), "index.js"));
    pinned.loaded = true;
    (Module as unknown as { _cache: Record<string, Module> })._cache[esmPath] = pinned;
  }
}
const express = require("express") as typeof import("express");
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
type Framework = "node" | "express" | "fastify" | "hono";
const FRAMEWORKS: Framework[] = ["node", "express", "fastify", "hono"];

interface Target {
  base: string;
  key: string;
}

/** The calls every mounting must serve: an authenticated API call and an HTTP-interface call. */
async function checkApiAndIngress({ base, key }: Target): Promise<string> {
  const auth = { authorization: `Bearer ${key}` };
  const hook = await fetch(`${base}/v1/webhooks?url=${encodeURIComponent("https://example.com/h")}`, {
    method: "POST",
    headers: auth,
  });
  expect(hook.status).toBe(200);
  expect(((await hook.json()) as any).data.id).toMatch(/^wh_/);

  const source = await fetch(`${base}/v1/sources`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ component_code: HTTP_SOURCE }),
  });
  expect(source.status).toBe(200);
  const endpointUrl = ((await source.json()) as any).data.endpoint_url as string;
  const endpoint = new URL(endpointUrl).pathname;
  expect(endpoint).toMatch(/^\/http\//);
  const hit = await fetch(`${base}${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ channel: "orders", n: 1 }),
  });
  expect(hit.status).toBe(200);
  expect(await hit.json()).toEqual({ success: true });
  return endpointUrl;
}

/** A loopback port nothing listens on (a server on it was just closed). */
async function freePort(): Promise<number> {
  const server = createServer();
  const base = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return Number(new URL(base).port);
}

/** Starts `examples/<fw>/server.mjs` on a free port and reads the API key and port it prints. */
async function startExample(fw: Framework): Promise<{ child: ChildProcess; target: Target }> {
  const child = spawn(
    process.execPath,
    ["--conditions=@hookline/source", "--import", "tsx", `examples/${fw}/server.mjs`],
    { cwd: ROOT, env: { ...process.env, PORT: String(await freePort()) }, stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => fail(new Error(`example ${fw} did not start:\n${out}\n${err}`)), 25_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    child.on("exit", (code) => fail(new Error(`example ${fw} exited (${code}):\n${out}\n${err}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const key = /^HOOKLINE_API_KEY=(\S+)$/m.exec(out)?.[1];
      const base = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
      if (key && base && !base.endsWith(":0")) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ child, target: { key, base } });
      }
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
  await exited;
  clearTimeout(timer);
}

describe.each(FRAMEWORKS)("examples/%s/server.mjs", (fw) => {
  let child: ChildProcess | undefined;
  let target: Target;
  beforeAll(async () => {
    ({ child, target } = await startExample(fw));
  }, 30_000);
  afterAll(async () => {
    if (child) await stopChild(child);
  });

  it("serves an authenticated API call and an HTTP-interface call, with endpoints on its own address", async () => {
    // The example gives the engine the address it listens on: endpoint_url is on this server.
    expect(await checkApiAndIngress(target)).toMatch(new RegExp(`^${target.base}/http/\\w+$`));
  }, 15_000);
});

/** An engine, its handler and a server mounting the handler through one adapter. */
interface Mounted extends Target {
  hookline: Hookline;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}

async function mount(fw: Framework, options: { expressJsonFirst?: boolean } = {}): Promise<Mounted> {
  const hookline = createHookline({ allowPrivateUrls: true, secretsKey: "adapter-tests" });
  const ws = await hookline.workspaces.create({ name: "acme" });
  const { key } = await hookline.apiKeys.create(ws.id);
  const handler = createHandler(hookline, { onError: () => undefined, heartbeatMs: 50 });
  let base: string;
  let stop: () => Promise<void>;
  if (fw === "node") {
    const server = createServer(toNodeListener(handler));
    server.on("clientError", onClientError);
    base = await listen(server);
    stop = () => closeServer(server);
  } else if (fw === "express") {
    const app = express();
    if (options.expressJsonFirst) app.use(express.json());
    app.use(hooklineRouter(handler));
    app.use(express.json());
    app.get("/", (_req, res) => {
      res.json({ framework: "express" });
    });
    const server = createServer(app);
    base = await listen(server);
    stop = () => closeServer(server);
  } else if (fw === "fastify") {
    const app: FastifyInstance = Fastify();
    await app.register(hooklinePlugin, { handler });
    app.post("/echo", async (request) => ({ body: request.body }));
    app.get("/", async () => ({ framework: "fastify" }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    stop = async () => {
      app.server.closeAllConnections();
      await app.close();
    };
  } else {
    const app = new Hono();
    app.get("/", (c) => c.json({ framework: "hono" }));
    app.route("/", hooklineApp(handler));
    const { server, base: url } = await new Promise<{ server: Server; base: string }>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
        resolve({ server: s as Server, base: `http://127.0.0.1:${info.port}` }),
      );
    });
    base = url;
    stop = () => closeServer(server);
  }
  return {
    hookline,
    key,
    base,
    async close() {
      await stop();
      await hookline.close();
    },
  };
}

/** Reads a streamed body until `pattern` appears (or fails after `ms`), then cancels it. */
async function readUntil(res: Response, pattern: RegExp, ms = 5000): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), ms);
  try {
    while (!pattern.test(text)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

describe.each(FRAMEWORKS)("%s adapter in-process", (fw) => {
  let api: Mounted;
  beforeAll(async () => {
    api = await mount(fw);
  });
  afterAll(() => api.close());

  it("serves the API and the HTTP interface", async () => {
    await checkApiAndIngress(api);
  });

  it("streams SSE: the first emit arrives as an `event: emit` chunk", async () => {
    const auth = { authorization: `Bearer ${api.key}` };
    const created = await fetch(`${api.base}/v1/sources`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ component_code: HTTP_SOURCE }),
    });
    const { data } = (await created.json()) as any;
    const controller = new AbortController();
    const stream = await fetch(`${api.base}/v1/sources/${data.id}/sse`, {
      headers: auth,
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const first = readUntil(stream, /event: emit\n[\s\S]*?\n\n/);
    const hit = await fetch(`${api.base}${new URL(data.endpoint_url).pathname}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ channel: "sse", n: 42 }),
    });
    expect(hit.status).toBe(200);
    const text = await first;
    controller.abort();
    const event = /event: emit\n([\s\S]*?)\n\n/.exec(text)?.[1] ?? "";
    expect(event).toContain('"n":42');
  });

  if (fw !== "node") {
    it("leaves other paths to the framework", async () => {
      const res = await fetch(`${api.base}/`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ framework: fw });
    });
  }

  it("answers a malformed Host with 400 (no uncaught exception) and keeps serving", async () => {
    for (const host of ["[", "a/b", "x@y", "[::1"]) {
      const socket = await openSocket(api.base);
      try {
        const res = await socket.request(`GET /v1/openapi.json HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
        expect(res.status, `Host: ${host}`).toBe(400);
        // Hono's own server answers 400 with no body before the sub-app runs.
        if (fw !== "hono") {
          expect(JSON.parse(res.body)).toEqual({
            error: { code: "bad_request", message: expect.any(String) },
          });
        }
      } finally {
        socket.close();
      }
    }
    const doc = await fetch(`${api.base}/v1/openapi.json`);
    expect(doc.status).toBe(200);
    await checkApiAndIngress(api);
  });

  it("serves the OpenAPI document and 404s unknown /v1 paths as JSON", async () => {
    const doc = await fetch(`${api.base}/v1/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as any).openapi).toMatch(/^3\./);
    const missing = await fetch(`${api.base}/v1/nope`, { headers: { authorization: `Bearer ${api.key}` } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe("route_not_found");
  });
});

describe("node adapter: requests Node refuses before the handler", () => {
  let api: Mounted;
  beforeAll(async () => {
    api = await mount("node");
  });
  afterAll(() => api.close());

  it("answers a 100 KB query string with a JSON 431 headers_too_large, then keeps serving", async () => {
    const res = await fetch(`${api.base}/v1/webhooks?q=${"x".repeat(100 * 1024)}`, {
      headers: { authorization: `Bearer ${api.key}` },
    });
    expect(res.status).toBe(431);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("headers_too_large");
    expect(error.message).toMatch(/JSON body/);
    const ok = await fetch(`${api.base}/v1/webhooks`, { headers: { authorization: `Bearer ${api.key}` } });
    expect(ok.status).toBe(200);
  });

  it("answers malformed HTTP with a JSON 400", async () => {
    const socket = await openSocket(api.base);
    try {
      const res = await socket.request("GET /v1/webhooks HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n");
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe("bad_request");
    } finally {
      socket.close();
    }
  });
});

describe("node adapter: the Request, the scheme and the errorHandler", () => {
  const incoming = (headers: Record<string, string>, url: string, encrypted: boolean) => {
    const socket = new Socket();
    Object.assign(socket, { encrypted });
    return Object.assign(new IncomingMessage(socket), { url, headers, method: "GET" });
  };

  it("takes the scheme from the socket and the host from Host", () => {
    expect(toRequest(incoming({ host: "api.example:4100" }, "/v1/x?a=1", true)).url).toBe(
      "https://api.example:4100/v1/x?a=1",
    );
    expect(toRequest(incoming({ host: "[::1]:4100" }, "/v1/x", false)).url).toBe("http://[::1]:4100/v1/x");
    expect(toRequest(incoming({}, "/v1/x", false), "fallback.test").url).toBe("http://fallback.test/v1/x");
  });

  it.each([
    [{ host: "[" }, "/v1/x"],
    [{ host: "a/b" }, "/v1/x"],
    [{ host: "evil.test/http/en_1" }, "/v1/x"],
    [{ host: "x" }, "*"],
    [{ host: "x" }, "/v1\\..\\x"],
  ])("throws a RequestError for %j %s", (headers, url) => {
    expect(() => toRequest(incoming(headers, url, false))).toThrow(RequestError);
  });

  it("sends an error the handler throws to errorHandler, and never lets one escape", async () => {
    const seen: unknown[] = [];
    const server = createServer(
      toNodeListener(
        async () => {
          throw new Error("handler broke");
        },
        {
          errorHandler: (error) => {
            seen.push(error);
            return new Response("custom", { status: 503 });
          },
        },
      ),
    );
    const failing = createServer(
      toNodeListener(async () => {
        throw new Error("secret detail");
      }),
    );
    const base = await listen(server);
    const failingBase = await listen(failing);
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const res = await fetch(`${base}/v1/x`);
      expect([res.status, await res.text()]).toEqual([503, "custom"]);
      expect((seen[0] as Error).message).toBe("handler broke");
      const fallback = await fetch(`${failingBase}/v1/x`);
      expect(fallback.status).toBe(500);
      expect(await fallback.json()).toEqual({ error: { code: "internal_error", message: "Internal error" } });
      expect(errors).toHaveLength(1);
    } finally {
      console.error = original;
      await closeServer(server);
      await closeServer(failing);
    }
  });
});

describe("express adapter after a body parser", () => {
  let api: Mounted;
  beforeAll(async () => {
    api = await mount("express", { expressJsonFirst: true });
  });
  afterAll(() => api.close());

  it("re-serializes req.body so JSON calls still work", async () => {
    await checkApiAndIngress(api);
  });
});

describe("fastify adapter", () => {
  let api: Mounted;
  beforeAll(async () => {
    api = await mount("fastify");
  });
  afterAll(() => api.close());

  it("keeps Fastify's own body parsing outside the plugin", async () => {
    const res = await fetch(`${api.base}/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: 1 }),
    });
    expect(await res.json()).toEqual({ body: { a: 1 } });
  });

  it("applies the handler's body limit to the raw stream", async () => {
    const res = await fetch(`${api.base}/v1/sources`, {
      method: "POST",
      headers: { authorization: `Bearer ${api.key}`, "content-type": "application/json" },
      body: JSON.stringify({ component_code: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
  });
});
