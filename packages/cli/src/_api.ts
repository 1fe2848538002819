/** The client of the `/v1` REST API the commands use (over ky, `_http.ts`). */
import { HTTPError } from "ky";
import { _apiError, _createKy, _readSse, _unreachable, type SseMessage } from "./_http.js";
import { type ApiWarning, CliError, note, printWarnings, style } from "./_output.js";
import { _didYouMean } from "./_suggest.js";

export { _readSse, type SseMessage } from "./_http.js";

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

/**
 * Creates a client for `baseUrl`, authenticating with `apiKey`. Calls time out (HOOKLINE_TIMEOUT
 * seconds, default 120) and are retried up to 3 times after a network failure or a 408, 429, 500,
 * 502, 503 or 504, waiting out the server's `Retry-After` (at most 60 s); a `POST` carries an
 * `Idempotency-Key` and is retried only after a 429 or a 503 or a network failure.
 *
 * @example
 * ```ts
 * const client = createApiClient("http://127.0.0.1:4100", process.env.HOOKLINE_API_KEY);
 * const hooks = await client.list("/v1/webhooks");
 * ```
 */
export function createApiClient(baseUrl: string, apiKey: string | undefined): ApiClient {
  const http = _createKy(baseUrl, apiKey);
  // ky joins its prefix and a path without the leading slash.
  const relative = (path: string) => path.replace(/^\/+/, "");
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    let res: Response;
    try {
      res = await http(relative(path), { method, ...(body === undefined ? {} : { json: body }) });
    } catch (error) {
      if (error instanceof HTTPError)
        throw await _apiError(error.response, error.request.headers.get("x-request-id"));
      throw _unreachable(baseUrl, error);
    }
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
          res = await http(relative(path), {
            headers: { accept: "text/event-stream", ...(lastId ? { "last-event-id": lastId } : {}) },
            signal,
            timeout: false,
            retry: 0,
            throwHttpErrors: false,
          });
        } catch (error) {
          if (signal.aborted) return;
          throw _unreachable(baseUrl, error);
        }
        if (!res.ok) throw await _apiError(res, res.headers.get("x-request-id"));
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
