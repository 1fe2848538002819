import type { HttpEvent, RespondValue } from "@hookline/core";
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
