/**
 * The `/v1` API client: the session's API key as a Bearer token, `{ data }` unwrapped, errors as
 * {@link ApiError} with the API's stable code, and lists read page by page.
 */

const KEY = "hookline.apiKey";

/** An error answer of the API (`{ error: { code, message, details } }`) or a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Where the API is: the `hookline-api` meta of index.html, or this origin. */
export function apiBase(): string {
  const meta = document.querySelector('meta[name="hookline-api"]')?.getAttribute("content") ?? "";
  return meta.replace(/\/+$/, "");
}

/** The API key of this browser session, if signed in. */
export function sessionKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Keeps (or with null forgets) the API key for this browser session. */
export function setSessionKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, key);
}

/** Fired on `window` when the API answers 401: the app asks for the key again. */
export const UNAUTHORIZED_EVENT = "hookline:unauthorized";

type Query = Record<string, string | number | boolean | undefined>;

function url(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const qs = params.toString();
  return `${apiBase()}${path}${qs ? `?${qs}` : ""}`;
}

/** Headers of an authenticated request. */
export function authHeaders(key = sessionKey()): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

async function call(method: string, path: string, body?: unknown, query?: Query, key?: string) {
  let res: Response;
  try {
    res = await fetch(url(path, query), {
      method,
      headers: {
        ...authHeaders(key ?? sessionKey()),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (error) {
    throw new ApiError(0, "network_error", `The server cannot be reached (${(error as Error).message})`);
  }
  const json = (await res.json().catch(() => undefined)) as
    | {
        data?: unknown;
        page_info?: PageInfo;
        warnings?: ApiWarning[];
        error?: { code: string; message: string; details?: unknown };
      }
    | undefined;
  if (!res.ok) {
    const err = json?.error;
    if (res.status === 401 && key === undefined) {
      // The key was revoked: forget it and ask again.
      setSessionKey(null);
      window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    }
    throw new ApiError(
      res.status,
      err?.code ?? "http_error",
      err?.message ?? `The server answered ${res.status}`,
      err?.details as Record<string, unknown> | undefined,
    );
  }
  return json ?? {};
}

/** `page_info` of list answers. */
export interface PageInfo {
  total_count?: number;
  count: number;
  start_cursor: string | null;
  end_cursor: string | null;
}

/** A warning the API answers beside `data`: the call succeeded (e.g. `ssrf_blocked` for a webhook URL). */
export interface ApiWarning {
  code: string;
  path?: string;
  message: string;
}

/** Calls the API and returns `data` and the `warnings` beside it (empty when none). */
export async function apiWarned<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ data: T; warnings: ApiWarning[] }> {
  const json = await call(method, path, body);
  return { data: json.data as T, warnings: json.warnings ?? [] };
}

/** Calls the API and returns `data`. */
export async function api<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  return (await call(method, path, body, query)).data as T;
}

/** One page of a list: its items and `page_info`. */
export async function page<T>(path: string, query?: Query): Promise<{ data: T[]; pageInfo: PageInfo }> {
  const json = await call("GET", path, undefined, query);
  return {
    data: (json.data ?? []) as T[],
    pageInfo: json.page_info ?? { count: 0, start_cursor: null, end_cursor: null },
  };
}

/** Every item of a list, following `end_cursor` (at most `max` items). */
export async function listAll<T>(path: string, query: Query = {}, max = 1000): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  do {
    const { data, pageInfo } = await page<T>(path, { ...query, limit: 100, ...(after ? { after } : {}) });
    out.push(...data);
    after = pageInfo.end_cursor ?? undefined;
  } while (after && out.length < max);
  return out;
}

/** Checks an API key without keeping it: true when the API accepts it. */
export async function checkKey(key: string): Promise<boolean> {
  try {
    await call("GET", "/v1/sources", undefined, { limit: 1 }, key);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return false;
    throw error;
  }
}

/** `encodeURIComponent` for path segments. */
export const seg = encodeURIComponent;

let openapi:
  | Promise<{ paths?: Record<string, Record<string, { parameters?: { name: string }[] }>> }>
  | undefined;

/**
 * Whether this server's API has `method path` (as its OpenAPI document spells it, such as
 * `/v1/workflows/{id}/event_summaries`) and, when given, the query parameter `param`. The app asks
 * before using what only newer servers have; the document is read once per page load.
 */
export async function apiHas(method: string, path: string, param?: string): Promise<boolean> {
  openapi ??= call("GET", "/v1/openapi.json").catch(() => ({})) as NonNullable<typeof openapi>;
  const op = (await openapi).paths?.[path]?.[method.toLowerCase()];
  if (!op) return false;
  return param === undefined || (op.parameters ?? []).some((p) => p.name === param);
}

/** Whether this server's API has `method` on a path matching `pattern` (see {@link apiHas}). */
export async function apiHasMatching(method: string, pattern: RegExp): Promise<boolean> {
  openapi ??= call("GET", "/v1/openapi.json").catch(() => ({})) as NonNullable<typeof openapi>;
  const paths = (await openapi).paths ?? {};
  return Object.entries(paths).some(([p, ops]) => pattern.test(p) && ops[method.toLowerCase()] !== undefined);
}
