/**
 * `@hookline/http/hono`: the handler as a Hono sub-app.
 *
 * @packageDocumentation
 */
import { Hono } from "hono";
import type { FetchHandler } from "./node.js";

export type { FetchHandler } from "./node.js";

/**
 * A Hono app serving Hookline: `app.all("/v1/*")` and `app.all("/http/*")` pass the raw Web
 * `Request` to `handler` and return its `Response` (streamed, SSE included). Mount it at the root
 * with `app.route("/", hooklineApp(handler))`, or serve it on its own (`export default`, Bun, Deno,
 * `@hono/node-server`).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { serve } from "@hono/node-server";
 * import { createHookline } from "@hookline/engine";
 * import { createHandler } from "@hookline/http";
 * import { hooklineApp } from "@hookline/http/hono";
 *
 * const hookline = createHookline({ secretsKey: process.env.HOOKLINE_SECRETS_KEY });
 * const app = new Hono();
 * app.route("/", hooklineApp(createHandler(hookline)));
 * serve({ fetch: app.fetch, port: 4100 });
 * await hookline.start();
 * ```
 */
export function hooklineApp(handler: FetchHandler): Hono {
  const app = new Hono();
  app.all("/v1/*", (c) => handler(c.req.raw));
  app.all("/http/*", (c) => handler(c.req.raw));
  return app;
}
