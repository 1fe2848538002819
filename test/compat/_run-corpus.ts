// Runs the corpus (issue 34): every source deployed (its deploy and activate hooks run) and run
// once, every action run as the one step of a manual workflow, with placeholder props and a dummy
// account per app. Every outbound request goes to one loopback stand-in that answers 401, so a
// component that reaches for its API gets an HTTP error from the stand-in: that, a network error,
// a ConfigurationError of its own or a success count as behaving; a sandbox error does not.
// Used by `npm run compat:run` (run-corpus.ts) and, on a small sample, by corpus-run.test.ts.
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleComponent } from "@hookline/cli";
import { createTransport, type Transport } from "@hookline/delivery";
import { createHookline, type Hookline } from "@hookline/engine";
import { createRuntime, nodeModulesResolver } from "@hookline/runtime";
import { componentFiles, ROOT } from "./_corpus.js";

/** What running one component gave. */
export interface RunResult {
  file: string;
  pkg: string;
  kind: "source" | "action" | "unknown";
  /** The package imports npm packages (besides @pipedream/platform). */
  sdk: boolean;
  behaves: boolean;
  /**
   * `ok`, `api` (reached the stand-in or the network), `input` (refused its placeholder input), or
   * `sandbox: ...` / `component: ...` (fails on Node too) / `other: ...` and the cause.
   */
  outcome: string;
  message?: string;
}

/** Errors of the sandbox itself (what the issue counts as sandbox-caused). */
const SANDBOX = [
  /is not available in the Hookline sandbox/,
  /class constructors must be invoked with 'new'|parent class must be constructor/,
  /'\w+' is not defined/,
  /not a function|cannot convert to object/,
  /No sandbox thread is free|stayed busy/,
  /could not be interrupted|out of memory|exceeded its (time|memory) limit/,
  /native addon|Cannot find module/,
  /Top-level await/,
];
/**
 * Failures of the component's own code, which fail the same way on Node (each checked by running
 * the component's file with Node): counted as failures, as `component: ...`, not as the sandbox's.
 */
const ON_NODE_TOO: Record<string, RegExp> = {
  // `for (url of this.rss_feeds)` in an ES module: strict mode, ReferenceError on Node too.
  "helper_functions/actions/retrieve-all-rss-stories/retrieve-all-rss-stories.mjs": /'url' is not defined/,
  "helper_functions/actions/retrieve-new-rss-stories/retrieve-new-rss-stories.mjs": /'url' is not defined/,
  // `getSummary({ channel: { name } })` of the placeholder event `{}`: QuickJS's words for
  // destructuring undefined; Node throws a TypeError too ("Cannot read properties of undefined").
  "slack/sources/new-channel-created/new-channel-created.mjs": /cannot convert to object/,
  "slack/sources/new-user-added/new-user-added.mjs": /cannot convert to object/,
};

/** Errors that show the component ran until it reached for its API. */
const BEHAVES = [
  /status code 4\d\d|\b4\d\d\b.*(Unauthorized|Forbidden|Not Found|stand-in)|stand-in/i,
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|getaddrinfo|private address|not allowed|SSRF|refused to connect|socket hang up|network/i,
];

/**
 * A component refusing its own placeholder input: a `ConfigurationError` or a prop error, or a
 * file prop naming the placeholder file, absent from `/tmp` as it would be on Node (`ENOENT`, or
 * `File not found` from `getFileStream`).
 */
const INPUT = [
  /ConfigurationError|invalid_prop_value|account_required/,
  /ENOENT.*placeholder|placeholder.*ENOENT/s,
  // @pipedream/platform's getFileStream on a placeholder path, with its own words (as on Node).
  /File not found: \/?(tmp\/)?placeholder/,
];

/**
 * A run that reached the stand-in behaved (what follows is the component handling a refusal or
 * placeholder data); otherwise a network or HTTP error, or a ConfigurationError of its own, did
 * too. The rest did not: sandbox errors (`sandbox: ...`) and anything else (`other: ...`).
 */
function classify(message: string, reached: boolean, file = ""): { behaves: boolean; outcome: string } {
  if (ON_NODE_TOO[file]?.test(message)) return { behaves: false, outcome: `component: ${cause(message)}` };
  if (reached || BEHAVES.some((re) => re.test(message))) return { behaves: true, outcome: "api" };
  if (INPUT.some((re) => re.test(message))) return { behaves: true, outcome: "input" };
  if (SANDBOX.some((re) => re.test(message)))
    return { behaves: false, outcome: `sandbox: ${cause(message)}` };
  return { behaves: false, outcome: `other: ${cause(message)}` };
}

/** A failure's cause, without the component's own values (for grouping). */
function cause(message: string): string {
  return message
    .replace(/"[^"]*"|'[^']*'/g, (m) => (m.length > 40 ? '"..."' : m))
    .replace(/\b[0-9a-f]{8,}\b|\d+/g, "N")
    .slice(0, 110);
}

/** A loopback server answering every request 401 as an API refusing the dummy credentials. */
async function startStandIn(): Promise<{ base: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on("end", () =>
      res.writeHead(401, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: "stand-in: invalid credentials",
          message: "stand-in: invalid credentials",
        }),
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The guarded transport with every URL's origin replaced by the stand-in's, for `fetch` and for
 * the `http`/`https` modules (whose TLS options no longer apply to the plain stand-in): nothing
 * leaves loopback. Sockets (database drivers) keep their placeholder host, which does not resolve.
 */
function loopbackTransport(base: string): Transport {
  const inner = createTransport({ allowPrivate: true });
  const rewrite = (input: string | URL | Request) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    return `${base}${url.pathname}${url.search}`;
  };
  const fetch = ((input: string | URL | Request, init?: RequestInit) =>
    inner.fetch(rewrite(input), init)) as typeof globalThis.fetch;
  const send = inner.request;
  if (!send) throw new Error("the transport has no request()");
  const request: Transport["request"] = (url, { tls: _tls, ...rest }) => send(rewrite(url), rest);
  return { ...inner, fetch, request };
}

const DUMMY_AUTH = {
  api_key: "placeholder",
  api_token: "placeholder",
  token: "placeholder",
  oauth_access_token: "placeholder",
  oauth_refresh_token: "placeholder",
  oauth_uid: "placeholder",
  access_token: "placeholder",
  client_id: "placeholder",
  client_secret: "placeholder",
  secret_key: "placeholder",
  username: "placeholder",
  password: "placeholder",
  host: "placeholder.invalid",
  port: "5432",
  database: "placeholder",
  domain: "placeholder.invalid",
  subdomain: "placeholder",
  // shopify-api-node refuses to start without a shop name ("Missing or invalid options").
  shop_id: "placeholder",
  region: "us-east-1",
  base_url: "https://placeholder.invalid",
};

/** Placeholder values for the props a user must fill (optional ones and defaults are left out). */
async function placeholderProps(
  hookline: Hookline,
  ws: string,
  props: Record<string, any>,
  accounts: Map<string, string>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(props)) {
    if (prop.type === "app") {
      let id = accounts.get(prop.app);
      if (!id) {
        id = (await hookline.accounts.create(ws, { app: prop.app, name: "dummy", credentials: DUMMY_AUTH }))
          .id;
        accounts.set(prop.app, id);
      }
      out[name] = { authProvisionId: id };
      continue;
    }
    // A request builder's default (`{ method: "POST" }`) names no URL: a user fills one in.
    if (prop.type === "http_request") {
      out[name] = { ...(prop.default ?? { method: "GET" }), url: "https://placeholder.invalid/" };
      continue;
    }
    if (prop.optional || prop.default !== undefined) continue;
    const first = Array.isArray(prop.options) ? prop.options[0] : undefined;
    const option = first && typeof first === "object" ? first.value : first;
    if (prop.type === "$.interface.timer") out[name] = { intervalSeconds: 900 };
    else if (prop.type === "$.interface.http" || prop.type === "$.service.db" || prop.type.startsWith("$."))
      continue;
    else if (option !== undefined) out[name] = prop.type.endsWith("[]") ? [option] : option;
    else if (prop.type === "integer") out[name] = 1;
    else if (prop.type === "boolean") out[name] = false;
    else if (prop.type === "string[]") out[name] = ["placeholder"];
    else if (prop.type === "integer[]") out[name] = [1];
    else if (prop.type === "object") out[name] = { placeholder: "placeholder" };
    else if (prop.type === "string" || prop.type === "any") out[name] = "placeholder";
    // A data store prop's value is the store's name; the engine creates it on first use.
    else if (prop.type === "data_store") out[name] = "placeholder";
    else if (prop.type === "sql") out[name] = { query: "SELECT 1", params: [] };
  }
  return out;
}

/** Runs the components of `packages` (one at a time, so that stand-in hits belong to one). */
export async function runCorpus(packages: string[], options: RunCorpusOptions = {}): Promise<RunResult[]> {
  const standIn = await startStandIn();
  const runtime = createRuntime({
    resolvers: [nodeModulesResolver(ROOT)],
    limits: { runTimeoutMs: 15_000 },
  });
  const hookline = createHookline({
    worker: false,
    secretsKey: "compat-run",
    runtime,
    transport: loopbackTransport(standIn.base),
  });
  const ws = (await hookline.workspaces.create({ name: "corpus-run" })).id;
  const accounts = new Map<string, string>();
  const results: RunResult[] = [];
  try {
    for (const pkg of packages) {
      const sdk = packageImportsNpm(pkg);
      const files = componentFiles(pkg)
        .filter((path) => !options.match || path.includes(options.match))
        .slice(0, options.limit ?? Number.POSITIVE_INFINITY);
      for (const path of files) {
        const result = await runOne(hookline, ws, accounts, standIn.hits, pkg, path, sdk);
        results.push(result);
        options.onResult?.(result);
      }
    }
  } finally {
    await hookline.close();
    await runtime.close();
    await standIn.close();
  }
  return results;
}

/** Options of {@link runCorpus} and {@link runCorpusIsolated}. */
export interface RunCorpusOptions {
  limit?: number;
  match?: string;
  onResult?: (r: RunResult) => void;
}

/**
 * {@link runCorpus} with each package in a child process of its own (_run-corpus-child.ts), one
 * after the other: a package's sandboxes, bundles and engine go with its process, so a whole-corpus
 * run does not carry 26 packages' worth of state. A child that dies (out of memory...) costs its
 * package's remaining components, reported as `runner: ...` failures, not the run.
 */
export async function runCorpusIsolated(
  packages: string[],
  options: RunCorpusOptions = {},
): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const pkg of packages) {
    const { onResult, ...rest } = options;
    const files = componentFiles(pkg)
      .filter((path) => !options.match || path.includes(options.match))
      .slice(0, options.limit ?? Number.POSITIVE_INFINITY)
      .map((path) => relative(`${ROOT}/node_modules/@pipedream`, path));
    const done = new Set<string>();
    const exit = await new Promise<number | null>((resolve, reject) => {
      const child = fork(fileURLToPath(new URL("./_run-corpus-child.ts", import.meta.url)), [], {
        execArgv: ["--conditions=@hookline/source", "--import", "tsx"],
        cwd: ROOT,
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      child.on("message", (message) => {
        if ((message as { done?: boolean }).done) return;
        const result = message as RunResult;
        done.add(result.file);
        results.push(result);
        onResult?.(result);
      });
      child.on("error", reject);
      child.on("exit", (code) => resolve(code));
      child.send({ pkg, options: rest });
    });
    for (const file of files.filter((f) => !done.has(f))) {
      const result: RunResult = {
        file,
        pkg,
        kind: file.split("/")[1] === "sources" ? "source" : "action",
        sdk: packageImportsNpm(pkg),
        behaves: false,
        outcome: `runner: the package's process exited with ${exit} before this component`,
      };
      results.push(result);
      onResult?.(result);
    }
  }
  return results;
}

/** The package imports npm packages (a dependency besides `@pipedream/*`). */
function packageImportsNpm(pkg: string): boolean {
  const deps = (
    JSON.parse(readFileSync(`${ROOT}/node_modules/@pipedream/${pkg}/package.json`, "utf8")) as {
      dependencies?: Record<string, string>;
    }
  ).dependencies;
  return Object.keys(deps ?? {}).some((d) => !d.startsWith("@pipedream/"));
}

async function runOne(
  hookline: Hookline,
  ws: string,
  accounts: Map<string, string>,
  hits: () => number,
  pkg: string,
  path: string,
  sdk: boolean,
): Promise<RunResult> {
  const file = relative(`${ROOT}/node_modules/@pipedream`, path);
  const base = { file, pkg, sdk };
  let kind: RunResult["kind"] = "unknown";
  const before = hits();
  try {
    const bundled = await bundleComponent(path);
    const saved = await hookline.components.save(ws, { code: bundled.code, filename: bundled.filename });
    kind = saved.description.type;
    const props = await placeholderProps(hookline, ws, saved.description.props, accounts);
    if (kind === "source") {
      const source = await hookline.sources.deploy(ws, { componentId: saved.id, props });
      const run = await hookline.sources.run(ws, source.id, {});
      await hookline.sources.delete?.(ws, source.id).catch(() => undefined);
      if (!run.error) return { ...base, kind, behaves: true, outcome: "ok" };
      const c = classify(`${run.error.name}: ${run.error.message}`, hits() > before, file);
      return { ...base, kind, ...c, message: run.error.message.slice(0, 200) };
    }
    const wf = await hookline.workflows.create(ws, {
      name: `run ${file}`,
      trigger: { type: "manual" },
      steps: [{ name: "step", component_code: bundled.code, configured_props: props }],
    } as never);
    const exe = (await hookline.workflows.run(ws, (wf as { id: string }).id, { event: {} })) as unknown as {
      status: string;
      steps: { error?: { name?: string; message?: string } }[];
      error?: { message?: string };
    };
    // Deleted once run: a workflow keeps its step's sandbox mounted for as long as it exists.
    await hookline.workflows.delete(ws, (wf as { id: string }).id).catch(() => undefined);
    if (exe.status === "succeeded") return { ...base, kind, behaves: true, outcome: "ok" };
    const error = exe.steps.find((s) => s.error)?.error ?? exe.error ?? {};
    const message = `${(error as { name?: string }).name ?? "Error"}: ${error.message ?? exe.status}`;
    return { ...base, kind, ...classify(message, hits() > before, file), message: message.slice(0, 200) };
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    const text = `${code ?? "error"}: ${message ?? String(error)}`;
    return { ...base, kind, ...classify(text, hits() > before, file), message: text.slice(0, 200) };
  }
}
