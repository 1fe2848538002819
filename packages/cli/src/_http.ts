/**
 * The CLI's HTTP layer: `ky` for the REST calls (a timeout, retries that wait out `Retry-After`,
 * a request id on every call) and `eventsource-parser` for server-sent events. The commands use
 * it through the client of `_api.ts`.
 */
import { randomUUID } from "node:crypto";
import { createParser } from "eventsource-parser";
import ky, { HTTPError, type KyInstance, TimeoutError } from "ky";
import { CliError } from "./_output.js";

/** One server-sent message. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/** Default time a REST call may take, ms (a deploy resolving npm packages can take a while). */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** Retries of a call that failed on the network or with a 408, 429, 500, 502, 503 or 504. */
export const RETRY_LIMIT = 3;

/** The longest `Retry-After` the CLI waits out, ms; a longer one is cut to this. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** The request timeout: HOOKLINE_TIMEOUT (seconds; 0: none), else {@link DEFAULT_TIMEOUT_MS}. @internal */
export function _timeoutMs(env: NodeJS.ProcessEnv = process.env): number | false {
  const raw = env.HOOKLINE_TIMEOUT;
  if (raw === undefined || raw.trim() === "") return DEFAULT_TIMEOUT_MS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new CliError("usage", `HOOKLINE_TIMEOUT must be a number of seconds (0: no timeout), not "${raw}"`);
  }
  return seconds === 0 ? false : seconds * 1000;
}

/**
 * The ky instance of a client: the API key, a `x-request-id` on every call (kept across its
 * retries, and named in errors so that the server's log line can be found), and an
 * `Idempotency-Key` on every `POST`, so that a `POST` is retried like the idempotent methods (the
 * server answers a retry with the first answer) though only after a 429 or a 503 (or a failure
 * before any answer).
 * @internal
 */
export function _createKy(baseUrl: string, apiKey: string | undefined): KyInstance {
  return ky.create({
    prefixUrl: baseUrl,
    timeout: _timeoutMs(),
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    retry: {
      limit: RETRY_LIMIT,
      methods: ["get", "put", "head", "delete", "options", "post"],
      statusCodes: [408, 429, 500, 502, 503, 504],
      afterStatusCodes: [413, 429, 503],
      maxRetryAfter: MAX_RETRY_AFTER_MS,
      backoffLimit: 10_000,
      shouldRetry: ({ error }) => {
        // No server there (`pd serve` not running, a wrong URL): say so at once.
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        if (cause?.code === "ECONNREFUSED" || cause?.message === "bad port") return false;
        if (!(error instanceof HTTPError) || error.request.method !== "POST") return undefined;
        return error.response.status === 429 || error.response.status === 503 ? undefined : false;
      },
    },
    hooks: {
      beforeRequest: [
        (request) => {
          if (!request.headers.has("x-request-id"))
            request.headers.set("x-request-id", `req_cli_${randomUUID()}`);
          if (request.method === "POST" && !request.headers.has("idempotency-key")) {
            request.headers.set("idempotency-key", randomUUID());
          }
        },
      ],
    },
  });
}

/** Turns a failed request (server down, bad URL, timeout) into a clear error. @internal */
export function _unreachable(baseUrl: string, error: unknown): CliError {
  if (error instanceof TimeoutError) {
    return new CliError(
      "timeout",
      `the Hookline server at ${baseUrl} did not answer ${error.request.method} ${new URL(error.request.url).pathname} in time (request ${error.request.headers.get("x-request-id")}); raise HOOKLINE_TIMEOUT (seconds, 0: none)`,
    );
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message;
  return new CliError(
    "server_unreachable",
    `cannot reach the Hookline server at ${baseUrl} (${reason}). Is \`pd serve\` running? Set the URL with \`pd login --base-url\` or HOOKLINE_BASE_URL.`,
  );
}

/**
 * Reads an error response into a {@link CliError} with the API's code and message; a server error
 * (5xx) or an answer that is not the API's names the request id. @internal
 */
export async function _apiError(res: Response, requestId: string | null): Promise<CliError> {
  const text = await res.text().catch(() => "");
  const request = requestId ? ` (request ${requestId})` : "";
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; details?: unknown } };
    if (body.error?.code) {
      const message = `${body.error.message ?? res.statusText}${res.status >= 500 ? request : ""}`;
      return new CliError(body.error.code, message, body.error.details);
    }
  } catch {
    // not JSON
  }
  return new CliError(
    `http_${res.status}`,
    `${text.slice(0, 200) || res.statusText || "request failed"}${request}`,
  );
}

/**
 * Parses an SSE body with `eventsource-parser`, calling `onMessage` for every complete message
 * with data: CR, LF and CRLF line ends alike, and an event cut off by the end of the stream is
 * dropped (an event ends with a blank line), as EventSource does. @internal
 */
export async function _readSse(
  body: ReadableStream<Uint8Array>,
  onMessage: (message: SseMessage) => void,
): Promise<void> {
  const parser = createParser({
    onEvent(event) {
      onMessage({
        ...(event.id !== undefined ? { id: event.id } : {}),
        event: event.event ?? "message",
        data: event.data,
      });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  parser.feed(decoder.decode());
  // What is left in the parser is an event the stream cut off: not dispatched.
  parser.reset();
}
