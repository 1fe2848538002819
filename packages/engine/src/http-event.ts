import {
  describeProblems,
  type ErrorCode,
  errorBody,
  type HttpEvent,
  type RespondValue,
  validateRespond,
} from "@hookline/core";
import type { IngressResponse, IngressTarget } from "./types.js";

/** An HTTP request reaching a source's endpoint, as the HTTP adapter hands it to the engine. */
export interface IngressRequest {
  method: string;
  /** The path after `/http/{endpoint_id}` (`/` when none). */
  path: string;
  /** Query parameters; repeated names become arrays. */
  query?: Record<string, string | string[]>;
  headers: Record<string, string>;
  /** The raw body. */
  body?: Uint8Array | string;
  /**
   * Called once the endpoint's owner is found, before anything runs: a response refuses the
   * request with it (a rate limit per workspace); undefined lets it in.
   */
  admit?: (target: IngressTarget) => IngressResponse | undefined;
}

/** Parses a body by its content type: JSON, URL-encoded forms, or text (as is). @internal */
export function parseBody(bodyRaw: string, contentType: string | undefined): unknown {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (bodyRaw === "") return type.includes("json") ? {} : "";
  if (type === "application/json" || type.endsWith("+json")) {
    try {
      return JSON.parse(bodyRaw);
    } catch {
      return bodyRaw;
    }
  }
  if (type === "application/x-www-form-urlencoded") {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(bodyRaw)) {
      const prev = out[name];
      out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    return out;
  }
  if (type === "" || type.startsWith("text/")) {
    // Pipedream parses untyped JSON-looking bodies too: callers often forget the header.
    if (type === "" && /^\s*[[{]/.test(bodyRaw)) {
      try {
        return JSON.parse(bodyRaw);
      } catch {
        return bodyRaw;
      }
    }
    return bodyRaw;
  }
  return bodyRaw;
}

/**
 * Turns an ingress request into SPEC's HTTP interface event `{ method, path, query, headers,
 * bodyRaw, body }`. Header names are lower case. @internal
 */
export function toHttpEvent(request: IngressRequest): HttpEvent {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const bodyRaw =
    request.body === undefined
      ? ""
      : typeof request.body === "string"
        ? request.body
        : new TextDecoder().decode(request.body);
  return {
    method: request.method.toUpperCase(),
    path: request.path || "/",
    query: request.query ?? {},
    headers,
    bodyRaw,
    body: parseBody(bodyRaw, headers["content-type"]),
  };
}

/**
 * The reply a validated `respond()` / `$.respond()` call asks for: objects as JSON (with a JSON
 * content type unless one is given), `{ $bytes }` as bytes, strings as they are. @internal
 */
export function replyOf(value: RespondValue): IngressResponse {
  const headers: Record<string, string> = { ...value.headers };
  let body: string | Uint8Array = "";
  const raw = value.body as unknown;
  if (raw && typeof raw === "object" && "$bytes" in (raw as object)) {
    body = Buffer.from(String((raw as { $bytes: string }).$bytes), "base64");
  } else if (typeof raw === "string") body = raw;
  else if (raw !== undefined) {
    body = JSON.stringify(raw);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
      headers["content-type"] = "application/json";
    }
  }
  return { status: value.status, headers, body };
}

/**
 * A JSON reply of the ingress (`{ success: true }`, an `{ error: { code, message } }` body...): the
 * one place the engine's HTTP replies are written as JSON. @internal
 */
export function jsonReply(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): IngressResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}

/**
 * An error reply of the ingress in the API's one error shape (core's `errorBody`). @internal
 *
 * @example
 * ```ts
 * errorReply(404, "not_found", "No source listens at this endpoint").status; // 404
 * ```
 */
export function errorReply(
  status: number,
  code: ErrorCode,
  message: string,
  options: { headers?: Record<string, string>; details?: unknown } = {},
): IngressResponse {
  return jsonReply(status, errorBody(code, message, options.details), options.headers);
}

/** A log line a reply asks its caller to write (the source's or the execution's logs). */
export interface ReplyLog {
  level: "warn" | "error";
  message: string;
}

/**
 * The HTTP reply of a source's `respond()` or a step's `$.respond()` call (`what` names it in the
 * messages): core's `validateRespond` cleans it, headers it leaves out become warnings, and an
 * invalid call is answered 502 `invalid_respond` with an error line. The one owner of "respond
 * becomes a reply", for sources (ingress.ts) and workflows (workflows/step-effects.ts). @internal
 *
 * @example
 * ```ts
 * respondReply({ status: 201, body: { ok: true } }, "respond()").reply.status; // 201
 * ```
 */
export function respondReply(call: unknown, what: string): { reply: IngressResponse; logs: ReplyLog[] } {
  const { value, problems, warnings } = validateRespond(call);
  const logs: ReplyLog[] = warnings.map((message) => ({ level: "warn", message }));
  if (!value) {
    const message = `${what}: ${describeProblems(problems)}`;
    logs.push({ level: "error", message: `invalid_respond: ${message}` });
    return { reply: errorReply(502, "invalid_respond", message), logs };
  }
  return { reply: replyOf(value), logs };
}
