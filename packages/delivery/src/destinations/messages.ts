/**
 * The shapes a workflow step passes to `$.send.email(...)` and `$.send.s3(...)`, checked before any
 * destination sees them (the one owner of these rules: custom destinations get checked messages too).
 */
import type { Problem } from "@hookline/core";
import Type, { type Static, type TObject } from "typebox";
import Value from "typebox/value";
import { DestinationError, type DestinationKind, invalidSend } from "./errors.js";

/** The size caps of `$.send.*` messages. A message over one fails with `payload_too_large`. */
export const DESTINATION_LIMITS = {
  /** `subject`, in characters (RFC 5322's line length). */
  subjectLength: 998,
  /** `text` and `html`, each, in UTF-8 bytes: 1 MiB. */
  emailBodyBytes: 1024 * 1024,
  /** Recipients in `to`. */
  recipients: 50,
  /** One address in `to`, in characters. */
  addressLength: 320,
  /** `prefix`, in UTF-8 bytes (an S3 key is at most 1024 bytes; the generated name takes 62). */
  prefixBytes: 900,
  /** `payload` once serialized as JSON, in UTF-8 bytes: 5 MiB. */
  s3PayloadBytes: 5 * 1024 * 1024,
} as const;

// Control characters (CR and LF above all) would let a subject or an address add mail headers.
const SINGLE_LINE = "^[^\\u0000-\\u001f\\u007f]*$";

const Address = Type.String({
  minLength: 3,
  maxLength: DESTINATION_LIMITS.addressLength,
  pattern: SINGLE_LINE,
});

/** Schema of `$.send.email({ subject, text, html?, to? })`. */
export const EmailMessageSchema = Type.Object(
  {
    subject: Type.String({
      minLength: 1,
      maxLength: DESTINATION_LIMITS.subjectLength,
      pattern: SINGLE_LINE,
      "x-error": `must be a non-empty single line of at most ${DESTINATION_LIMITS.subjectLength} characters`,
    }),
    text: Type.Optional(Type.String({ "x-error": "must be a string (the plain-text body)" })),
    html: Type.Optional(Type.String({ "x-error": "must be a string (the HTML body)" })),
    to: Type.Optional(
      Type.Union([Address, Type.Array(Address, { minItems: 1, maxItems: DESTINATION_LIMITS.recipients })], {
        "x-error": `must be an email address or a list of 1 to ${DESTINATION_LIMITS.recipients} of them, each one line of at most ${DESTINATION_LIMITS.addressLength} characters`,
      }),
    ),
    // Pipedream's option to copy the workspace's collaborators: accepted and ignored (no such thing here).
    include_collaborators: Type.Optional(Type.Boolean({ "x-error": "must be true or false" })),
  },
  { additionalProperties: false },
);

/** A checked `$.send.email` message. `to` is only honoured when the server allows it. */
export type EmailMessage = Static<typeof EmailMessageSchema>;

/** An S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens. */
export const S3_BUCKET_PATTERN = "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$";

/** Schema of `$.send.s3({ bucket?, prefix?, payload })`. */
export const S3MessageSchema = Type.Object(
  {
    bucket: Type.Optional(
      Type.String({
        pattern: S3_BUCKET_PATTERN,
        "x-error": "must be an S3 bucket name (3 to 63 lowercase letters, digits, dots and hyphens)",
      }),
    ),
    prefix: Type.Optional(
      Type.String({ pattern: SINGLE_LINE, "x-error": "must be a string without control characters" }),
    ),
    payload: Type.Unknown(),
  },
  { additionalProperties: false },
);

/** A checked `$.send.s3` message. */
export type S3Message = Static<typeof S3MessageSchema>;

const FIELDS = {
  email: Object.keys(EmailMessageSchema.properties),
  s3: Object.keys(S3MessageSchema.properties),
};

/** The problems of `value` against `schema`, one per top-level field, each naming it. */
function shapeProblems(kind: DestinationKind, schema: TObject, value: unknown): Problem[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [
      {
        code: "invalid_type",
        path: "",
        message: `$.send.${kind}() takes an object { ${FIELDS[kind].join(", ")} }`,
      },
    ];
  }
  const problems = new Map<string, Problem>();
  const byField: Record<string, ReturnType<typeof Value.Errors>> = {};
  for (const error of Value.Errors(schema, value)) {
    const params = error.params as { requiredProperties?: string[]; additionalProperties?: string[] };
    if (error.keyword === "required") {
      for (const field of params.requiredProperties ?? []) {
        problems.set(field, { code: "required", path: field, message: `${field} is required` });
      }
      continue;
    }
    if (error.keyword === "additionalProperties") {
      for (const field of params.additionalProperties ?? []) {
        problems.set(field, {
          code: "invalid_value",
          path: field,
          message: `${JSON.stringify(field.slice(0, 60))} is not a field of $.send.${kind}() (its fields: ${FIELDS[kind].join(", ")})`,
        });
      }
      continue;
    }
    const field = error.instancePath.split("/")[1] ?? "";
    if (!Object.hasOwn(schema.properties, field)) continue;
    byField[field] ??= [];
    byField[field].push(error);
  }
  for (const [field, errors] of Object.entries(byField)) {
    if (problems.has(field)) continue;
    // A wrong JavaScript type is invalid_type; for a union, only when every member says so.
    const wrongType = errors
      .filter((e) => e.keyword !== "anyOf")
      .every((e) => e.keyword === "type" && e.instancePath === `/${field}`);
    const hint = (schema.properties[field] as { "x-error"?: string })["x-error"];
    problems.set(field, {
      code: wrongType ? "invalid_type" : "invalid_value",
      path: field,
      message: `${field} ${hint ?? errors[0]?.message}`,
    });
  }
  return [...problems.values()];
}

function tooLarge(kind: DestinationKind, field: string, limit: number, size: number): DestinationError {
  return new DestinationError(
    "payload_too_large",
    `$.send.${kind}(): ${field} is ${size} bytes, over the limit of ${limit} bytes`,
    { destination: kind, retryable: false, field, limit, size },
  );
}

/**
 * Checks a `$.send.email` message: `subject` (one line, at most 998 characters) and at least one
 * of `text` and `html` (strings of at most 1 MiB each); `to` optional (an address or a list of at
 * most 50). Unknown fields are refused, so a typo does not send a mail without its body.
 *
 * @param payload - What the step passed to `$.send.email(...)`.
 * @returns The message, typed.
 * @throws {@link DestinationError} `invalid_send` naming each bad field, or `payload_too_large`.
 * @example
 * ```ts
 * parseEmailMessage({ subject: "Hi", text: "Hello" }); // ok
 * parseEmailMessage({ subject: "Hi" }); // throws invalid_send "text is required ..."
 * ```
 */
export function parseEmailMessage(payload: unknown): EmailMessage {
  const problems = shapeProblems("email", EmailMessageSchema, payload);
  const message = payload as EmailMessage;
  if (problems.length === 0 && message.text === undefined && message.html === undefined) {
    problems.push({ code: "required", path: "text", message: "text is required (or html, or both)" });
  }
  if (problems.length > 0) throw invalidSend("email", problems);
  for (const field of ["text", "html"] as const) {
    const size = Buffer.byteLength(message[field] ?? "", "utf8");
    if (size > DESTINATION_LIMITS.emailBodyBytes) {
      throw tooLarge("email", field, DESTINATION_LIMITS.emailBodyBytes, size);
    }
  }
  return message;
}

/** A checked S3 message with its payload serialized once. */
export interface S3MessageBody {
  /** The message as the step gave it. */
  message: S3Message;
  /** `payload` as JSON, UTF-8: the object's content. */
  body: Buffer;
}

/**
 * Checks a `$.send.s3` message: `bucket` a valid bucket name (optional when the server has a
 * default), `prefix` a string of at most 900 bytes without control characters, `payload` any JSON
 * value of at most 5 MiB serialized.
 *
 * @param payload - What the step passed to `$.send.s3(...)`.
 * @returns The message and its payload as JSON bytes.
 * @throws {@link DestinationError} `invalid_send` naming each bad field, or `payload_too_large`.
 * @example
 * ```ts
 * parseS3Message({ bucket: "my-bucket", prefix: "events/", payload: { a: 1 } }).body.toString();
 * // '{"a":1}'
 * ```
 */
export function parseS3Message(payload: unknown): S3MessageBody {
  const problems = shapeProblems("s3", S3MessageSchema, payload);
  const message = payload as S3Message;
  let json: string | undefined;
  if (problems.length === 0) {
    try {
      json = JSON.stringify(message.payload);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      problems.push({ code: "invalid_value", path: "payload", message: `payload is not JSON: ${why}` });
    }
    if (json === undefined && problems.length === 0) {
      problems.push({ code: "required", path: "payload", message: "payload is required (a JSON value)" });
    }
  }
  if (problems.length > 0 || json === undefined) throw invalidSend("s3", problems);
  const prefixBytes = Buffer.byteLength(message.prefix ?? "", "utf8");
  if (prefixBytes > DESTINATION_LIMITS.prefixBytes) {
    throw tooLarge("s3", "prefix", DESTINATION_LIMITS.prefixBytes, prefixBytes);
  }
  const body = Buffer.from(json, "utf8");
  if (body.length > DESTINATION_LIMITS.s3PayloadBytes) {
    throw tooLarge("s3", "payload", DESTINATION_LIMITS.s3PayloadBytes, body.length);
  }
  return { message, body };
}
