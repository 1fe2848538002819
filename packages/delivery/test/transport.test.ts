import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestTimeoutError } from "../src/guarded-send.js";
import { SsrfError } from "../src/ssrf.js";
import { createTransport } from "../src/transport.js";

let server: http.Server;
let base: string;
let port: number;
let hits = 0;
let connections = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.url === "/redirect") {
        res.writeHead(302, { location: `${base}/target` }).end();
      } else if (req.url === "/slow") {
        setTimeout(() => res.end("late"), 2_000).unref();
      } else if (req.url === "/echo") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers }));
      } else if (req.url === "/error") {
        res.writeHead(503, { "retry-after": "120" }).end("unavailable");
      } else {
        res.writeHead(200, { "content-type": "application/json", "x-sig": req.headers["webhook-id"] ?? "" });
        res.end(JSON.stringify({ got: Buffer.concat(chunks).toString(), type: req.headers["content-type"] }));
      }
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("createTransport", () => {
  it("blocks private destinations by default", async () => {
    const transport = createTransport();
    const before = hits;
    const error = await transport.post(`${base}/hook`, { body: "{}" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SsrfError);
    expect((error as SsrfError).code).toBe("ssrf_blocked");
    const viaName = await transport
      .post(`http://localhost:${port}/hook`, { body: "{}" })
      .catch((e: unknown) => e);
    expect(viaName).toBeInstanceOf(SsrfError);
    expect((viaName as SsrfError).code).toBe("ssrf_blocked");
    expect(hits).toBe(before);
    transport.close();
  });

  it("posts with allowPrivate", async () => {
    const transport = createTransport({ allowPrivate: true });
    const result = await transport.post(`${base}/hook`, {
      headers: { "content-type": "application/json", "webhook-id": "msg_1" },
      body: '{"hello":"world"}',
    });
    expect(result.status).toBe(200);
    expect(result.headers["x-sig"]).toBe("msg_1");
    expect(result.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(result.body)).toEqual({ got: '{"hello":"world"}', type: "application/json" });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    // keep-alive connection reuse still works
    const again = await transport.post(`${base}/hook`, { body: "2" });
    expect(JSON.parse(again.body).got).toBe("2");
    transport.close();
  });

  it("resolves for HTTP errors instead of throwing", async () => {
    const transport = createTransport({ allowPrivate: true });
    const result = await transport.post(`${base}/error`, { body: "{}" });
    expect(result.status).toBe(503);
    expect(result.headers["retry-after"]).toBe("120");
    expect(result.body).toBe("unavailable");
    transport.close();
  });

  it("returns a 302 without following it", async () => {
    const transport = createTransport({ allowPrivate: true });
    const before = hits;
    const result = await transport.post(`${base}/redirect`, { body: "{}" });
    expect(result.status).toBe(302);
    expect(result.headers.location).toBe(`${base}/target`);
    expect(hits).toBe(before + 1);
    transport.close();
  });

  it("times out with code timeout", async () => {
    const transport = createTransport({ allowPrivate: true });
    const error = await transport
      .post(`${base}/slow`, { body: "{}", timeoutMs: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).code).toBe("timeout");
    const viaDefault = createTransport({ allowPrivate: true, timeoutMs: 100 });
    await expect(viaDefault.post(`${base}/slow`)).rejects.toMatchObject({ code: "timeout" });
    viaDefault.close();
    transport.close();
  });

  it("sends the body bytes unchanged and, without a content type, labels it text/plain like fetch", async () => {
    const transport = createTransport({ allowPrivate: true });
    const body = '{"name":"café ✓"}';
    const result = await transport.post(`${base}/echo`, { body });
    const echoed = JSON.parse(result.body) as { body: string; headers: Record<string, string> };
    expect(echoed.body).toBe(body);
    expect(echoed.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(echoed.headers["content-type"]).toBe("text/plain;charset=UTF-8");
    const typed = await transport.post(`${base}/echo`, {
      headers: { "content-type": "application/json" },
      body,
    });
    expect((JSON.parse(typed.body) as { headers: Record<string, string> }).headers["content-type"]).toBe(
      "application/json",
    );
    transport.close();
  });

  it("keeps connections alive across requests", async () => {
    const transport = createTransport({ allowPrivate: true });
    const before = connections;
    for (let i = 0; i < 5; i++) {
      const result = await transport.post(`${base}/hook`, { body: String(i) });
      expect(JSON.parse(result.body).got).toBe(String(i));
    }
    expect(connections - before).toBe(1);
    transport.close();
  });

  it("caps the response body it keeps", async () => {
    const transport = createTransport({ allowPrivate: true, maxResponseBytes: 8 });
    const result = await transport.post(`${base}/hook`, { body: "long enough to be cut" });
    expect(result.status).toBe(200);
    expect(result.body).toBe('{"got":"');
    transport.close();
  });
});
