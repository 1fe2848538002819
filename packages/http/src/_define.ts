/**
 * The route table's building blocks. A route declares its method, path, TypeBox schemas for its
 * parameters and its `data`, and a handler; the router validates with the same schemas that the
 * OpenAPI document is generated from, so the two cannot drift.
 */
import type { Problem } from "@hookline/core";
import type { ConnectScope, Hookline } from "@hookline/engine";
import type { ApiKey } from "@hookline/store";
import type { TSchema } from "typebox";

/** What a handler gets. */
export interface RouteContext<P = Record<string, unknown>> {
  request: Request;
  url: URL;
  hookline: Hookline;
  /** The authenticated workspace (empty for routes without auth). */
  workspaceId: string;
  /**
   * Set when a connect token (`ctok_...`) authenticated the request: the end user whose accounts
   * alone the route may see and change (pass it to the accounts API as its scope).
   */
  endUser?: ConnectScope;
  /** The API key that authenticated the request (absent for connect tokens and routes without auth). */
  apiKey?: ApiKey;
  /** Path parameters (`{id}`). */
  path: Record<string, string>;
  /** Query string and JSON body fields, merged and validated against `params`. */
  params: P;
  requestId: string;
}

/**
 * What a handler returns: `data` (wrapped as `{ data }`, with `warnings` beside it when there are
 * any), a list, or a ready Response. A list gives the cursor that continues after each item, so a
 * page cut short by its byte budget can end there.
 */
export type RouteResult =
  | {
      /** The response's `data`. */
      data: unknown;
      /**
       * Things to know about the result, sent beside `data` when there are any: each with a stable
       * `code`, a `message` for people and, where it concerns one field, its `path` (the SPEC rules
       * a saved component breaks that Pipedream accepts, a webhook URL the SSRF guard refuses...).
       */
      warnings?: readonly Problem[];
    }
  | {
      /** The items of this page. */
      list: unknown[];
      /** The page's `page_info`. */
      pageInfo: PageInfo;
      /** The cursor that continues after the item at `index`. */
      cursor: (index: number) => string;
    }
  | Response;

/** The `page_info` of list responses. */
export interface PageInfo {
  total_count?: number;
  count: number;
  start_cursor: string | null;
  end_cursor: string | null;
  /** Event lists: whether `end_cursor` leads to more (the same as `end_cursor !== null`). */
  has_more?: boolean;
  /** Event lists: how many stored events this page examined. */
  scanned?: number;
  /** Event lists: the page's scan budget (`scan`). */
  scan_budget?: number;
  /** Event lists: the page stopped on its scan budget, not on the end (`end_cursor` continues). */
  budget_reached?: boolean;
}

/** One route of the REST API. */
export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI-style path: `/v1/webhooks/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** Schema of the merged query and body parameters. */
  params?: TSchema;
  /** Schema of `data` in a success response (an array item for lists). */
  data?: TSchema;
  /** A list response with `page_info`. */
  list?: boolean;
  /** The response may carry `warnings` (`{ code, path?, message }` objects) beside `data`. */
  warnings?: boolean;
  /**
   * Default true: needs `Authorization: Bearer <api key>`. `"connect"`: an API key or an end user's
   * connect token (`ctok_...`, then `endUser` is set and browsers of other origins may call it: CORS).
   * `"operator"`: an operator key only (a workspace key is `403 operator_key_required`).
   */
  auth?: boolean | "connect" | "operator";
  /** Response content type when not JSON (for example `text/event-stream`). */
  produces?: string;
  /** Serves the request (parameters already validated). */
  handler(ctx: RouteContext<any>): Promise<RouteResult>;
}

/** Identity helper that types a route. */
export function defineRoute(route: Route): Route {
  return route;
}
