// `pd serve` under hostile requests, as a real process: one unauthenticated request must not stop
// it, and requests Node refuses itself are answered as JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSocket } from "../../http/test/_raw-http.js";
import { baseEnv, type Served, serve, stop, tempDir } from "./_helpers.js";

describe("pd serve under hostile requests", () => {
  let server: Served;
  beforeAll(async () => {
    server = await serve(["--memory"], { cwd: tempDir(), env: baseEnv() }, 30_000);
  }, 40_000);
  afterAll(async () => {
    if (server) await stop(server);
  });

  const listWebhooks = () =>
    fetch(`${server.url}/v1/webhooks`, { headers: { authorization: `Bearer ${server.key}` } });

  it("answers `Host: [` with a JSON 400 and keeps serving", async () => {
    const socket = await openSocket(server.url);
    try {
      const res = await socket.request("GET /v1/webhooks HTTP/1.1\r\nHost: [\r\n\r\n");
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe("bad_request");
    } finally {
      socket.close();
    }
    // Give a crash the time to happen, then check the process still answers.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.child.exitCode).toBeNull();
    const ok = await listWebhooks();
    expect(ok.status).toBe(200);
    expect(server.output.stderr).not.toMatch(/ERR_INVALID_URL|uncaught/i);
  });

  it("answers a 100 KB query string with a JSON 431 instead of Node's bare status line", async () => {
    const res = await fetch(`${server.url}/v1/webhooks?q=${"x".repeat(100 * 1024)}`);
    expect(res.status).toBe(431);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("headers_too_large");
    expect((await listWebhooks()).status).toBe(200);
  });
});
