// $.send.s3 through the default S3 destination, stored by a SigV4-checking S3 stand-in on loopback.
import dns, { type LookupAddress } from "node:dns";
import { isHooklineError } from "@hookline/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createS3Destination,
  type Destinations,
  objectKey,
  type S3DestinationOptions,
  sendToDestination,
} from "../src/index.js";
import { type S3StandIn, type S3StandInOptions, startS3StandIn } from "./stand-ins/s3.js";
import { closedPort, configProblems, context, failure, useCleanups } from "./support.js";

const credentials = { accessKeyId: "HOOKLINEKEY", secretAccessKey: "s3cr3t/with+chars" };
const KEY_NAME =
  /^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.json$/;

const cleanup = useCleanups();

async function s3Server(options: Partial<S3StandInOptions> = {}): Promise<S3StandIn> {
  const server = await startS3StandIn({ ...credentials, buckets: ["out", "other", "with.dots"], ...options });
  cleanup(() => server.close());
  return server;
}

function s3(options: Partial<S3DestinationOptions> & { endpoint: string }): Destinations {
  const destination = createS3Destination({ ...credentials, bucket: "out", timeoutMs: 10_000, ...options });
  cleanup(() => destination.close());
  return { s3: destination };
}

describe("$.send.s3 to an S3-compatible endpoint", () => {
  it("stores the payload as a JSON object <prefix><timestamp>-<uuid>.json, signed with SigV4", async () => {
    const server = await s3Server();
    const destinations = s3({ endpoint: server.endpoint });
    const payload = { order: 42, items: ["a", "b"], note: "héllo" };
    const before = Date.now();
    const sent = await sendToDestination(
      destinations,
      "s3",
      { bucket: "out", prefix: "orders/2026/", payload },
      context,
    );

    expect(server.refusals).toEqual([]);
    expect(server.objects).toHaveLength(1);
    const object = server.objects[0]!;
    expect(object.bucket).toBe("out");
    expect(object.key.startsWith("orders/2026/")).toBe(true);
    expect(object.key.slice("orders/2026/".length)).toMatch(KEY_NAME);
    const stamp = object.key.slice("orders/2026/".length, "orders/2026/".length + 19);
    const at = Date.parse(stamp.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})/, "$1-$2-$3T$4:$5:$6"));
    expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(object.contentType).toBe("application/json");
    expect(JSON.parse(object.body.toString("utf8"))).toEqual(payload);
    expect(object.metadata).toEqual({
      "hookline-workflow": "p_abc",
      "hookline-execution": "exe_123",
      "hookline-step": "notify",
    });
    expect(sent).toEqual({
      bucket: "out",
      key: object.key,
      url: `${server.endpoint}/out/${object.key}`,
      size: object.body.length,
      etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
    });
  });

  it("uses the default bucket, no prefix, and signs keys with spaces and unicode", async () => {
    const server = await s3Server();
    const destinations = s3({ endpoint: server.endpoint });
    await sendToDestination(destinations, "s3", { payload: "just a string" }, context);
    await sendToDestination(
      destinations,
      "s3",
      { prefix: "rapports d'été/(draft)*!/", payload: [1, 2] },
      context,
    );
    expect(server.refusals).toEqual([]);
    const [plain, unicode] = server.objects;
    expect(plain?.bucket).toBe("out");
    expect(plain?.key).toMatch(KEY_NAME);
    expect(plain?.body.toString()).toBe('"just a string"');
    expect(unicode?.key.startsWith("rapports d'été/(draft)*!/")).toBe(true);
    expect(unicode?.body.toString()).toBe("[1,2]");
  });

  it("writes to a bucket a message names only when the server allows it", async () => {
    const server = await s3Server();
    const strict = s3({ endpoint: server.endpoint });
    const error = await failure(sendToDestination(strict, "s3", { bucket: "other", payload: 1 }, context));
    expect(error.code).toBe("invalid_send");
    expect(error.details.problems).toEqual([
      expect.objectContaining({
        code: "invalid_value",
        path: "bucket",
        message: expect.stringContaining('"other"'),
      }),
    ]);
    expect(server.objects).toEqual([]);

    const listed = s3({ endpoint: server.endpoint, allowedBuckets: ["other", "with.dots"] });
    await sendToDestination(listed, "s3", { bucket: "other", payload: 1 }, context);
    await sendToDestination(listed, "s3", { bucket: "with.dots", payload: 2 }, context);
    const any = s3({ endpoint: server.endpoint, bucket: undefined, allowedBuckets: ["*"] });
    await sendToDestination(any, "s3", { bucket: "other", payload: 3 }, context);
    expect(server.objects.map((o) => `${o.bucket}:${o.body}`)).toEqual(["other:1", "with.dots:2", "other:3"]);

    const noDefault = await failure(sendToDestination(any, "s3", { payload: 4 }, context));
    expect(noDefault.code).toBe("invalid_send");
    expect(noDefault.details.problems).toEqual([
      expect.objectContaining({ code: "required", path: "bucket" }),
    ]);
  });

  it("fails with destination_rejected 403 when the endpoint refuses the signature", async () => {
    const server = await s3Server();
    const destinations = s3({ endpoint: server.endpoint, secretAccessKey: "not-the-secret" });
    const error = await failure(sendToDestination(destinations, "s3", { payload: 1 }, context));
    expect(error.code).toBe("destination_rejected");
    expect(error.status).toBe(502);
    expect(error.details).toMatchObject({
      destination: "s3",
      status: 403,
      s3_code: "SignatureDoesNotMatch",
      retryable: false,
    });
    expect(server.refusals).toEqual(["SignatureDoesNotMatch"]);
    expect(server.objects).toEqual([]);
  });

  it("fails with destination_rejected 403 AccessDenied, and says which object", async () => {
    const server = await s3Server({ denied: ["out"] });
    const destinations = s3({ endpoint: server.endpoint });
    const error = await failure(sendToDestination(destinations, "s3", { prefix: "p/", payload: 1 }, context));
    expect(error.details).toMatchObject({ status: 403, s3_code: "AccessDenied", retryable: false });
    expect(error.message).toMatch(/refused the object out\/p\/\S+\.json: 403 AccessDenied: Access Denied/);
  });

  it("marks a 503 SlowDown as retryable", async () => {
    const server = await s3Server({ fail: { status: 503, code: "SlowDown" } });
    const error = await failure(
      sendToDestination(s3({ endpoint: server.endpoint }), "s3", { payload: 1 }, context),
    );
    expect(error.code).toBe("destination_rejected");
    expect(error.details).toMatchObject({ status: 503, s3_code: "SlowDown", retryable: true });
  });

  it("fails with destination_unreachable when nothing listens, retryable", async () => {
    const port = await closedPort();
    const error = await failure(
      sendToDestination(s3({ endpoint: `http://127.0.0.1:${port}` }), "s3", { payload: 1 }, context),
    );
    expect(error.code).toBe("destination_unreachable");
    expect(error.details).toMatchObject({ destination: "s3", retryable: true });
    expect(error.message).toContain("ECONNREFUSED");
    expect(isHooklineError(error)).toBe(true);
  });

  describe("through the SSRF guard", () => {
    // Host names under s3.test and amazonaws.com resolve to loopback, as a rebinding DNS would.
    beforeEach(() => {
      const lookup = dns.lookup.bind(dns) as (...args: unknown[]) => void;
      vi.spyOn(dns, "lookup").mockImplementation(((host: string, options: unknown, callback: unknown) => {
        if (!/(^|\.)(s3\.test|amazonaws\.com)$/.test(host)) return lookup(host, options, callback);
        (callback as (e: null, a: LookupAddress[]) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
      }) as typeof dns.lookup);
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it("trusts the configured endpoint's host and its listed buckets' hosts, virtual-hosted", async () => {
      const server = await s3Server();
      const endpoint = server.endpoint.replace("127.0.0.1", "s3.test");
      const destinations = s3({ endpoint, pathStyle: false, allowedBuckets: ["other"] });
      const sent = await sendToDestination(
        destinations,
        "s3",
        { bucket: "other", payload: { a: 1 } },
        context,
      );
      expect(sent.url).toBe(`${endpoint.replace("s3.test", "other.s3.test")}/${sent.key}`);
      expect(server.refusals).toEqual([]);
      expect(server.objects.map((o) => [o.bucket, o.key])).toEqual([["other", sent.key]]);
    });

    it("refuses a bucket host that only the wildcard allows: destination_unreachable, not retryable", async () => {
      const server = await s3Server();
      const endpoint = server.endpoint.replace("127.0.0.1", "s3.test");
      const destinations = s3({ endpoint, pathStyle: false, allowedBuckets: ["*"] });
      const error = await failure(
        sendToDestination(destinations, "s3", { bucket: "other", payload: 1 }, context),
      );
      expect(error.code).toBe("destination_unreachable");
      expect(error.details).toMatchObject({ destination: "s3", retryable: false });
      expect(error.message).toContain("the SSRF guard refused it");
      expect(server.objects).toEqual([]);
      // Path-style stays on the configured host, which is trusted.
      await sendToDestination(
        s3({ endpoint, allowedBuckets: ["*"] }),
        "s3",
        { bucket: "other", payload: 2 },
        context,
      );
      expect(server.objects.map((o) => o.bucket)).toEqual(["other"]);
    });

    it("trusts nothing by default: AWS hosts resolving to a private address are refused", async () => {
      const destination = createS3Destination({ ...credentials, bucket: "out", region: "eu-west-1" });
      cleanup(() => destination.close());
      const error = await failure(sendToDestination({ s3: destination }, "s3", { payload: 1 }, context));
      expect(error.code).toBe("destination_unreachable");
      expect(error.message).toContain("https://out.s3.eu-west-1.amazonaws.com/");
      expect(error.message).toContain("resolves to a private address: 127.0.0.1");
    });
  });
});

describe("S3 destination configuration", () => {
  const problems = (options: Record<string, unknown>) =>
    configProblems(() => createS3Destination(options as never).close()).map((p) => p.message);

  it("names each wrong option", () => {
    expect(problems({ ...credentials })).toEqual([]);
    expect(problems({})).toEqual(["accessKeyId is required", "secretAccessKey is required"]);
    expect(
      problems({
        ...credentials,
        endpoint: "ftp://files.example.com",
        region: "Mars 1",
        bucket: "Bad_Bucket",
        allowedBuckets: ["ok-bucket", "x"],
      }),
    ).toEqual([
      "region must be a region name such as us-east-1",
      "endpoint must be an http(s) URL without a query, such as https://s3.example.com",
      'bucket has "Bad_Bucket", which is not an S3 bucket name',
      'allowedBuckets has "x", which is not an S3 bucket name',
    ]);
  });
});

describe("objectKey", () => {
  it("is <prefix><UTC timestamp>-<uuid v4>.json, sortable by time", () => {
    const key = objectKey("logs/", new Date("2026-01-02T03:04:05.678Z"));
    expect(key).toMatch(/^logs\/20260102T030405\.678Z-[0-9a-f-]{36}\.json$/);
    expect(objectKey("", new Date("2026-01-02T03:04:05.679Z")) > key.slice(5)).toBe(true);
  });
});
