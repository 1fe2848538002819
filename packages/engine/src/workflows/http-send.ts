/**
 * `$.send.http({ url, method?, headers?, params?, auth?, data?, signing_secret? })`: the checks of
 * what a step passed, and the request the delivery engine sends for it (see
 * `queue.deliveries.enqueue` and docs/workflows.md, "`$.send.http`").
 */
import { describeProblemMessages, HooklineError, type Problem } from "@hookline/core";
import type { DeliveryRequest } from "@hookline/store";

/** The largest `$.send.http` body, in UTF-8 bytes: 1 MiB. */
export const HTTP_SEND_BODY_BYTES = 1024 * 1024;

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const FIELDS = ["url", "method", "headers", "params", "auth", "data", "body", "signing_secret"];
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Control characters (CR and LF above all) would let a value add headers.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is its purpose
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Headers the transport or the delivery engine owns. */
const OWNED = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade"]);

/** A checked `$.send.http`: the request to queue, its secrets still in the clear. */
export interface HttpSend {
  /** The request (without secrets). */
  request: Omit<DeliveryRequest, "secrets">;
  /** The `whsec_` secrets to sign with (none: unsigned). */
  secrets: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function invalid(problems: Problem[]): HooklineError {
  return new HooklineError("invalid_send", `Invalid $.send.http(): ${describeProblemMessages(problems)}`, {
    destination: "http",
    retryable: false,
    problems,
  });
}

/** `data` (or `body`): a string as is, anything else as JSON. */
function bodyOf(value: unknown, problems: Problem[]): { text: string; json: boolean } | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") return { text: value, json: false };
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    problems.push({
      code: "invalid_value",
      path: "data",
      message: `data is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    });
    return undefined;
  }
  return text === undefined ? undefined : { text, json: true };
}

/**
 * Checks what a step passed to `$.send.http(...)`, Pipedream's shape: `url` (http or https),
 * `method` (`POST` by default), `headers`, `params` (added to the query string), `auth`
 * (`{ username, password }`, HTTP Basic), `data` (or `body`: a string is sent as is, any other
 * value as JSON with `content-type: application/json` unless set), and Hookline's
 * `signing_secret` (a `whsec_` secret, or several: the request is signed as webhook deliveries
 * are).
 *
 * @param payload - The argument of the call, unchecked.
 * @returns The request and its secrets.
 * @throws `invalid_send` (422) naming each bad field; `payload_too_large` (413) for a body over
 *   {@link HTTP_SEND_BODY_BYTES}.
 * @example
 * ```ts
 * parseHttpSend({ url: "https://example.com/in", data: { ok: true } }).request.method; // "POST"
 * ```
 */
export function parseHttpSend(payload: unknown): HttpSend {
  if (!isRecord(payload)) {
    throw invalid([
      { code: "invalid_type", path: "", message: `$.send.http() takes an object { ${FIELDS.join(", ")} }` },
    ]);
  }
  const problems: Problem[] = [];
  for (const key of Object.keys(payload)) {
    if (!FIELDS.includes(key)) {
      problems.push({
        code: "invalid_value",
        path: key,
        message: `${JSON.stringify(key.slice(0, 60))} is not a field of $.send.http() (its fields: ${FIELDS.join(", ")})`,
      });
    }
  }
  let url: URL | undefined;
  if (typeof payload.url !== "string" || payload.url === "") {
    problems.push({ code: "required", path: "url", message: "url is required (an http or https URL)" });
  } else {
    try {
      url = new URL(payload.url);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
    } catch {
      url = undefined;
      problems.push({ code: "invalid_value", path: "url", message: "url must be an http or https URL" });
    }
  }
  const method = payload.method === undefined ? "POST" : String(payload.method).toUpperCase();
  if (payload.method !== undefined && (typeof payload.method !== "string" || !METHODS.has(method))) {
    problems.push({
      code: "invalid_value",
      path: "method",
      message: `method must be one of ${[...METHODS].join(", ")}`,
    });
  }
  const secrets: string[] = [];
  const signing = payload.signing_secret;
  if (signing !== undefined) {
    const list = Array.isArray(signing) ? signing : [signing];
    if (list.length === 0 || !list.every((s) => typeof s === "string" && /^whsec_[A-Za-z0-9+/=]+$/.test(s))) {
      problems.push({
        code: "invalid_value",
        path: "signing_secret",
        message: "signing_secret must be a whsec_ secret or a list of them",
      });
    } else secrets.push(...(list as string[]));
  }
  const headers: Record<string, string> = {};
  if (payload.headers !== undefined) {
    if (!isRecord(payload.headers)) {
      problems.push({ code: "invalid_type", path: "headers", message: "headers must be an object" });
    } else {
      for (const [name, value] of Object.entries(payload.headers)) {
        const lower = name.toLowerCase();
        const path = `headers.${name.slice(0, 60)}`;
        if (!TOKEN.test(name)) {
          problems.push({ code: "invalid_value", path, message: `${path} is not a valid header name` });
        } else if (
          OWNED.has(lower) ||
          lower.startsWith("x-hookline-") ||
          (secrets.length > 0 && lower.startsWith("webhook-"))
        ) {
          problems.push({
            code: "invalid_value",
            path,
            message: `${path} is set by Hookline, not by the step`,
          });
        } else if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
          problems.push({ code: "invalid_type", path, message: `${path} must be a string` });
        } else if (CONTROL.test(String(value))) {
          problems.push({
            code: "invalid_value",
            path,
            message: `${path} must be one line without control characters`,
          });
        } else headers[lower] = String(value);
      }
    }
  }
  if (payload.params !== undefined) {
    if (!isRecord(payload.params)) {
      problems.push({ code: "invalid_type", path: "params", message: "params must be an object" });
    } else if (url) {
      for (const [name, value] of Object.entries(payload.params)) {
        if (value !== undefined && value !== null) url.searchParams.append(name, String(value));
      }
    }
  }
  if (payload.auth !== undefined) {
    const auth = payload.auth;
    if (!isRecord(auth) || typeof auth.username !== "string" || typeof auth.password !== "string") {
      problems.push({
        code: "invalid_value",
        path: "auth",
        message: "auth must be { username, password } (strings)",
      });
    } else if (headers.authorization !== undefined) {
      problems.push({
        code: "invalid_value",
        path: "auth",
        message: "auth and headers.authorization exclude each other",
      });
    } else {
      headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`, "utf8").toString("base64")}`;
    }
  }
  if (payload.data !== undefined && payload.body !== undefined) {
    problems.push({
      code: "invalid_value",
      path: "body",
      message: "data and body are the same field: give one",
    });
  }
  const body = bodyOf(payload.data ?? payload.body, problems);
  if (body && (method === "GET" || method === "HEAD")) {
    problems.push({ code: "invalid_value", path: "data", message: `a ${method} request has no body` });
  }
  if (problems.length > 0 || !url) throw invalid(problems);
  if (body) {
    const size = Buffer.byteLength(body.text, "utf8");
    if (size > HTTP_SEND_BODY_BYTES) {
      throw new HooklineError(
        "payload_too_large",
        `$.send.http(): data is ${size} bytes, over the limit of ${HTTP_SEND_BODY_BYTES} bytes`,
        { destination: "http", retryable: false, field: "data", limit: HTTP_SEND_BODY_BYTES, size },
      );
    }
    if (body.json && headers["content-type"] === undefined) headers["content-type"] = "application/json";
  }
  const request: HttpSend["request"] = { url: url.toString(), method, headers };
  if (body) request.body = body.text;
  return { request, secrets };
}
