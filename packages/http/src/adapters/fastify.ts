/**
 * `@hookline/http/fastify`: the handler as a Fastify plugin.
 *
 * @packageDocumentation
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type FetchHandler, serveNode } from "./node.js";

export type { FetchHandler } from "./node.js";

/** Options of {@link hooklinePlugin}. */
export interface HooklinePluginOptions {
  /** The Web-standard handler, as `createHandler` returns. */
  handler: FetchHandler;
}

/**
 * A Fastify plugin serving Hookline: catch-all routes for `/v1/*` and `/http/*` (every method) whose
 * responses, SSE included, are streamed back through `reply.raw` (the reply is hijacked). Inside the
 * plugin's encapsulation context Fastify does not parse bodies: the raw request stream goes to the
 * handler untouched, so your own content-type parsers and body limits are unaffected elsewhere.
 *
 * Register it without a `prefix` (the handler serves `/v1/...` and `/http/...` at the root); a
 * prefix, if given, is stripped before the request reaches the handler.
 *
 * @example
 * ```ts
 * import Fastify from "fastify";
 * import { createHookline } from "@hookline/engine";
 * import { createHandler } from "@hookline/http";
 * import { hooklinePlugin } from "@hookline/http/fastify";
 *
 * const hookline = createHookline({ secretsKey: process.env.HOOKLINE_SECRETS_KEY });
 * const app = Fastify();
 * await app.register(hooklinePlugin, { handler: createHandler(hookline) });
 * await app.listen({ port: 4100 });
 * await hookline.start();
 * ```
 */
export async function hooklinePlugin(
  fastify: FastifyInstance,
  options: HooklinePluginOptions,
): Promise<void> {
  const { handler } = options;
  const prefix = fastify.prefix;
  // Leave bodies unread: the handler reads (and limits) them itself from the raw stream.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser("*", (_request: FastifyRequest, _payload: unknown, done) => done(null));

  const serve = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const raw = request.raw;
    if (prefix && raw.url?.startsWith(prefix)) raw.url = raw.url.slice(prefix.length) || "/";
    reply.hijack();
    // As the node adapter: a bad Host is a JSON 400, other errors a JSON 500 that leaks nothing.
    await serveNode(handler, raw, reply.raw).catch(() => reply.raw.destroy());
  };
  fastify.all("/v1/*", serve);
  fastify.all("/http/*", serve);
}
