import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedFetch } from "../src/guarded-fetch.js";
import { RequestTimeoutError } from "../src/guarded-send.js";
import { SsrfError } from "../src/ssrf.js";

let server: http.Server;
let base: string;
let port: number;
const received: { method?: string; body: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ method: req.method, body: Buffer.concat(chunks).toString(), headers: req.headers });
      const path = req.url ?? "/";
      if (path === "/redirect") {
        res.writeHead(302, { location: "/target" }).end("moved");
      } else if (path === "/slow") {
        setTimeout(() => res.end("late"), 2_000).unref();
      } else if (path === "/no-content") {
        res.writeHead(204).end();
      } else if (path === "/big") {
        res.end("x".repeat(10_000));
      } else {
        res.setHeader("set-cookie", ["a=1", "b=2"]);
        res.writeHead(201, { "content-type": "text/plain", "x-echo": req.headers["x-test"] ?? "" });
        res.end(`echo:${Buffer.concat(chunks).toString()}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("createGuardedFetch", () => {
  it("refuses loopback by default, before connecting", async () => {
    const guardedFetch = createGuardedFetch();
    const before = received.length;
    const error = await guardedFetch(`${base}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SsrfError);
    expect((error as SsrfError).code).toBe("ssrf_blocked");
    expect(received.length).toBe(before);
    guardedFetch.close();
  });

  it("refuses a host name resolving to loopback at connect time", async () => {
    const guardedFetch = createGuardedFetch();
    const error = await guardedFetch(`http://localhost:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SsrfError);
    expect((error as SsrfError).code).toBe("ssrf_blocked");
    guardedFetch.close();
  });

  it("refuses non-http schemes", async () => {
    const guardedFetch = createGuardedFetch({ allowPrivate: true });
    await expect(guardedFetch("file:///etc/passwd")).rejects.toBeInstanceOf(SsrfError);
    guardedFetch.close();
  });

  it("posts and builds a Response with allowPrivate", async () => {
    const guardedFetch = createGuardedFetch({ allowPrivate: true });
    const response = await guardedFetch(`${base}/echo`, {
      method: "POST",
      headers: { "x-test": "hello", "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-echo")).toBe("hello");
    expect(response.headers.get("content-type")).toBe("text/plain");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(response.url).toBe(`${base}/echo`);
    expect(await response.text()).toBe('echo:{"a":1}');
    const last = received.at(-1)!;
    expect(last.method).toBe("POST");
    expect(last.headers["content-length"]).toBe("7");
    guardedFetch.close();
  });

  it("accepts a Request object and allowList host names resolving to loopback", async () => {
    const guardedFetch = createGuardedFetch({ allowList: ["localhost"] });
    const response = await guardedFetch(
      new Request(`http://localhost:${port}/echo`, { method: "PUT", body: "x" }),
    );
    expect(await response.text()).toBe("echo:x");
    guardedFetch.close();
  });

  it("never follows redirects", async () => {
    const guardedFetch = createGuardedFetch({ allowPrivate: true });
    const response = await guardedFetch(`${base}/redirect`, { redirect: "follow" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/target");
    expect(await response.text()).toBe("moved");
    guardedFetch.close();
  });

  it("handles null-body statuses", async () => {
    const guardedFetch = createGuardedFetch({ allowPrivate: true });
    const response = await guardedFetch(`${base}/no-content`);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    guardedFetch.close();
  });

  it("caps the response body", async () => {
    const guardedFetch = createGuardedFetch({ allowPrivate: true, maxResponseBytes: 100 });
    const response = await guardedFetch(`${base}/big`);
    expect((await response.text()).length).toBe(100);
    guardedFetch.close();
  });

  it("times out with code timeout", async () => {
    const guardedFetch = createGuardedFetch({ allowPrivate: true, timeoutMs: 100 });
    const error = await guardedFetch(`${base}/slow`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).code).toBe("timeout");
    guardedFetch.close();
  });

  it("honours AbortSignal", async () => {
    const guardedFetch = createGuardedFetch({ allowPrivate: true });
    const controller = new AbortController();
    const promise = guardedFetch(`${base}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(promise).rejects.toMatchObject({ name: "AbortError" });
    await expect(guardedFetch(`${base}/`, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    guardedFetch.close();
  });
});
