/**
 * More real SDKs in the sandbox, unchanged from npm, each against a loopback stand-in that asserts
 * the request it made: the AWS SDK v3 (a SigV4-signed SQS call: `hash.copy()`), jsonwebtoken 9
 * (an HMAC keyed by a secret `KeyObject`). Found by running ~50 SDKs that Pipedream components
 * import (issue 34).
 */
import { createHash, createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InvocationResult, Runtime } from "../src/index.js";
import { testRuntime } from "./_helpers.js";
import { loopbackBridges } from "./_net.js";
import { recordingServer, type TestServer } from "./_servers.js";

let runtime: Runtime;
let api: TestServer;
beforeAll(async () => {
  runtime = testRuntime();
  api = await recordingServer((req, res) => {
    if (req.headers["x-amz-target"] === "AmazonSQS.SendMessage") {
      const body = JSON.parse(req.body.toString()) as { MessageBody: string };
      res.setHeader("content-type", "application/x-amz-json-1.0");
      res.end(
        JSON.stringify({
          MessageId: "m-1",
          MD5OfMessageBody: createHash("md5").update(body.MessageBody).digest("hex"),
        }),
      );
      return;
    }
    res.statusCode = 404;
    res.end("{}");
  });
});
afterAll(async () => {
  await runtime.close();
  await api.close();
});

/** Runs `body` as the `run` of a component importing `imports`; its emitted event. */
async function run(imports: string, body: string, event: Record<string, unknown> = {}) {
  const code = `${imports}\nexport default { name: "sdk", version: "0.1.0", props: {}, async run(event) {\n${body}\n} }`;
  const loaded = await runtime.load({ code, filename: "sdk.mjs" });
  const mounted = await runtime.mount({
    id: "dc_sdk",
    bundle: loaded.bundle,
    props: {},
    bridges: loopbackBridges(),
  });
  let result: InvocationResult;
  try {
    result = await mounted.run({ api: api.url, ...event });
  } finally {
    mounted.dispose();
  }
  expect(result.error).toBeUndefined();
  return result.emits[0]?.event;
}

describe("real SDKs", () => {
  it("the AWS SDK v3 signs an SQS call with SigV4 and checks the answer's MD5", async () => {
    const event = await run(
      `import { SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs";`,
      `const sqs = new SQSClient({ region: "eu-west-1", endpoint: event.api, maxAttempts: 1,
        credentials: { accessKeyId: "AKIDHOOKLINE", secretAccessKey: "secret" } });
      const out = await sqs.send(new SendMessageCommand({ QueueUrl: event.api + "/1/q", MessageBody: "hello sqs" }));
      this.$emit({ id: out.MessageId, status: out.$metadata.httpStatusCode });`,
    );
    expect(event).toEqual({ id: "m-1", status: 200 });
    const seen = api.seen.at(-1);
    expect(seen?.method).toBe("POST");
    expect(JSON.parse(seen?.body.toString() ?? "")).toEqual({
      QueueUrl: `${api.url}/1/q`,
      MessageBody: "hello sqs",
    });
    const auth = String(seen?.headers.authorization);
    expect(auth).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDHOOKLINE\/\d{8}\/eu-west-1\/sqs\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    // The signature covers the body's SHA-256, which the SDK sends as Node computes it.
    const payloadHash = seen?.headers["x-amz-content-sha256"];
    if (payloadHash !== undefined)
      expect(payloadHash).toBe(
        createHash("sha256")
          .update(seen?.body ?? "")
          .digest("hex"),
      );
  });

  it("jsonwebtoken 9 signs and verifies HS256 with the secret as a KeyObject, as Node does", async () => {
    const event = (await run(
      `import jwt from "jsonwebtoken";`,
      `const token = jwt.sign({ sub: "ada", iat: 1700000000 }, "s3cret", { algorithm: "HS256" });
      const claims = jwt.verify(token, "s3cret");
      let bad; try { jwt.verify(token, "other"); } catch (e) { bad = e.message; }
      this.$emit({ token, sub: claims.sub, bad });`,
    )) as { token: string; sub: string; bad: string };
    const [header, payload, signature] = event.token.split(".");
    expect(JSON.parse(Buffer.from(String(payload), "base64url").toString())).toEqual({
      sub: "ada",
      iat: 1700000000,
    });
    expect(signature).toBe(createHmac("sha256", "s3cret").update(`${header}.${payload}`).digest("base64url"));
    expect(event).toMatchObject({ sub: "ada", bad: "invalid signature" });
  });
});
