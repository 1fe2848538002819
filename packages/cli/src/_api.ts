/** A small client of the `/v1` REST API over global `fetch`, and an SSE reader. */
import { type ApiWarning, CliError, note, printWarnings, style } from "./_output.js";
import { _didYouMean } from "./_suggest.js";

/** A page of a list route. */
export interface Page<T> {
  data: T[];
  page_info?: { total_count?: number; count?: number; end_cursor?: string | null };
}

/** The REST client the commands use. */
export interface ApiClient {
  readonly baseUrl: string;
  /** Calls a route and returns its `data`; an error body becomes a {@link CliError}. */
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Calls a route and returns its `data` and the `warnings` beside it (empty when none). */
  send<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ data: T; warnings: ApiWarning[] }>;
  /** Calls a list route and returns the whole response. */
  list<T = unknown>(path: string): Promise<Page<T>>;
  /**
   * Follows an SSE route until `signal` aborts; calls `onEvent` for each message, and `onOpen`
   * once the first connection is established (the server is subscribed from then on).
   */
  stream(
    path: string,
    onEvent: (event: SseMessage) => void,
    signal: AbortSignal,
    onOpen?: () => void,
  ): Promise<void>;
}

/** One server-sent message. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/** Turns a failed `fetch` (server down, bad URL) into a clear error. @internal */
function _unreachable(baseUrl: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message;
  return new CliError(
    "server_unreachable",
    `cannot reach the Hookline server at ${baseUrl} (${reason}). Is \`pd serve\` running? Set the URL with \`pd login --base-url\` or HOOKLINE_BASE_URL.`,
  );
}

/** Reads an error response into a {@link CliError} with the API's code and message. @internal */
async function _apiError(res: Response): Promise<CliError> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; details?: unknown } };
    if (body.error?.code)
      return new CliError(body.error.code, body.error.message ?? res.statusText, body.error.details);
  } catch {
    // not JSON
  }
  return new CliError(`http_${res.status}`, text.slice(0, 200) || res.statusText || "request failed");
}

/** Creates a client for `baseUrl`, authenticating with `apiKey`. */
export function createApiClient(baseUrl: string, apiKey: string | undefined): ApiClient {
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    ...extra,
  });
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: headers(body === undefined ? {} : { "content-type": "application/json" }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw _unreachable(baseUrl, error);
    }
    if (!res.ok) throw await _apiError(res);
    const text = await res.text();
    return text ? JSON.parse(text) : {};
  };
  return {
    baseUrl,
    async request<T>(method: string, path: string, body?: unknown) {
      // The warnings of a response (SPEC rules a saved or deployed component breaks that Pipedream
      // accepts...) go to stderr; the call still succeeded.
      const answer = (await call(method, path, body)) as { data: T; warnings?: ApiWarning[] };
      printWarnings(answer.warnings ?? []);
      return answer.data;
    },
    async send<T>(method: string, path: string, body?: unknown) {
      const { data, warnings } = (await call(method, path, body)) as { data: T; warnings?: ApiWarning[] };
      return { data, warnings: warnings ?? [] };
    },
    async list<T>(path: string) {
      return (await call("GET", path)) as Page<T>;
    },
    async stream(path, onEvent, signal, onOpen) {
      let lastId: string | undefined;
      let opened = false;
      // Reconnect with Last-Event-ID when the server closes the stream, until aborted.
      while (!signal.aborted) {
        let res: Response;
        try {
          res = await fetch(`${baseUrl}${path}`, {
            headers: headers({ accept: "text/event-stream", ...(lastId ? { "last-event-id": lastId } : {}) }),
            signal,
          });
        } catch (error) {
          if (signal.aborted) return;
          throw _unreachable(baseUrl, error);
        }
        if (!res.ok) throw await _apiError(res);
        if (!res.body) return;
        if (!opened) {
          opened = true;
          onOpen?.();
        }
        try {
          await _readSse(res.body, (message) => {
            if (message.id) lastId = message.id;
            onEvent(message);
          });
        } catch (error) {
          if (signal.aborted) return;
          throw _unreachable(baseUrl, error);
        }
        if (!signal.aborted) await new Promise((r) => setTimeout(r, 500));
      }
    },
  };
}

/** Parses an SSE body, calling `onMessage` for every message with data. @internal */
export async function _readSse(
  body: ReadableStream<Uint8Array>,
  onMessage: (message: SseMessage) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  let current: { id?: string; event?: string; data: string[] } = { data: [] };
  const flush = () => {
    if (current.data.length > 0) {
      onMessage({
        ...(current.id !== undefined ? { id: current.id } : {}),
        event: current.event ?? "message",
        data: current.data.join("\n"),
      });
    }
    current = { data: [] };
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.search(/\r?\n/);
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer[newline] === "\r" ? 2 : 1));
      if (line === "") flush();
      else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") current.data.push(value);
        else if (field === "event") current.event = value;
        else if (field === "id") current.id = value;
      }
      newline = buffer.search(/\r?\n/);
    }
  }
  flush();
}

/** A source as the API returns it. */
export interface SourceJson {
  id: string;
  component_id: string;
  name: string;
  name_slug: string;
  configured_props: Record<string, unknown>;
  active: boolean;
  endpoint_url: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * Finds a source by id (`dc_...`), name slug or exact name. Names resolve exactly: a slug wins over
 * a name; a name several sources share is `ambiguous_name` listing their slugs. When other sources
 * bear the name of the one picked by slug, a note on stderr says which one this is, so a command
 * never silently shows another source than the one meant.
 */
export async function resolveSource(client: ApiClient, ref: string): Promise<SourceJson> {
  if (/^dc_[0-9A-Za-z]+$/.test(ref)) {
    return client.request<SourceJson>("GET", `/v1/sources/${encodeURIComponent(ref)}`);
  }
  const sources = await listAll<SourceJson>(client, "/v1/sources");
  const bySlug = sources.find((s) => s.name_slug === ref);
  const named = sources.filter((s) => s.name === ref && s !== bySlug);
  const label = (s: SourceJson) => `${s.name_slug} (${s.id})`;
  if (bySlug) {
    if (named.length > 0) {
      note(
        style.yellow(
          `${ref} is ${label(bySlug)}; also named "${ref}": ${named.map(label).join(", ")}`,
          process.stderr,
        ),
      );
    }
    return bySlug;
  }
  const [only, ...others] = named;
  if (only && others.length === 0) return only;
  if (only) {
    throw new CliError(
      "ambiguous_name",
      `${named.length} sources are named "${ref}": ${named.map(label).join(", ")}; name one by its slug or id`,
    );
  }
  const guess = _didYouMean(
    ref,
    sources.flatMap((s) => [s.name_slug, s.name]),
  );
  throw new CliError("not_found", `No source ${ref} in this workspace${guess}`);
}

/** Every item of a list route, following `end_cursor`. */
export async function listAll<T>(client: ApiClient, path: string): Promise<T[]> {
  const items: T[] = [];
  let after: string | null | undefined;
  for (let i = 0; i < 1000; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const page = await client.list<T>(
      `${path}${sep}limit=100${after ? `&after=${encodeURIComponent(after)}` : ""}`,
    );
    items.push(...page.data);
    after = page.page_info?.end_cursor;
    if (!after || page.data.length < 100) break;
  }
  return items;
}

/** A webhook as the API returns it. */
export interface WebhookJson {
  id: string;
  url: string;
  name: string | null;
  active: boolean;
}

/**
 * Finds a webhook by id (`wh_...`) or exact name (looked up in the list).
 * @example
 * ```ts
 * const { id } = await resolveWebhook(client, "my-receiver");
 * ```
 */
export async function resolveWebhook(client: ApiClient, ref: string): Promise<WebhookJson> {
  if (/^wh_/.test(ref)) return client.request<WebhookJson>("GET", `/v1/webhooks/${encodeURIComponent(ref)}`);
  const webhooks = await listAll<WebhookJson>(client, "/v1/webhooks");
  const match = webhooks.find((w) => w.name === ref);
  if (match) return match;
  const guess = _didYouMean(
    ref,
    webhooks.flatMap((w) => (w.name ? [w.name] : [])),
  );
  throw new CliError("not_found", `No webhook named ${ref} in this workspace${guess}`);
}
