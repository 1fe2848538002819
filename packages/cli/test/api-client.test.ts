// The CLI's REST client against a loopback stand-in server: a 429 or a 503 is retried once its
// Retry-After has passed (through the built `pd` binary and through the public client), a POST
// keeps one Idempotency-Key and one request id across its retries and is not retried after a 500,
// and the SSE reader handles lone-CR line ends and drops an event cut off by the end of a stream.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { _readSse, type SseMessage } from "../src/_api.js";
import { createApiClient } from "../src/index.js";
import { baseEnv, pd, tempDir } from "./_helpers.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  at: number;
}

/** A stand-in server answering each request with the next of `answers` (the last one repeats). */
async function standIn(answers: { status: number; headers?: Record<string, string>; body: string }[]) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, at: Date.now() });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
      res
        .writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
        .end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The error a call fails with (a call that succeeds is a failure of the test). */
const failure = (call: Promise<unknown>) =>
  call.then(
    () => ({ code: "none", message: "the call succeeded" }),
    (error: unknown) => error as { code: string; message: string },
  );

const LIMITED = {
  status: 429,
  headers: { "retry-after": "1" },
  body: JSON.stringify({ error: { code: "rate_limited", message: "Too many requests; retry in 1 s" } }),
};
const EMPTY_LIST = JSON.stringify({ data: [], page_info: { count: 0, end_cursor: null } });

describe("the CLI's REST client", () => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  it("pd (the built binary) retries a 429 after its Retry-After and succeeds", async () => {
    const server = await standIn([LIMITED, { status: 200, body: EMPTY_LIST }]);
    closing.push(server.close);
    const env = baseEnv({ HOOKLINE_BASE_URL: server.url, HOOKLINE_API_KEY: "hl_test" });
    const run = await pd(["list", "webhooks", "--json"], { cwd: tempDir(), env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(server.seen.map((s) => s.method)).toEqual(["GET", "GET"]);
    // The retry waited for the second the server asked for, and was the same call.
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(900);
    expect(server.seen[1]!.headers["x-request-id"]).toBe(server.seen[0]!.headers["x-request-id"]);
    expect(server.seen[0]!.headers.authorization).toBe("Bearer hl_test");
  }, 60_000);

  it("a POST keeps its Idempotency-Key across a 503 retry, and is not retried after a 500", async () => {
    const created = JSON.stringify({ data: { id: "wh_1", url: "https://example.com" } });
    const server = await standIn([
      { status: 503, headers: { "retry-after": "1" }, body: "{}" },
      { status: 200, body: created },
    ]);
    closing.push(server.close);
    const client = createApiClient(server.url, "hl_test");
    expect(await client.request("POST", "/v1/webhooks", { url: "https://example.com" })).toEqual({
      id: "wh_1",
      url: "https://example.com",
    });
    expect(server.seen).toHaveLength(2);
    const [first, second] = server.seen as [Seen, Seen];
    expect(first.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers["idempotency-key"]).toBe(first.headers["idempotency-key"]);

    const failing = await standIn([
      { status: 500, body: JSON.stringify({ error: { code: "internal_error", message: "Internal error" } }) },
    ]);
    closing.push(failing.close);
    const error = await failure(
      createApiClient(failing.url, "hl_test").request("POST", "/v1/webhooks", { url: "https://example.com" }),
    );
    expect(failing.seen).toHaveLength(1);
    expect(error.code).toBe("internal_error");
    expect(error.message).toContain(`(request ${failing.seen[0]!.headers["x-request-id"]})`);
  }, 30_000);

  it("a client error is not retried and keeps the API's code and message", async () => {
    const server = await standIn([
      { status: 404, body: JSON.stringify({ error: { code: "not_found", message: "No webhook wh_x" } }) },
    ]);
    closing.push(server.close);
    const error = await failure(createApiClient(server.url, "k").request("GET", "/v1/webhooks/wh_x"));
    expect(server.seen).toHaveLength(1);
    expect(error).toMatchObject({ code: "not_found", message: "No webhook wh_x" });
  });
});

describe("the CLI's SSE reader", () => {
  const read = async (chunks: string[]) => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    const messages: SseMessage[] = [];
    await _readSse(body, (m) => messages.push(m));
    return messages;
  };

  it("reads CR, LF and CRLF line ends alike, across chunks", async () => {
    expect(
      await read([
        "id: 1\rdata: a\r",
        "\rid: 2\nevent: log\ndata: b\n",
        "data: c\n\n: beat\r\n\r\nid: 3\r\ndata: d\r\n\r\n",
      ]),
    ).toEqual([
      { id: "1", event: "message", data: "a" },
      { id: "2", event: "log", data: "b\nc" },
      { id: "3", event: "message", data: "d" },
    ]);
  });

  it("drops an event cut off by the end of the stream", async () => {
    expect(await read(["id: 1\ndata: whole\n\n", "id: 2\ndata: half"])).toEqual([
      { id: "1", event: "message", data: "whole" },
    ]);
  });
});
