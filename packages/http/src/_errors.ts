/**
 * The one place where errors become API errors. A {@link HooklineError} is sent as it is; a
 * {@link StoreError} maps by its code to a documented API error (a new store code does not compile
 * until it is mapped here); anything else is a bug, reported to `onError` and answered as a 500
 * whose message names only the request id.
 */
import { type ErrorCode, errorBody, HooklineError, isHooklineError } from "@hookline/core";
import { StoreError, type StoreErrorCode } from "@hookline/store";
import { lightResponse } from "./_lazy-request-response.js";

/** A JSON response of the API (a string body is sent as it is). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return lightResponse(typeof body === "string" ? body : JSON.stringify(body), status, {
    "content-type": "application/json; charset=utf-8",
    ...headers,
  });
}

/** An error response in the API's one shape (core's `errorBody`). */
export function errorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(status, errorBody(code, message), headers);
}

/** The response of a {@link HooklineError}: its status, its body (`{ error: error.toJSON() }`). */
export function apiErrorResponse(error: HooklineError, headers: Record<string, string> = {}): Response {
  return jsonResponse(error.status, { error: error.toJSON() }, headers);
}

/** The API error of each store error code. */
const STORE_ERRORS: Record<StoreErrorCode, ErrorCode> = {
  not_found: "not_found",
  conflict: "conflict",
  invalid: "bad_request",
  closed: "service_unavailable",
};

// Stack frames in a message (details keep the component's own frames), and frames or references
// that point into Hookline's sandbox rather than the user's code: never sent to a client.
const STACK_FRAME = /\n[ \t]*at [^\n]*/g;
const INTERNAL_FRAME = /\n?[ \t]*at [^\n]*\((?:<input>|native|hookline:)[^)\n]*\)/g;
const INTERNAL_REF = /\s*\(?(?:<input>|hookline:[\w./-]+):\d+(?::\d+)?\)?/g;

/** A message without stack frames or references into Hookline's internals. */
export function withoutInternals(message: string): string {
  return message.replace(STACK_FRAME, "").replace(INTERNAL_REF, "").trim();
}

/** `details` with every frame that points into Hookline's internals taken out of its strings. */
function cleanDetails(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.replace(INTERNAL_FRAME, "").replace(INTERNAL_REF, "");
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => cleanDetails(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cleanDetails(v, depth + 1)]));
}

/**
 * The API error for `error`, or undefined when it is not one (a bug: answer 500).
 *
 * @example
 * ```ts
 * toApiError(new StoreError("invalid", "Invalid cursor: abc"))?.code; // "bad_request"
 * ```
 */
export function toApiError(error: unknown): HooklineError | undefined {
  if (isHooklineError(error)) {
    const details = error.details === undefined ? undefined : cleanDetails(error.details);
    return new HooklineError(error.code, withoutInternals(error.message), details);
  }
  if (error instanceof StoreError) {
    return new HooklineError(STORE_ERRORS[error.code], withoutInternals(error.message));
  }
  return undefined;
}

/** The 500 answer of an unexpected error: its message names the request, nothing else. */
export function internalError(requestId: string): HooklineError {
  return new HooklineError("internal_error", `Internal error (request ${requestId})`);
}

/**
 * The response of an error thrown while answering: an API error as {@link toApiError} makes it;
 * anything else reported to `onError` and answered as {@link internalError}.
 */
export function thrownResponse(
  error: unknown,
  requestId: string,
  onError: (error: unknown, requestId: string) => void,
): Response {
  const apiError = toApiError(error);
  if (!apiError) onError(error, requestId);
  return apiErrorResponse(apiError ?? internalError(requestId));
}
