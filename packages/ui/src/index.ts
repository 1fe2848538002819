/**
 * The Hookline web application, built into static files (`npm run build`), and the Web-standard
 * fetch handler that serves them: the files themselves, and `index.html` for every app URL
 * (`/sources`, `/sources/dc_...`, `/webhooks/wh_...`), so the single-page app routes in the browser.
 * The app talks to the `/v1` API of the same origin with the API key the user signs in with.
 * @packageDocumentation
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createFileCache, encode, indexPath, resolveInside, type StaticFile } from "./static.js";

/**
 * The folder of the built web application (`index.html` and `assets/`), for embedders that serve
 * static files with their own framework. Every path that is not a file must get `index.html`.
 */
export const uiStaticDir: string = fileURLToPath(new URL("../dist/app/", import.meta.url)).replace(
  /[\\/]$/,
  "",
);

/** Options of {@link createUiHandler} and {@link withUi}. */
export interface UiHandlerOptions {
  /** The folder of built files (default {@link uiStaticDir}). */
  root?: string;
  /**
   * Where the app finds the `/v1` API when it is not on the same origin (for example
   * `https://api.example.com`). The browser must be allowed to call it (CORS option of the handler).
   */
  apiUrl?: string;
}

/** A Web-standard handler: `(request) => Promise<Response>`. */
export type FetchHandler = (request: Request) => Promise<Response>;

const IMMUTABLE = "public, max-age=31536000, immutable";

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });
}

function securityHeaders(apiUrl: string | undefined): Record<string, string> {
  const connect = apiUrl ? `'self' ${new URL(apiUrl).origin}` : "'self'";
  return {
    // CodeMirror injects its styles at run time, hence 'unsafe-inline' for styles only.
    "content-security-policy": `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src ${connect}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
  };
}

/**
 * A fetch handler serving the web application: built files by path, and `index.html` for any
 * other `GET` or `HEAD` (the app's own URLs). Hashed files under `/assets/` are cached for a year;
 * `index.html` is revalidated (ETag). Responses are compressed (brotli or gzip) when the browser
 * accepts it. When the app is not built, every page is a 503 saying how to build it.
 *
 * @example
 * ```ts
 * import { createUiHandler } from "@hookline/ui";
 *
 * const ui = createUiHandler();
 * const page = await ui(new Request("http://localhost/sources/dc_abc")); // index.html
 * ```
 */
export function createUiHandler(options: UiHandlerOptions = {}): FetchHandler {
  const root = options.root ?? uiStaticDir;
  const files = createFileCache();
  const headers = securityHeaders(options.apiUrl);
  let index: { source: StaticFile; file: StaticFile } | undefined;

  // index.html with the API location the app should use (an empty meta: the same origin).
  function indexFile(): StaticFile | undefined {
    const source = files.get(indexPath(root));
    if (!source) return undefined;
    if (index?.source === source) return index.file;
    const html = Buffer.from(source.body)
      .toString("utf8")
      .replace(
        '<meta name="hookline-api" content="" />',
        `<meta name="hookline-api" content="${(options.apiUrl ?? "").replace(/["<>&]/g, "")}" />`,
      );
    const file = { ...source, body: Buffer.from(html), br: undefined, gzip: undefined };
    index = { source, file };
    return file;
  }

  function send(request: Request, file: StaticFile, cache: string, extra: Record<string, string> = {}) {
    const common = { etag: file.etag, "cache-control": cache, vary: "accept-encoding", ...extra };
    if (request.headers.get("if-none-match") === file.etag)
      return new Response(null, { status: 304, headers: common });
    const { body, encoding } = encode(file, request.headers.get("accept-encoding") ?? "");
    const out = new Headers({
      ...common,
      "content-type": file.type,
      "content-length": String(body.byteLength),
    });
    if (encoding) out.set("content-encoding", encoding);
    return new Response(request.method === "HEAD" ? null : (body as Uint8Array<ArrayBuffer>), {
      status: 200,
      headers: out,
    });
  }

  return async (request: Request): Promise<Response> => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return text(405, "Method not allowed", { allow: "GET, HEAD" });
    }
    const { pathname } = new URL(request.url);
    const last = pathname.slice(pathname.lastIndexOf("/") + 1);
    // A path with a file extension is a file: served, or 404 (never the app instead of a script).
    if (last.includes(".") && pathname !== "/index.html") {
      const path = resolveInside(root, pathname);
      const file = path ? files.get(path) : undefined;
      if (!file) return text(404, "Not found");
      return send(request, file, pathname.startsWith("/assets/") ? IMMUTABLE : "no-cache");
    }
    const file = indexFile();
    if (!file) {
      return new Response(
        '<!doctype html><html lang="en"><title>Hookline</title><h1>The web UI is not built</h1>' +
          "<p>Run <code>npm run build</code> (or <code>npm run build -w @hookline/ui</code>) and reload. " +
          'The API is running at <a href="/v1/openapi.json"><code>/v1</code></a>.</p></html>',
        { status: 503, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
      );
    }
    return send(request, file, "no-cache", headers);
  };
}

/**
 * One handler for a whole server: `/v1/...`, `/http/...`, `/oauth/...`, `/healthz`, `/readyz` and `/metrics`
 * (and any request that is not a `GET`
 * or `HEAD`) go to `api` (the `createHandler` of `@hookline/http`), everything else to the web
 * application.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createHookline } from "@hookline/engine";
 * import { createHandler } from "@hookline/http";
 * import { toNodeListener } from "@hookline/http/node";
 * import { withUi } from "@hookline/ui";
 *
 * const hookline = createHookline({ secretsKey: process.env.HOOKLINE_SECRETS_KEY });
 * hookline.start();
 * createServer(toNodeListener(withUi(createHandler(hookline)))).listen(4100);
 * ```
 */
export function withUi(api: FetchHandler, options: UiHandlerOptions = {}): FetchHandler {
  const ui = createUiHandler(options);
  return (request) => {
    const { pathname } = new URL(request.url);
    const toApi =
      (request.method !== "GET" && request.method !== "HEAD") ||
      pathname === "/v1" ||
      pathname.startsWith("/v1/") ||
      pathname.startsWith("/http/") ||
      pathname.startsWith("/oauth/") ||
      // Health, readiness and metrics are the API's (JSON, never the web app).
      pathname === "/healthz" ||
      pathname === "/readyz" ||
      pathname === "/metrics";
    return toApi ? api(request) : ui(request);
  };
}

/** Whether the web application has been built (its `index.html` exists in `root`). */
export function isUiBuilt(root: string = uiStaticDir): boolean {
  return existsSync(indexPath(root));
}
