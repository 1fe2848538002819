// respond() through the HTTP interface: core decides what is valid (the sandbox forwards the call),
// a string status is accepted, and headers that could split the response never reach the wire.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, MODES, startApi } from "./_harness.js";
import { openSocket } from "./_raw-http.js";

/** A custom-response source that answers with `respond(<the request body>)`. */
const ECHO_RESPOND = `export default {
  name: "Echo Respond", version: "0.1.0",
  props: { http: { type: "$.interface.http", customResponse: true } },
  run(event) { this.http.respond(event.body); },
};`;

async function deployEcho(api: Api): Promise<{ id: string; path: string }> {
  const source = await api.call("POST", "/v1/sources", { body: { component_code: ECHO_RESPOND } });
  expect(source.status).toBe(200);
  return { id: source.body.data.id, path: new URL(source.body.data.endpoint_url).pathname };
}

describe.each(MODES)("respond() through %s", (mode) => {
  let api: Api;
  let echo: { id: string; path: string };
  beforeAll(async () => {
    api = await startApi(mode);
    echo = await deployEcho(api);
  });
  afterAll(() => api.close());

  const respond = (args: unknown) =>
    api.raw(echo.path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(args),
    });

  const logs = async () =>
    (
      (await api.call("GET", `/v1/sources/${echo.id}/logs`)).body.data as { level: string; message: string }[]
    ).map((l) => `${l.level}: ${l.message}`);

  it('answers a numeric-string status such as "201" (the sandbox forwards it, core accepts it)', async () => {
    const res = await respond({ status: "201", headers: { "x-made-by": "echo" }, body: { ok: true } });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-made-by")).toBe("echo");
    expect(await res.json()).toEqual({ ok: true });
  });

  it("leaves out headers HTTP cannot carry or the server owns, sends the rest, and logs why", async () => {
    const res = await respond({
      status: 200,
      headers: {
        "x bad name": "1",
        "x-split": "a\r\nset-cookie: stolen=1",
        "content-length": "2",
        "transfer-encoding": "chunked",
        connection: "close",
        "proxy-authenticate": "Basic",
        "x-kept": "yes",
      },
      body: "hello world",
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("hello world");
    expect(res.headers.get("x-kept")).toBe("yes");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("x-split")).toBeNull();
    expect(res.headers.get("proxy-authenticate")).toBeNull();
    await eventually(async () => {
      const lines = await logs();
      for (const name of ["x bad name", "x-split", "content-length", "transfer-encoding", "connection"]) {
        expect(lines.some((l) => l.startsWith("warn: ") && l.includes(`"${name}" left out`))).toBe(true);
      }
    });
  });

  it("answers 502 invalid_respond for a status outside 100 to 599, and logs it", async () => {
    const res = await respond({ status: 99 });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: unknown }).error).toEqual({
      code: "invalid_respond",
      message: "respond(): status: status must be from 100 to 599, got 99",
    });
    await eventually(async () => {
      expect((await logs()).some((l) => l.startsWith("error: invalid_respond"))).toBe(true);
    });
  });
});

describe("response splitting on one keep-alive connection (a real node:http server)", () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi("node");
  });
  afterAll(() => api.close());

  it("a content-length shorter than the body cannot forge a second response for another workspace", async () => {
    // Workspace A deploys a source whose answer claims 2 bytes and carries a forged response after them.
    const a = await deployEcho(api);
    const forgedBody = JSON.stringify({ data: [{ id: "wh_forged" }] });
    const forged = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${forgedBody.length}\r\n\r\n${forgedBody}`;
    // Workspace B has a webhook of its own.
    const b = await api.hookline.workspaces.create({ name: "b" });
    const bKey = (await api.hookline.apiKeys.create(b.id)).key;
    const bHook = await api.hookline.webhooks.create(b.id, { url: "https://example.com/b" });

    const socket = await openSocket(api.base);
    try {
      const call = JSON.stringify({ status: 200, headers: { "content-length": "2" }, body: `ok${forged}` });
      const first = await socket.request(
        `POST ${a.path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(call)}\r\n\r\n${call}`,
      );
      const second = await socket.request(
        `GET /v1/webhooks HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${bKey}\r\n\r\n`,
      );
      expect(second.status).toBe(200);
      const ids = (JSON.parse(second.body) as { data: { id: string }[] }).data.map((w) => w.id);
      expect(ids).toEqual([bHook.id]);
      expect([first.status, first.body]).toEqual([200, `ok${forged}`]);
      expect(socket.leftover()).toBe("");
    } finally {
      socket.close();
    }
  });
});
