/**
 * The default S3 destination: one signed PUT per message (AWS Signature V4 by aws4fetch) to any
 * S3-compatible endpoint, through the SSRF-guarded fetch every outbound request uses.
 */
import { createHash, randomUUID } from "node:crypto";
import { AwsV4Signer } from "aws4fetch";
import { createGuardedFetch } from "../guarded-fetch.js";
import { RequestTimeoutError } from "../guarded-send.js";
import { SsrfError, type SsrfGuardOptions } from "../ssrf.js";
import { DEFAULT_TIMEOUT_MS } from "../transport.js";
import { ConfigCheck, checkTimeout, headerValue, type SettingNames } from "./config.js";
import type { DestinationContext, S3Destination, S3SendResult } from "./destinations.js";
import { DestinationError, describeCause, invalidSend } from "./errors.js";
import { S3_BUCKET_PATTERN, type S3Message } from "./messages.js";

/** Options of {@link createS3Destination}. */
export interface S3DestinationOptions {
  /**
   * The S3-compatible endpoint, such as `https://s3.eu-central-1.amazonaws.com`,
   * `https://<account>.r2.cloudflarestorage.com` or `http://minio.internal:9000`. Defaults to AWS:
   * `https://s3.<region>.amazonaws.com`. Its host is trusted by the SSRF guard (the operator chose
   * it), so a private endpoint works.
   */
  endpoint?: string;
  /** The region the requests are signed for. Defaults to `us-east-1` (MinIO's and R2's `auto` work too). */
  region?: string;
  /** The access key id. */
  accessKeyId: string;
  /** The secret access key. */
  secretAccessKey: string;
  /** A session token, for temporary credentials. */
  sessionToken?: string;
  /** The bucket of a message without `bucket`. */
  bucket?: string;
  /**
   * The other buckets a message's `bucket` may name (`*`: any the credentials can write to).
   * Without it, only `bucket` is allowed: a server shared by several workspaces should not let
   * one of them write to every bucket its credentials reach.
   */
  allowedBuckets?: string[];
  /**
   * Address buckets as `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint host>/<key>`.
   * Defaults to true when `endpoint` is given (MinIO and most S3-compatible servers need it), false
   * for AWS. A bucket name with a dot always uses the path style (TLS certificates do not cover it).
   */
  pathStyle?: boolean;
  /** Time limit of each request, in milliseconds. Defaults to 15 seconds. */
  timeoutMs?: number;
  /** More of the SSRF guard: `allowPrivate`, or hosts to allow besides the endpoint's. */
  ssrf?: SsrfGuardOptions;
}

const BUCKET = new RegExp(S3_BUCKET_PATTERN);

/** RFC 3986 encoding of each segment of an object key, as S3 signs it. */
function encodeKey(key: string): string {
  return key
    .split("/")
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join("/");
}

/**
 * The name of a `$.send.s3` object: `<prefix><timestamp>-<uuid>.json`, the timestamp UTC in ISO 8601
 * basic format so that names sort by time, the uuid a random v4.
 *
 * @param prefix - The message's prefix, used as is.
 * @param now - The time to stamp.
 * @returns The object key.
 * @example
 * ```ts
 * objectKey("orders/", new Date("2026-01-02T03:04:05.678Z"));
 * // "orders/20260102T030405.678Z-0f8f4c1e-8a4b-4d0e-9a51-2b6c1d7e9f30.json"
 * ```
 */
export function objectKey(prefix: string, now = new Date()): string {
  return `${prefix}${now.toISOString().replace(/[-:]/g, "")}-${randomUUID()}.json`;
}

/** The first `<Code>` and `<Message>` of an S3 error document. */
function s3ErrorOf(body: string): { code?: string; message?: string } {
  const code = /<Code>([^<]{1,200})<\/Code>/.exec(body)?.[1];
  const message = /<Message>([^<]{1,500})<\/Message>/.exec(body)?.[1];
  return { ...(code ? { code } : {}), ...(message ? { message } : {}) };
}

/** The {@link DestinationError} of a request that got no answer. */
function unreachable(error: unknown, url: string): DestinationError {
  const cause = describeCause(error);
  const why =
    error instanceof SsrfError
      ? `the SSRF guard refused it (${cause}); allow the host with the ssrf option`
      : error instanceof RequestTimeoutError
        ? `no answer in ${error.timeoutMs} ms`
        : cause;
  return new DestinationError(
    "destination_unreachable",
    `The S3 endpoint could not be reached at ${url}: ${why}`,
    { destination: "s3", retryable: !(error instanceof SsrfError), cause },
    { cause: error },
  );
}

/**
 * Creates the default `$.send.s3` destination: each message becomes one object
 * `<prefix><timestamp>-<uuid>.json` (content type `application/json`, the payload as JSON) in the
 * message's bucket or `bucket`, written with a signed PUT (AWS Signature V4, the body's SHA-256
 * signed too) through the SSRF-guarded fetch. Objects carry `x-amz-meta-hookline-workflow`,
 * `-execution` and `-step` metadata.
 *
 * Failures are {@link DestinationError}s: `destination_rejected` when the endpoint answers with an
 * error (`details.status`, `details.s3_code` such as `AccessDenied`; `retryable` for 5xx, 408 and
 * 429), `destination_unreachable` when it cannot be reached, `invalid_send` for a bucket the
 * server does not allow.
 *
 * @param options - The endpoint, credentials and buckets.
 * @param names - How to name each option in configuration errors (the CLI passes env names).
 * @returns The destination; `close()` ends its keep-alive connections.
 * @throws `validation_failed` naming each wrong option.
 * @example
 * ```ts
 * const s3 = createS3Destination({
 *   endpoint: "http://minio.internal:9000",
 *   accessKeyId: "hookline",
 *   secretAccessKey: process.env.S3_SECRET!,
 *   bucket: "workflow-output",
 * });
 * const hookline = createHookline({ destinations: { s3 } });
 * ```
 */
export function createS3Destination(
  options: S3DestinationOptions,
  names?: SettingNames,
): Required<S3Destination> {
  const check = new ConfigCheck("The S3 destination", names);
  const timeoutMs = checkTimeout(check, options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const region = options.region ?? "us-east-1";
  if (!/^[a-z0-9-]{1,64}$/.test(region)) check.add("region", "must be a region name such as us-east-1");
  let endpoint = new URL(`https://s3.${region.replace(/[^a-z0-9-]/g, "")}.amazonaws.com`);
  if (options.endpoint !== undefined) {
    try {
      endpoint = new URL(options.endpoint);
      if (endpoint.protocol !== "http:" && endpoint.protocol !== "https:") throw new Error("scheme");
      if (endpoint.search || endpoint.hash) throw new Error("query");
    } catch {
      check.add("endpoint", "must be an http(s) URL without a query, such as https://s3.example.com");
    }
  }
  for (const key of ["accessKeyId", "secretAccessKey"] as const) {
    if (typeof options[key] !== "string" || options[key] === "") check.add(key, "is required", "required");
  }
  const buckets = [
    ...(options.bucket === undefined ? [] : [options.bucket]),
    ...(options.allowedBuckets ?? []),
  ];
  for (const bucket of buckets) {
    if (bucket !== "*" && !BUCKET.test(bucket)) {
      const key = bucket === options.bucket ? "bucket" : "allowedBuckets";
      check.add(key, `has ${JSON.stringify(bucket)}, which is not an S3 bucket name`);
    }
  }
  check.throwIfAny();

  const pathStyle = options.pathStyle ?? options.endpoint !== undefined;
  const basePath = endpoint.pathname.replace(/\/+$/, "");
  const anyBucket = buckets.includes("*");
  // The operator named the endpoint: its host (and its buckets' hosts) pass the SSRF guard even
  // when private. Without an endpoint (AWS), the guard applies in full.
  const trusted =
    options.endpoint === undefined
      ? []
      : [endpoint.hostname, ...buckets.filter((b) => b !== "*").map((b) => `${b}.${endpoint.hostname}`)];
  const guardedFetch = createGuardedFetch({
    ...options.ssrf,
    allowList: [...(options.ssrf?.allowList ?? []), ...trusted],
    timeoutMs,
    maxResponseBytes: 64 * 1024,
  });
  const signingKeys = new Map<string, ArrayBuffer>();

  /** The bucket of `message`, or `invalid_send` naming why not. */
  function bucketOf(message: S3Message): string {
    const bucket = message.bucket ?? options.bucket;
    if (bucket === undefined) {
      throw invalidSend("s3", [
        {
          code: "required",
          path: "bucket",
          message: `bucket is required: this server has no default bucket (${check.name("bucket")})`,
        },
      ]);
    }
    if (!anyBucket && !buckets.includes(bucket)) {
      throw invalidSend("s3", [
        {
          code: "invalid_value",
          path: "bucket",
          message: `bucket ${JSON.stringify(bucket)} is not one this server writes to (${check.name("bucket")}, ${check.name("allowedBuckets")})`,
        },
      ]);
    }
    return bucket;
  }

  function urlOf(bucket: string, key: string): string {
    if (pathStyle || bucket.includes(".")) return `${endpoint.origin}${basePath}/${bucket}/${encodeKey(key)}`;
    return `${endpoint.protocol}//${bucket}.${endpoint.host}${basePath}/${encodeKey(key)}`;
  }

  return {
    async send(message, context: DestinationContext): Promise<S3SendResult> {
      const bucket = bucketOf(message);
      const key = objectKey(message.prefix ?? "");
      const url = urlOf(bucket, key);
      const signed = await new AwsV4Signer({
        method: "PUT",
        url,
        headers: {
          "content-type": "application/json",
          "x-amz-content-sha256": createHash("sha256").update(message.body).digest("hex"),
          "x-amz-meta-hookline-workflow": headerValue(context.workflowId),
          "x-amz-meta-hookline-execution": headerValue(context.executionId),
          "x-amz-meta-hookline-step": headerValue(context.stepName),
        },
        body: message.body,
        accessKeyId: options.accessKeyId,
        secretAccessKey: options.secretAccessKey,
        ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
        service: "s3",
        region,
        cache: signingKeys,
      }).sign();
      let response: Response;
      try {
        response = await guardedFetch(signed.url, {
          method: "PUT",
          headers: signed.headers,
          body: message.body,
          ...(context.signal ? { signal: context.signal } : {}),
        });
      } catch (error) {
        if (context.signal?.aborted) throw context.signal.reason;
        throw unreachable(error, url);
      }
      const text = await response.text();
      if (!response.ok) {
        const s3 = s3ErrorOf(text);
        const status = response.status;
        const what = [s3.code, s3.message].filter(Boolean).join(": ") || text.slice(0, 200);
        throw new DestinationError(
          "destination_rejected",
          `The S3 endpoint refused the object ${bucket}/${key}: ${status}${what ? ` ${what}` : ""}`,
          {
            destination: "s3",
            retryable: status >= 500 || status === 408 || status === 429,
            status,
            ...(s3.code ? { s3_code: s3.code } : {}),
            response: text.slice(0, 500),
          },
        );
      }
      const etag = response.headers.get("etag");
      return { bucket, key, url, size: message.body.length, ...(etag ? { etag } : {}) };
    },
    close() {
      guardedFetch.close();
    },
  };
}
