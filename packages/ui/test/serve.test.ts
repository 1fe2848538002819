// Serving the web application: the fetch handler (files, SPA fallback, caching, compression, safe
// paths, not built), withUi() next to the API, the example server, and `pd serve` at its root.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureUiBuilt } from "../ensure-built.js";
import { createUiHandler, isUiBuilt, uiStaticDir, withUi } from "../src/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  new Request(`http://ui.test${path}`, { method, headers });

/** A folder with a tiny built app. */
function fakeBuild(): string {
  const root = mkdtempSync(join(tmpdir(), "hookline-ui-root-"));
  mkdirSync(join(root, "assets"));
  writeFileSync(
    join(root, "index.html"),
    '<!doctype html><html><head><meta name="hookline-api" content="" /></head><body><div id="app"></div></body></html>',
  );
  writeFileSync(join(root, "assets/app-1234.js"), `console.log(${JSON.stringify("x".repeat(5000))});`);
  writeFileSync(join(root, "robots.txt"), "User-agent: *\n");
  writeFileSync(join(tmpdir(), "hookline-ui-secret.txt"), "outside");
  return root;
}

describe("createUiHandler", () => {
  const root = fakeBuild();
  const ui = createUiHandler({ root });

  it("answers index.html for every app URL, with security headers and revalidation", async () => {
    for (const path of [
      "/",
      "/sources",
      "/sources/dc_abc",
      "/sources?action=create&key=http-x",
      "/webhooks/wh_1",
    ]) {
      const res = await ui(get(path));
      expect([res.status, res.headers.get("content-type")], path).toEqual([200, "text/html; charset=utf-8"]);
      expect(await res.text()).toContain('<div id="app">');
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("content-security-policy")).toContain("connect-src 'self'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
    const first = await ui(get("/sources"));
    const again = await ui(get("/sources", { "if-none-match": first.headers.get("etag") as string }));
    expect([again.status, await again.text()]).toEqual([304, ""]);
  });

  it("serves files by path: hashed assets cached for a year, compressed when accepted; HEAD has no body", async () => {
    const plain = await ui(get("/assets/app-1234.js"));
    expect([plain.status, plain.headers.get("content-type"), plain.headers.get("content-encoding")]).toEqual([
      200,
      "text/javascript; charset=utf-8",
      null,
    ]);
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const js = await plain.text();
    for (const [accept, encoding] of [
      ["gzip, deflate, br", "br"],
      ["gzip", "gzip"],
      ["br;q=0, gzip", "gzip"],
    ] as const) {
      const res = await ui(get("/assets/app-1234.js", { "accept-encoding": accept }));
      expect(res.headers.get("content-encoding"), accept).toBe(encoding);
      expect(Number(res.headers.get("content-length"))).toBeLessThan(js.length / 10);
      // fetch's Response does not decode: decompress to compare.
      const { brotliDecompressSync, gunzipSync } = await import("node:zlib");
      const raw = Buffer.from(await res.arrayBuffer());
      expect((encoding === "br" ? brotliDecompressSync(raw) : gunzipSync(raw)).toString()).toBe(js);
    }
    const head = await ui(get("/assets/app-1234.js", {}, "HEAD"));
    expect([head.status, await head.text(), head.headers.get("content-length")]).toEqual([
      200,
      "",
      String(js.length),
    ]);
    const robots = await ui(get("/robots.txt"));
    expect([robots.status, robots.headers.get("cache-control")]).toEqual([200, "no-cache"]);
  });

  it("answers 404 for a missing file and for paths leaving the folder, 405 for other methods", async () => {
    for (const path of [
      "/assets/missing.js",
      "/%2e%2e/hookline-ui-secret.txt",
      "/assets/%2e%2e/%2e%2e/hookline-ui-secret.txt",
      "/x%00.js",
    ]) {
      const res = await ui(get(path));
      expect([res.status, await res.text()], path).toEqual([404, "Not found"]);
    }
    const post = await ui(get("/sources", {}, "POST"));
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
  });

  it("tells how to build when the app is not built (503)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "hookline-ui-empty-"));
    const res = await createUiHandler({ root: empty })(get("/sources"));
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("npm run build");
    expect(isUiBuilt(empty)).toBe(false);
    expect(isUiBuilt(root)).toBe(true);
  });

  it("points the app at another API origin with apiUrl (meta tag and connect-src)", async () => {
    const res = await createUiHandler({ root, apiUrl: "https://api.example.com/" })(get("/sources"));
    expect(await res.text()).toContain('<meta name="hookline-api" content="https://api.example.com/" />');
    expect(res.headers.get("content-security-policy")).toContain(
      "connect-src 'self' https://api.example.com;",
    );
  });
});

describe("withUi", () => {
  it("sends /v1, /http and every non-GET request to the API, the rest to the UI", async () => {
    const seen: string[] = [];
    const api = async (request: Request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response("api");
    };
    const handler = withUi(api, { root: fakeBuild() });
    for (const [method, path] of [
      ["GET", "/v1/sources"],
      ["GET", "/v1"],
      ["POST", "/http/en_1/x"],
      ["GET", "/http/en_1"],
      ["POST", "/sources"],
    ]) {
      expect(await (await handler(get(path as string, {}, method))).text()).toBe("api");
    }
    expect(seen).toEqual([
      "GET /v1/sources",
      "GET /v1",
      "POST /http/en_1/x",
      "GET /http/en_1",
      "POST /sources",
    ]);
    expect(await (await handler(get("/v1x"))).text()).toContain('<div id="app">');
    expect(await (await handler(get("/sources/dc_1"))).text()).toContain('<div id="app">');
  });
});

/** Kills a process and everything it started (its process group). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // Gone.
  }
}

/** Starts a node process and waits for the lines `ready` matches in its output. */
function start(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; out: string }> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // a group of its own: killGroup ends what it started too (esbuild's service)
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => fail(new Error(`did not start:\n${out}`)), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      killGroup(child);
      reject(error);
    };
    child.on("exit", (code) => fail(new Error(`exited (${code}):\n${out}`)));
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (ready.test(out)) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ child, out });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
  });
}

describe("the built app behind real servers", () => {
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    await ensureUiBuilt();
  }, 120_000);
  afterAll(() => {
    for (const child of children) killGroup(child);
  });

  async function checkServes(base: string, key: string) {
    const page = await fetch(`${base}/sources/dc_unknown`);
    const html = await page.text();
    expect([page.status, html]).toEqual([200, expect.stringContaining('<div id="app">')]);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1] as string;
    const asset = await fetch(`${base}${script}`);
    expect([asset.status, asset.headers.get("content-type")]).toEqual([
      200,
      "text/javascript; charset=utf-8",
    ]);
    const api = await fetch(`${base}/v1/sources`, { headers: { authorization: `Bearer ${key}` } });
    expect([api.status, ((await api.json()) as { data: unknown[] }).data]).toEqual([200, []]);
  }

  it("examples/ui/server.mjs serves the API and the app", async () => {
    const { child, out } = await start(
      ["--conditions=@hookline/source", "--import", "tsx", "examples/ui/server.mjs"],
      { PORT: "0" },
      /listening on http:\/\/127\.0\.0\.1:\d+\n/,
    );
    children.push(child);
    const key = /HOOKLINE_API_KEY=(\S+)/.exec(out)?.[1] as string;
    expect(out).toContain(`UI files in ${uiStaticDir}`);
    expect(readdirSync(uiStaticDir)).toContain("index.html");
    await checkServes(/listening on (\S+)/.exec(out)?.[1] as string, key);
  }, 90_000);

  it("pd serve serves the app at its root and prints where", async () => {
    const { child, out } = await start(
      [
        "--conditions=@hookline/source",
        "--import",
        "tsx",
        "packages/cli/src/bin.ts",
        "serve",
        "--memory",
        "--port",
        "0",
      ],
      { NO_COLOR: "1", HOOKLINE_API_KEY: "hl_ui_serve_test_key" },
      /API key:.*\n/,
    );
    children.push(child);
    const base = /listening on (\S+)/.exec(out)?.[1] as string;
    expect(out).toContain(`UI:       ${base}/sources\n`);
    await checkServes(base, "hl_ui_serve_test_key");
  }, 90_000);
});
