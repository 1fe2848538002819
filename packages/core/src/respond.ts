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

/** What {@link validateRespond} found: the value to send, or the problems that refuse it. */
export interface RespondCheck {
  /** The response to send; absent when `problems` is not empty. */
  value?: RespondValue;
  /** Why the call is refused (`invalid_respond`). */
  problems: Problem[];
  /** Headers left out of the response, one sentence each, for the source's logs. */
  warnings: string[];
}

/**
 * Headers the server writes itself and a component may never set: the message framing
 * (`content-length`, `transfer-encoding`, `trailer`) and the hop-by-hop headers of RFC 9110
 * section 7.6.1. A component that sets `content-length` shorter than its body would otherwise make
 * Node write the rest of the body as a second, forged response on a keep-alive connection.
 */
export const SERVER_OWNED_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "content-length",
  "host",
  "http2-settings",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Most headers a response may carry, and the longest value (in characters). */
export const RESPOND_HEADER_LIMITS = { count: 100, valueLength: 8192 } as const;

// RFC 9110 section 5.1: a field name is a token; section 5.5: a field value is visible ASCII,
// spaces, tabs and obs-text (0x80-0xFF), never CR, LF or NUL.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Why a header cannot be sent as given, or undefined when it can. */
function headerProblem(name: string, value: string): string | undefined {
  if (!TOKEN.test(name)) return "its name is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)";
  const lower = name.toLowerCase();
  if (SERVER_OWNED_HEADERS.has(lower) || lower.startsWith("proxy-")) return "the server sets it";
  if (!FIELD_VALUE.test(value)) {
    return "its value holds a character HTTP cannot carry (CR, LF, NUL, another control character or one above U+00FF)";
  }
  if (value.length > RESPOND_HEADER_LIMITS.valueLength) {
    return `its value is over ${RESPOND_HEADER_LIMITS.valueLength} characters`;
  }
  return undefined;
}

/** Quotes a header name for a log line, however hostile. */
function shown(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}...` : name);
}

function isBytes(body: unknown): boolean {
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return true;
  // A Buffer that crossed a JSON boundary: { type: "Buffer", data: [...] }.
  const b = body as { type?: unknown; data?: unknown } | null;
  return typeof b === "object" && b !== null && b.type === "Buffer" && Array.isArray(b.data);
}

/** The headers to send, the problems that refuse the call and the headers left out. */
function checkHeaders(raw: unknown, problems: Problem[], warnings: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  if (raw === undefined || raw === null) return headers;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    problems.push(problem("invalid_type", "headers", "headers must be an object"));
    return headers;
  }
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || value === null) continue;
    if (typeof value === "object") {
      problems.push(problem("invalid_type", `headers.${name}`, "header values must be strings or numbers"));
      continue;
    }
    const text = String(value).trim();
    const why = headerProblem(name, text);
    if (why) warnings.push(`respond(): header ${shown(name)} left out: ${why}`);
    else if (Object.keys(headers).length >= RESPOND_HEADER_LIMITS.count) {
      warnings.push(`respond(): header ${shown(name)} left out: over ${RESPOND_HEADER_LIMITS.count} headers`);
    } else headers[name.toLowerCase()] = text;
  }
  return headers;
}

/**
 * Why a valid `respond()` status cannot end an HTTP request, or undefined when it can: SPEC allows
 * 100 to 599, but an informational status (below 200) is not a final reply. The one owner of the
 * lowest status a reply may have (the HTTP handler answers 502 `invalid_respond` with this message).
 *
 * @example
 * ```ts
 * finalStatusProblem(200); // undefined
 * finalStatusProblem(101); // "respond(): status 101 is informational and cannot end a request; use 200 to 599"
 * ```
 */
export function finalStatusProblem(status: number): string | undefined {
  if (status >= 200) return undefined;
  return `respond(): status ${status} is informational and cannot end a request; use 200 to 599`;
}

/**
 * Checks `respond()` arguments, the one owner of this rule (the sandbox forwards the call as the
 * component made it): `status` an integer from 100 to 599 (numeric strings such as `"200"` are
 * accepted, as real components send them), `headers` an object of strings or numbers, `body` a
 * string, a JSON value or bytes. Headers HTTP cannot carry safely are left out with a warning, not
 * refused: a name that is not a token, a value with CR, LF, NUL or another control character, and
 * the framing and hop-by-hop headers the server sets itself ({@link SERVER_OWNED_HEADERS},
 * `proxy-*`).
 *
 * @example
 * ```ts
 * validateRespond({ status: "201", body: { ok: true } }).value?.status; // 201
 * validateRespond({ status: 600 }).problems[0]?.code; // "invalid_value"
 * validateRespond({ status: 200, headers: { "content-length": "2" } }).warnings;
 * // ['respond(): header "content-length" left out: the server sets it']
 * ```
 */
export function validateRespond(args: unknown): RespondCheck {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return {
      problems: [problem("invalid_type", "", "respond() takes an object { status, headers, body }")],
      warnings: [],
    };
  }
  const a = args as Record<string, unknown>;
  const problems: Problem[] = [];
  const warnings: string[] = [];
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
  const headers = checkHeaders(a.headers, problems, warnings);
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
  if (problems.length > 0) return { problems, warnings };
  return {
    value: body === undefined ? { status, headers } : { status, headers, body },
    problems,
    warnings,
  };
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
