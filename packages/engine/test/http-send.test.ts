// The checks of $.send.http payloads: Pipedream's shape, refused fields named.
import { describe, expect, it } from "vitest";
import { HTTP_SEND_BODY_BYTES, parseHttpSend } from "../src/workflows/http-send.js";

const problemsOf = (payload: unknown) => {
  try {
    parseHttpSend(payload);
  } catch (error) {
    expect(error).toMatchObject({ code: "invalid_send" });
    return (error as { details: { problems: { path: string; message: string }[] } }).details.problems;
  }
  throw new Error("no error");
};

describe("$.send.http payloads", () => {
  it("defaults to POST with a JSON body, adds params and Basic auth", () => {
    const { request, secrets } = parseHttpSend({
      url: "https://example.com/in?a=1",
      params: { b: 2, c: "x y" },
      headers: { "X-Trace": "t1" },
      auth: { username: "u", password: "p:w" },
      data: { ok: true },
    });
    expect(request).toEqual({
      url: "https://example.com/in?a=1&b=2&c=x+y",
      method: "POST",
      headers: {
        "x-trace": "t1",
        authorization: `Basic ${Buffer.from("u:p:w").toString("base64")}`,
        "content-type": "application/json",
      },
      body: '{"ok":true}',
    });
    expect(secrets).toEqual([]);
  });

  it("sends a string body as is, any method, with signing secrets", () => {
    const { request, secrets } = parseHttpSend({
      url: "http://example.com",
      method: "put",
      headers: { "content-type": "text/csv" },
      body: "a,b\n1,2",
      signing_secret: "whsec_c2VjcmV0",
    });
    expect(request).toMatchObject({
      method: "PUT",
      body: "a,b\n1,2",
      headers: { "content-type": "text/csv" },
    });
    expect(secrets).toEqual(["whsec_c2VjcmV0"]);
  });

  it("names each wrong field", () => {
    expect(problemsOf("https://example.com")[0]?.message).toContain("takes an object");
    expect(problemsOf({}).map((p) => p.path)).toEqual(["url"]);
    expect(
      problemsOf({
        url: "ftp://example.com",
        method: "FETCH",
        headers: { Host: "x", "x-hookline-id": "y", "bad name": "z", ok: "a\r\nb" },
        auth: { username: "u" },
        signing_secret: "nope",
        extra: 1,
      }).map((p) => p.path),
    ).toEqual([
      "extra",
      "url",
      "method",
      "signing_secret",
      "headers.Host",
      "headers.x-hookline-id",
      "headers.bad name",
      "headers.ok",
      "auth",
    ]);
    expect(problemsOf({ url: "https://example.com", method: "GET", data: "x" }).map((p) => p.path)).toEqual([
      "data",
    ]);
  });

  it("refuses a body over the cap with payload_too_large", () => {
    expect(() =>
      parseHttpSend({ url: "https://example.com", data: "x".repeat(HTTP_SEND_BODY_BYTES + 1) }),
    ).toThrow(expect.objectContaining({ code: "payload_too_large" }));
  });
});
