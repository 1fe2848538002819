// The node adapter's fast path: bodies with a declared length are read at once into a lightweight
// Request, string and bytes Responses are written without a stream; chunked and large bodies still
// stream, and a client that leaves mid-body or mid-request is seen.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { toNodeListener } from "../src/adapters/node.js";
import { openSocket } from "./_raw-http.js";

const servers: Server[] = [];

async function serve(handler: (request: Request) => Promise<Response>, maxBufferedBody?: number) {
  const server = createServer(toNodeListener(handler, maxBufferedBody ? { maxBufferedBody } : {}));
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
});

/** A handler that echoes what it saw of the Request. */
const echo = async (request: Request) =>
  Response.json({
    isRequest: request instanceof Request,
    method: request.method,
    url: request.url,
    type: request.headers.get("content-type"),
    body: await request.text(),
  });

describe("node adapter fast path", () => {
  it("hands a buffered body to the handler as a real-looking Request", async () => {
    const base = await serve(echo);
    const res = await fetch(`${base}/http/en_1/a?b=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"n":1}',
    });
    expect(await res.json()).toEqual({
      isRequest: true,
      method: "POST",
      url: `${base}/http/en_1/a?b=1`,
      type: "application/json",
      body: '{"n":1}',
    });
  });

  it("streams chunked bodies and bodies over maxBufferedBody, intact", async () => {
    const base = await serve(echo, 1000);
    const big = "y".repeat(5000);
    const large = await fetch(`${base}/x`, { method: "PUT", body: big });
    expect(((await large.json()) as { body: string }).body).toBe(big);
    const chunk = new TextEncoder().encode("z".repeat(300));
    const chunked = await fetch(`${base}/x`, {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(chunk);
          controller.enqueue(chunk);
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(((await chunked.json()) as { body: string }).body).toBe("z".repeat(600));
  });

  it("does not run the handler for a client that leaves mid-body, and keeps serving", async () => {
    let calls = 0;
    const base = await serve(async () => {
      calls++;
      return new Response("ok");
    });
    const socket = await openSocket(base);
    socket
      .request("POST /x HTTP/1.1\r\nHost: x\r\ncontent-length: 100\r\n\r\nonly part")
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    socket.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(0);
    expect((await fetch(`${base}/x`, { method: "POST", body: "1" })).status).toBe(200);
    expect(calls).toBe(1);
  });

  it("aborts the Request's signal when the client goes away while the handler runs", async () => {
    let aborted: (value: boolean) => void = () => undefined;
    const seen = new Promise<boolean>((resolve) => {
      aborted = resolve;
    });
    const base = await serve(async (request) => {
      request.signal.addEventListener("abort", () => aborted(true));
      await new Promise((r) => setTimeout(r, 2000));
      return new Response("late");
    });
    const socket = await openSocket(base);
    socket.request("POST /x HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\n\r\nhi").catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    socket.close();
    expect(await Promise.race([seen, new Promise((r) => setTimeout(() => r(false), 1500))])).toBe(true);
  });

  it("writes a handler's string Response with its content-length, and refuses CR/LF in a header", async () => {
    const { createHandler } = await import("../src/index.js");
    const { createHookline } = await import("@hookline/engine");
    const hookline = createHookline({ secretsKey: "test" });
    try {
      const base = await serve(createHandler(hookline));
      const socket = await openSocket(base);
      try {
        const res = await socket.request("GET /v1/nowhere HTTP/1.1\r\nHost: x\r\n\r\n");
        expect(res.status).toBe(404);
        expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
        expect(res.headers["x-request-id"]).toMatch(/^req_/);
        expect(JSON.parse(res.body).error.code).toBe("route_not_found");
      } finally {
        socket.close();
      }
    } finally {
      await hookline.close();
    }
    const { lightResponse } = await import("../src/_lazy-request-response.js");
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const base = await serve(async () => lightResponse("x", 200, { "x-evil": "a\r\nset-cookie: b" }));
      const res = await fetch(`${base}/x`);
      expect(res.status).toBe(500);
      expect(res.headers.get("set-cookie")).toBeNull();
    } finally {
      console.error = original;
    }
  });
});
