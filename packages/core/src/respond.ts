import Type, { type Static } from "typebox";
import { HooklineError, type Problem } from "./errors.js";
import { problem } from "./problems.js";

/** Schema of the arguments of `respond({ status, headers, body })` and `$.respond(...)`. */
export const RespondArgsSchema = Type.Object({
  status: Type.Union([
    Type.Integer({ minimum: 100, maximum: 599 }),
    Type.String({ pattern: "^[1-5][0-9]{2}$" }),
  ]),
  headers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  body: Type.Optional(Type.Unknown({ description: "A string, a JSON value, or bytes." })),
  immediate: Type.Optional(Type.Boolean()),
});

/** Arguments of `respond()` as a component passes them. */
export type RespondArgs = Static<typeof RespondArgsSchema>;

/** A validated `respond()` call, normalized: numeric status, string header values. */
export interface RespondValue {
  status: number;
  headers: Record<string, string>;
  /** A string, JSON data, or bytes. */
  body?: string | Uint8Array | unknown;
}

function isBytes(body: unknown): boolean {
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return true;
  // A Buffer that crossed a JSON boundary: { type: "Buffer", data: [...] }.
  const b = body as { type?: unknown; data?: unknown } | null;
  return typeof b === "object" && b !== null && b.type === "Buffer" && Array.isArray(b.data);
}

/**
 * Checks `respond()` arguments: `status` an integer from 100 to 599 (numeric strings such as
 * `"200"` are accepted, as real components send them), `headers` an object, `body` a string, an
 * object/array or bytes. Returns the normalized value, or the problems.
 *
 * @example
 * ```ts
 * validateRespond({ status: "201", body: { ok: true } }).value?.status; // 201
 * validateRespond({ status: 600 }).problems[0]?.code; // "invalid_value"
 * ```
 */
export function validateRespond(args: unknown): { value?: RespondValue; problems: Problem[] } {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { problems: [problem("invalid_type", "", "respond() takes an object { status, headers, body }")] };
  }
  const a = args as Record<string, unknown>;
  const problems: Problem[] = [];
  let status = Number.NaN;
  if (a.status === undefined) problems.push(problem("required", "status", "status is required"));
  else if (typeof a.status === "number") status = a.status;
  else if (typeof a.status === "string" && /^\s*\d+\s*$/.test(a.status)) status = Number(a.status);
  else problems.push(problem("invalid_type", "status", "status must be an integer (or a numeric string)"));
  if (
    a.status !== undefined &&
    !Number.isNaN(status) &&
    (!Number.isInteger(status) || status < 100 || status > 599)
  ) {
    problems.push(
      problem("invalid_value", "status", `status must be from 100 to 599, got ${String(a.status)}`),
    );
  }
  const headers: Record<string, string> = {};
  if (a.headers !== undefined && a.headers !== null) {
    if (typeof a.headers !== "object" || Array.isArray(a.headers)) {
      problems.push(problem("invalid_type", "headers", "headers must be an object"));
    } else {
      for (const [name, value] of Object.entries(a.headers)) {
        if (value === undefined || value === null) continue;
        if (typeof value === "object") {
          problems.push(
            problem("invalid_type", `headers.${name}`, "header values must be strings or numbers"),
          );
        } else headers[name.toLowerCase()] = String(value);
      }
    }
  }
  const body = a.body;
  if (
    body !== undefined &&
    body !== null &&
    typeof body !== "string" &&
    typeof body !== "object" &&
    typeof body !== "number" &&
    typeof body !== "boolean" &&
    !isBytes(body)
  ) {
    problems.push(problem("invalid_type", "body", "body must be a string, an object or bytes"));
  }
  if (problems.length > 0) return { problems };
  return { value: body === undefined ? { status, headers } : { status, headers, body }, problems };
}

/**
 * Like {@link validateRespond}, but throws `invalid_respond` with the problems.
 *
 * @example
 * ```ts
 * assertRespond({ status: 99 }); // throws HooklineError invalid_respond
 * ```
 */
export function assertRespond(args: unknown): RespondValue {
  const { value, problems } = validateRespond(args);
  if (!value) {
    throw new HooklineError("invalid_respond", `Invalid respond(): ${problems[0]?.message}`, { problems });
  }
  return value;
}
