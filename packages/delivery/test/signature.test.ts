import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  generateWebhookSecret,
  signPayload,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from "../src/signature.js";

const NOW = 1_700_000_000_000;
const TS = NOW / 1000;
const body = JSON.stringify({ type: "user.created", data: { id: 1 } });

function headersFor(secrets: string[], msgId = "msg_1", ts = TS, payload = body): Record<string, string> {
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(ts),
    "webhook-signature": signPayload(secrets, msgId, ts, payload),
  };
}

function codeOf(fn: () => void): WebhookVerificationErrorCode | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).code;
  }
  return undefined;
}

describe("generateWebhookSecret", () => {
  it("returns whsec_ + base64 of 24 bytes", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(24);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});

describe("signPayload / verifyWebhook", () => {
  const secret = generateWebhookSecret();

  it("round trips", () => {
    expect(() => verifyWebhook(secret, headersFor([secret]), body, { now: NOW })).not.toThrow();
    expect(() =>
      verifyWebhook(secret, headersFor([secret]), new TextEncoder().encode(body), { now: NOW }),
    ).not.toThrow();
  });

  it("produces one v1 signature per secret and accepts any of them", () => {
    const other = generateWebhookSecret();
    const header = signPayload([secret, other], "msg_1", TS, body);
    expect(header.split(" ")).toHaveLength(2);
    expect(header.split(" ").every((part) => part.startsWith("v1,"))).toBe(true);
    const headers = headersFor([other, secret]);
    expect(() => verifyWebhook(secret, headers, body, { now: NOW })).not.toThrow();
    expect(() => verifyWebhook(other, headers, body, { now: NOW })).not.toThrow();
    expect(() => verifyWebhook(["whsec_AAAA", other], headersFor([other]), body, { now: NOW })).not.toThrow();
  });

  it("reads headers case-insensitively, from Headers or records", () => {
    const h = headersFor([secret]);
    const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    expect(() => verifyWebhook(secret, upper, body, { now: NOW })).not.toThrow();
    expect(() => verifyWebhook(secret, new Headers(h), body, { now: NOW })).not.toThrow();
  });

  it("ignores unknown signature versions", () => {
    const h = headersFor([secret]);
    h["webhook-signature"] = `v2,abc ${h["webhook-signature"]}`;
    expect(() => verifyWebhook(secret, h, body, { now: NOW })).not.toThrow();
  });

  it("rejects a tampered body", () => {
    expect(codeOf(() => verifyWebhook(secret, headersFor([secret]), `${body} `, { now: NOW }))).toBe(
      "invalid_signature",
    );
  });

  it("rejects the wrong secret", () => {
    expect(
      codeOf(() => verifyWebhook(generateWebhookSecret(), headersFor([secret]), body, { now: NOW })),
    ).toBe("invalid_signature");
  });

  it("rejects a tampered id", () => {
    const h = headersFor([secret]);
    h["webhook-id"] = "msg_2";
    expect(codeOf(() => verifyWebhook(secret, h, body, { now: NOW }))).toBe("invalid_signature");
  });

  it("rejects missing headers", () => {
    const h: Record<string, string | undefined> = headersFor([secret]);
    h["webhook-signature"] = undefined;
    expect(codeOf(() => verifyWebhook(secret, h, body, { now: NOW }))).toBe("missing_headers");
    expect(codeOf(() => verifyWebhook(secret, {}, body, { now: NOW }))).toBe("missing_headers");
  });

  it("rejects old and new timestamps", () => {
    const old = headersFor([secret], "msg_1", TS - 301);
    expect(codeOf(() => verifyWebhook(secret, old, body, { now: NOW }))).toBe("timestamp_too_old");
    const future = headersFor([secret], "msg_1", TS + 301);
    expect(codeOf(() => verifyWebhook(secret, future, body, { now: NOW }))).toBe("timestamp_too_new");
    expect(() => verifyWebhook(secret, old, body, { now: NOW, toleranceSeconds: 600 })).not.toThrow();
    const edge = headersFor([secret], "msg_1", TS - 300);
    expect(() => verifyWebhook(secret, edge, body, { now: NOW })).not.toThrow();
  });

  it("rejects a non-numeric timestamp", () => {
    const h = headersFor([secret]);
    h["webhook-timestamp"] = "abc";
    expect(codeOf(() => verifyWebhook(secret, h, body, { now: NOW }))).toBe("invalid_signature");
  });
});

describe("interop with the standardwebhooks package", () => {
  it("our signatures verify with standardwebhooks", () => {
    const secret = generateWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = headersFor([secret], "msg_interop", ts);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("standardwebhooks signatures verify with ours", () => {
    const secret = generateWebhookSecret();
    const wh = new Webhook(secret);
    const date = new Date();
    const headers = {
      "webhook-id": "msg_theirs",
      "webhook-timestamp": String(Math.floor(date.getTime() / 1000)),
      "webhook-signature": wh.sign("msg_theirs", date, body),
    };
    expect(() => verifyWebhook(secret, headers, body)).not.toThrow();
    expect(headers["webhook-signature"]).toBe(
      signPayload([secret], "msg_theirs", Math.floor(date.getTime() / 1000), body),
    );
  });
});
