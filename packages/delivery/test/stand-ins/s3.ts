/**
 * An S3-compatible stand-in on loopback: a `node:http` server that checks each request's AWS
 * Signature V4 with its own code (node:crypto, from the AWS documentation, not the client's
 * library), refuses what S3 would refuse (a bad signature, a body that does not match its signed
 * hash, a bucket it does not have) and stores PUT objects. Path-style and virtual-hosted addressing.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** An object as the stand-in stored it. */
export interface StoredObject {
  bucket: string;
  /** The key, decoded. */
  key: string;
  body: Buffer;
  contentType: string | undefined;
  /** `x-amz-meta-*` headers, without the prefix. */
  metadata: Record<string, string>;
}

/** Options of {@link startS3StandIn}. */
export interface S3StandInOptions {
  accessKeyId: string;
  secretAccessKey: string;
  /** The region requests must be signed for. */
  region?: string;
  /** Buckets that exist. */
  buckets: string[];
  /** Buckets the credentials may not write to (403 AccessDenied). */
  denied?: string[];
  /** Answer every request with this status and S3 error code (such as 503 SlowDown). */
  fail?: { status: number; code: string };
}

/** A running stand-in. */
export interface S3StandIn {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Objects stored, in order. */
  readonly objects: StoredObject[];
  /** Requests refused, with the S3 error code sent. */
  readonly refusals: string[];
  close(): Promise<void>;
}

const hmac = (key: Buffer | string, text: string) => createHmac("sha256", key).update(text).digest();
const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/** Why the request's signature is wrong, or undefined when it is right. */
function signatureProblem(
  req: http.IncomingMessage,
  body: Buffer,
  options: S3StandInOptions,
): string | undefined {
  const auth =
    /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      req.headers.authorization ?? "",
    );
  if (!auth) return "no AWS4-HMAC-SHA256 Authorization header";
  const [, credential = "", signedHeaders = "", signature = ""] = auth;
  const [keyId, day, region, service, terminator] = credential.split("/");
  if (keyId !== options.accessKeyId) return "unknown access key";
  if (region !== (options.region ?? "us-east-1") || service !== "s3" || terminator !== "aws4_request") {
    return `wrong scope ${credential}`;
  }
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  if (!amzDate.startsWith(day ?? "-")) return "x-amz-date does not match the scope's day";
  const signedAt = Date.parse(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"),
  );
  if (!(Math.abs(Date.now() - signedAt) < 15 * 60_000)) return "x-amz-date is not within 15 minutes";
  const payloadHash = String(req.headers["x-amz-content-sha256"] ?? "");
  if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256(body))
    return "body does not match its hash";
  const names = signedHeaders.split(";");
  if (!names.includes("host")) return "host is not signed";
  const [path = "/", query = ""] = (req.url ?? "/").split("?");
  const canonicalQuery = query.split("&").filter(Boolean).sort().join("&");
  const canonicalHeaders = names
    .map(
      (name) =>
        `${name}:${String(req.headers[name] ?? "")
          .trim()
          .replace(/\s+/g, " ")}\n`,
    )
    .join("");
  const canonicalRequest = [
    req.method,
    path,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join("\n");
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    `${day}/${region}/${service}/aws4_request`,
    sha256(canonicalRequest),
  ].join("\n");
  let key = hmac(`AWS4${options.secretAccessKey}`, day ?? "");
  for (const part of [region ?? "", service ?? "", "aws4_request"]) key = hmac(key, part);
  const expected = hmac(key, stringToSign);
  return timingSafeEqual(expected, Buffer.from(signature, "hex")) ? undefined : "signature does not match";
}

/**
 * Starts the stand-in on a free loopback port.
 *
 * @example
 * ```ts
 * const s3 = await startS3StandIn({ accessKeyId: "k", secretAccessKey: "s", buckets: ["out"] });
 * // ... PUT to `${s3.endpoint}/out/<key>`, signed
 * s3.objects[0]?.body.toString();
 * await s3.close();
 * ```
 */
export async function startS3StandIn(options: S3StandInOptions): Promise<S3StandIn> {
  const objects: StoredObject[] = [];
  const refusals: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const error = (status: number, code: string, message: string) => {
        refusals.push(code);
        res.writeHead(status, { "content-type": "application/xml" });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
        );
      };
      if (options.fail)
        return error(options.fail.status, options.fail.code, "Please reduce your request rate.");
      const body = Buffer.concat(chunks);
      const problem = signatureProblem(req, body, options);
      if (problem) return error(403, "SignatureDoesNotMatch", problem);
      // Virtual-hosted (`<bucket>.<host>/<key>`) or path-style (`<host>/<bucket>/<key>`) addressing.
      const host = String(req.headers.host ?? "").replace(/:\d+$/, "");
      const hosted = options.buckets.find((name) => host.startsWith(`${name}.`) && !/^[\d.]+$/.test(host));
      const segments = (req.url ?? "/").split("?")[0]!.split("/").slice(1);
      const bucket = hosted ?? segments.shift() ?? "";
      const key = segments;
      if (!options.buckets.includes(bucket))
        return error(404, "NoSuchBucket", "The specified bucket does not exist");
      if (options.denied?.includes(bucket)) return error(403, "AccessDenied", "Access Denied");
      if (req.method !== "PUT") return error(405, "MethodNotAllowed", "Only PUT here");
      const metadata: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (name.startsWith("x-amz-meta-")) metadata[name.slice("x-amz-meta-".length)] = String(value);
      }
      objects.push({
        bucket,
        key: key.map(decodeURIComponent).join("/"),
        body,
        contentType: req.headers["content-type"],
        metadata,
      });
      res.writeHead(200, { etag: `"${createHash("md5").update(body).digest("hex")}"` });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    refusals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
