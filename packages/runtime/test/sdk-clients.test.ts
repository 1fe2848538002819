/**
 * More real SDKs in the sandbox, unchanged from npm, each against a loopback stand-in that asserts
 * the request it made: the AWS SDK v3 (a SigV4-signed SQS call: `hash.copy()`), jsonwebtoken 9
 * (an HMAC keyed by a secret `KeyObject`), jose 6 over `crypto.subtle`. Found by running ~50 SDKs that Pipedream components
 * import (issue 34).
 */
import { createHash, createHmac, createPublicKey, generateKeyPairSync, verify, webcrypto } from "node:crypto";
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

  it("jose 6 over crypto.subtle: HS256, RS256 from a PKCS#8 key, ES256 from generateKey, checked by Node", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const event = (await run(
      `import * as jose from "jose";`,
      `const hs = await new jose.SignJWT({ sub: "ada" }).setProtectedHeader({ alg: "HS256" }).setIssuedAt(1700000000)
        .sign(new TextEncoder().encode("a-secret-of-32-bytes-for-hs256!!"));
      const rs = await new jose.SignJWT({ sub: "grace" }).setProtectedHeader({ alg: "RS256" })
        .sign(await jose.importPKCS8(event.pem, "RS256"));
      const pair = await jose.generateKeyPair("ES256", { extractable: true });
      const es = await new jose.SignJWT({ sub: "es" }).setProtectedHeader({ alg: "ES256" }).sign(pair.privateKey);
      const checked = await jose.jwtVerify(es, pair.publicKey);
      let tampered; try { await jose.jwtVerify(es.slice(0, -4) + "AAAA", pair.publicKey); } catch (e) { tampered = e.code; }
      const jwk = await jose.exportJWK(pair.publicKey);
      const digest = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("abc"))).toString("hex");
      const aes = await crypto.subtle.importKey("raw", new Uint8Array(16).fill(7), "AES-GCM", false, ["encrypt"]);
      const sealed = Buffer.from(await crypto.subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, aes, new TextEncoder().encode("hi"))).toString("hex");
      this.$emit({ hs, rs, es, jwk, sub: checked.payload.sub, tampered, digest, sealed, isKey: pair.publicKey instanceof CryptoKey });`,
      { pem },
    )) as Record<string, any>;
    const [hsHeader, hsPayload, hsSignature] = String(event.hs).split(".");
    expect(hsSignature).toBe(
      createHmac("sha256", "a-secret-of-32-bytes-for-hs256!!")
        .update(`${hsHeader}.${hsPayload}`)
        .digest("base64url"),
    );
    const [rsHeader, rsPayload, rsSignature] = String(event.rs).split(".");
    expect(
      verify(
        "sha256",
        Buffer.from(`${rsHeader}.${rsPayload}`),
        publicKey,
        Buffer.from(String(rsSignature), "base64url"),
      ),
    ).toBe(true);
    const [esHeader, esPayload, esSignature] = String(event.es).split(".");
    const esKey = createPublicKey({ key: event.jwk, format: "jwk" });
    expect(
      verify(
        "sha256",
        Buffer.from(`${esHeader}.${esPayload}`),
        { key: esKey, dsaEncoding: "ieee-p1363" },
        Buffer.from(String(esSignature), "base64url"),
      ),
    ).toBe(true);
    expect(event).toMatchObject({
      sub: "es",
      tampered: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
      isKey: true,
    });
    expect(event.digest).toBe(createHash("sha256").update("abc").digest("hex"));
    const key = await webcrypto.subtle.importKey("raw", new Uint8Array(16).fill(7), "AES-GCM", false, [
      "encrypt",
    ]);
    const sealed = await webcrypto.subtle.encrypt(
      { name: "AES-GCM", iv: new Uint8Array(12) },
      key,
      Buffer.from("hi"),
    );
    expect(event.sealed).toBe(Buffer.from(sealed).toString("hex"));
  });
});
