import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type BridgeResponse,
  createRuntime,
  type DataStoreRequest,
  nodeModulesResolver,
} from "../src/index.js";
import { memoryDb, mountCode, testRuntime } from "./_helpers.js";

const runtime = testRuntime();
afterAll(() => runtime.close());

describe("sources", () => {
  it("mounts with the loaded description without walking the definition again", async () => {
    // A getter on the definition counts how often the definition is walked (in this sandbox).
    const code = `
      export default {
        name: "Walked", version: "0.1.0", props: { db: "$.service.db" },
        get walked() { globalThis.walks = (globalThis.walks || 0) + 1; return undefined; },
        async run() { return globalThis.walks || 0; },
      };`;
    const loaded = await runtime.load({ code, filename: "walked.mjs" });
    const withDescription = await runtime.mount({
      id: "dc_walk_1",
      bundle: loaded.bundle,
      description: loaded.description,
      props: {},
    });
    expect(withDescription.description).toEqual(loaded.description);
    expect((await withDescription.run({})).returnValue).toBe(0);
    withDescription.dispose();

    const described = await runtime.mount({ id: "dc_walk_2", bundle: loaded.bundle, props: {} });
    expect(described.description).toEqual(loaded.description);
    expect((await described.run({})).returnValue).toBe(1);
    described.dispose();
  });

  it("binds every user prop type, methods and $emit with its metadata to this", async () => {
    const code = `
      export default {
        name: "Props", version: "0.1.0",
        props: {
          s: { type: "string" }, i: { type: "integer" }, b: { type: "boolean" }, o: { type: "object" },
          ss: { type: "string[]" }, is: { type: "integer[]" }, bs: { type: "boolean[]" },
          optional: { type: "string", optional: true, default: "dflt" },
          alert: { type: "alert", alertType: "info", content: "hello" },
        },
        methods: { describe() { return [this.s, this.i, this.b, this.o.k, this.ss, this.is, this.bs].map(String).join("|") } },
        async run(event) {
          this.$emit({ text: this.describe(), event }, { id: "a1", name: "chan", summary: "Summary", ts: 1700000000000 });
          this.$emit("plain");
        },
      };`;
    const m = await mountCode(runtime, code, {
      s: "x",
      i: 3,
      b: true,
      o: { k: "v" },
      ss: ["a", "b"],
      is: [1, 2],
      bs: [false],
      optional: "dflt",
    });
    const r = await m.run({ n: 1 });
    expect(r.error).toBeUndefined();
    expect(r.emits).toEqual([
      {
        event: { text: "x|3|true|v|a,b|1,2|false", event: { n: 1 } },
        json: '{"text":"x|3|true|v|a,b|1,2|false","event":{"n":1}}',
        meta: { id: "a1", name: "chan", summary: "Summary", ts: 1700000000000 },
      },
      { event: "plain", json: '"plain"', meta: {} },
    ]);
    expect(m.description.props.optional).toMatchObject({ type: "string", optional: true, default: "dflt" });
    m.dispose();
  });

  it("runs each hook with this bound and reports what they did", async () => {
    const code = `
      export default {
        name: "Hooks", version: "0.1.0",
        props: { db: "$.service.db" },
        hooks: {
          async deploy() { this.db.set("calls", ["deploy"]); this.$emit({ historical: 1 }); },
          async activate() { this.db.set("calls", [...this.db.get("calls"), "activate"]); },
          async deactivate() { console.warn("bye"); },
        },
        run() {},
      };`;
    const db = memoryDb();
    const m = await mountCode(runtime, code, {}, { db: db.bridge });
    expect((await m.hook("deploy")).emits).toEqual([
      { event: { historical: 1 }, json: JSON.stringify({ historical: 1 }), meta: {} },
    ]);
    await m.hook("activate");
    const deactivate = await m.hook("deactivate");
    expect(db.values.get("calls")).toEqual(["deploy", "activate"]);
    expect(deactivate.logs).toMatchObject([{ level: "warn", message: "bye" }]);
    expect(m.description.hooks).toEqual(["deploy", "activate", "deactivate"]);
    m.dispose();
  });

  it("keeps db values across invocations, and refuses values that are not JSON-serializable", async () => {
    const code = `
      export default {
        name: "Counter", version: "0.1.0",
        props: { db: "$.service.db" },
        async run(event) {
          if (event.bad) { this.db.set("f", { fn() {} }); return; }
          const n = (await this.db.get("n")) ?? 0;
          this.db.set("n", n + 1);
          this.$emit({ n: this.db.get("n"), missing: this.db.get("nope") === undefined });
        },
      };`;
    const db = memoryDb();
    const m = await mountCode(runtime, code, {}, { db: db.bridge });
    await m.run({});
    const second = await m.run({});
    expect(second.emits[0]?.event).toEqual({ n: 2, missing: true });
    expect(db.values.get("n")).toBe(2);
    const bad = await m.run({ bad: true });
    expect(bad.error).toMatchObject({ code: "error", name: "TypeError" });
    expect(bad.error?.message).toContain("not JSON-serializable (a function at value.fn)");
    m.dispose();
  });

  it("gives the HTTP interface its endpoint and forwards respond() as called (core validates it)", async () => {
    const code = `
      export default {
        name: "Http", version: "0.1.0",
        props: { http: { type: "$.interface.http", customResponse: true } },
        async run(event) {
          if (event.body.bad) { this.http.respond({ status: "201", headers: { "content-length": 2, n: 1 }, body: new Uint8Array([104]) }); return; }
          this.http.respond({ status: 201, headers: { "x-a": "b" }, body: { echo: event.body, at: this.http.endpoint } });
        },
        hooks: { async activate() { this.http.respond({ status: 200 }); } },
      };`;
    const m = await mountCode(runtime, code, { http: { endpoint: "http://localhost/http/en_1" } });
    const ok = await m.run({
      method: "POST",
      path: "/",
      query: {},
      headers: {},
      bodyRaw: "{}",
      body: { a: 1 },
    });
    expect(ok.responds).toEqual([
      { status: 201, headers: { "x-a": "b" }, body: { echo: { a: 1 }, at: "http://localhost/http/en_1" } },
    ]);
    const raw = await m.run({ body: { bad: true } });
    expect(raw.error).toBeUndefined();
    expect(raw.responds).toEqual([
      { status: "201", headers: { "content-length": 2, n: 1 }, body: { $bytes: "aA==" } },
    ]);
    const hook = await m.hook("activate");
    expect(hook.error?.message).toBe("respond() is callable from run() only");
    expect(m.description.props.http).toMatchObject({ type: "$.interface.http", customResponse: true });
    m.dispose();
  });

  it("passes the timer event and the timer config", async () => {
    const code = `
      export default {
        name: "Timer", version: "0.1.0",
        props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } },
        run(event) { this.$emit({ event, config: this.timer }); },
      };`;
    const m = await mountCode(runtime, code, { timer: { intervalSeconds: 60 } });
    const r = await m.run({ timestamp: 1700000000, interval_seconds: 60 });
    expect(r.emits[0]?.event).toEqual({
      event: { timestamp: 1700000000, interval_seconds: 60 },
      config: { intervalSeconds: 60 },
    });
    m.dispose();
  });

  it("runs ES module components in strict mode and CommonJS ones as they were written", async () => {
    const body = `name: "Modes", version: "0.1.0", run() { undeclared = 1; this.$emit({ ok: undeclared }); }`;
    const esm = await mountCode(runtime, `export default { ${body} };`, {}, {}, "modes.mjs");
    const strict = await esm.run({});
    expect(strict.error).toMatchObject({ name: "ReferenceError" });
    expect(strict.emits).toEqual([]);
    const cjs = await mountCode(runtime, `module.exports = { ${body} };`, {}, {}, "modes.cjs");
    const sloppy = await cjs.run({});
    expect(sloppy.error).toBeUndefined();
    expect(sloppy.emits[0]?.event).toEqual({ ok: 1 });
  });

  it("gives app props their methods and a read-only $auth", async () => {
    const app = `
      export default {
        type: "app", app: "github",
        propDefinitions: {
          repo: {
            type: "string", label: "Repository",
            async options({ page, prevContext, org }) {
              const all = ["a", "b", "c", "d", "e"].map((r) => org + "/" + r + this.suffix());
              if (prevContext.next !== undefined || page === undefined) {
                const at = prevContext.next ?? 0;
                return { options: all.slice(at, at + 2), context: { nextPageToken: at + 2 < all.length ? at + 2 : undefined, next: at + 2 } };
              }
              return all.slice(page * 2, page * 2 + 2);
            },
          },
          org: { type: "string", label: "Organization", options: ["acme", "umbrella"] },
        },
        methods: {
          suffix() { return ""; },
          token() { return this.$auth.oauth_access_token; },
          async whoami() { return "user:" + this.token(); },
        },
      };`;
    const code = `
      import github from "./github.app.mjs";
      export default {
        name: "App", version: "0.1.0",
        props: {
          github,
          org: { propDefinition: [github, "org"] },
          repo: { propDefinition: [github, "repo", (c) => ({ org: c.org })] },
        },
        async run() {
          // An ES module runs in strict mode: both writes throw a TypeError, and $auth is unchanged.
          const refused = [];
          try { this.github.$auth.oauth_access_token = "stolen"; } catch (e) { refused.push(e.name); }
          try { this.github.$auth = { oauth_access_token: "replaced" }; } catch (e) { refused.push(e.name); }
          this.$emit({ who: await this.github.whoami(), token: this.github.$auth.oauth_access_token, repo: this.repo, refused });
        },
      };`;
    const m = await mountCode(
      runtime,
      code,
      { github: { $auth: { oauth_access_token: "tok" } }, org: "acme", repo: "acme/a" },
      {},
      "component.mjs",
      { "github.app.mjs": app },
    );
    const r = await m.run({});
    expect(r.emits[0]?.event).toEqual({
      who: "user:tok",
      token: "tok",
      repo: "acme/a",
      refused: ["TypeError", "TypeError"],
    });
    expect(m.description.props.repo).toMatchObject({
      type: "string",
      label: "Repository",
      dynamicOptions: true,
      propDefinition: { appProp: "github", name: "repo", hasInputValues: true },
    });
    // Paging by page: the inputValues function sees the configured props.
    const page0 = await m.options("repo", { page: 0 });
    const page1 = await m.options("repo", { page: 1 });
    expect(page0.returnValue).toEqual({ options: ["acme/a", "acme/b"] });
    expect(page1.returnValue).toEqual({ options: ["acme/c", "acme/d"] });
    // Paging by prevContext.
    const first = await m.options("repo", { prevContext: { next: 0 } });
    expect(first.returnValue).toEqual({
      options: ["acme/a", "acme/b"],
      context: { nextPageToken: 2, next: 2 },
    });
    const second = await m.options("repo", { prevContext: { next: 4 } });
    expect(second.returnValue).toEqual({ options: ["acme/e"], context: { next: 6 } });
    expect((await m.options("org", {})).returnValue).toEqual({ options: ["acme", "umbrella"] });
    m.dispose();
  });

  it("passes the query to useQuery options and reports ConfigurationError as such", async () => {
    const code = `
      import { ConfigurationError } from "@pipedream/platform";
      export default {
        name: "Query", version: "0.1.0",
        props: {
          q: { type: "string", useQuery: true, async options({ query }) { if (query === "bad") throw new ConfigurationError("Pick another query"); return [{ label: "L:" + query, value: query }]; } },
        },
        run() {},
      };`;
    const m = await mountCode(runtime, code, {});
    expect((await m.options("q", { query: "abc" })).returnValue).toEqual({
      options: [{ label: "L:abc", value: "abc" }],
    });
    const bad = await m.options("q", { query: "bad" });
    expect(bad.error).toMatchObject({
      code: "configuration_error",
      name: "ConfigurationError",
      message: "Pick another query",
    });
    m.dispose();
  });

  it("describes additionalProps after a reloadProps prop", async () => {
    const code = `
      export default {
        name: "Dynamic", version: "0.1.0",
        props: { mode: { type: "string", options: ["simple", "advanced"], reloadProps: true } },
        async additionalProps(previous) {
          if (this.mode !== "advanced") return {};
          return {
            depth: { type: "integer", label: "Depth", min: 1, max: 5, optional: true, default: previous.depth ? 3 : 2 },
            color: { type: "string", async options() { return ["red", "blue"]; } },
          };
        },
        run() { this.$emit({ depth: this.depth }); },
      };`;
    const simple = await mountCode(runtime, code, { mode: "simple" });
    expect((await simple.additionalProps({})).returnValue).toEqual({});
    const advanced = await mountCode(runtime, code, { mode: "advanced", depth: 4 });
    const r = await advanced.additionalProps({});
    expect(r.returnValue).toEqual({
      depth: { type: "integer", label: "Depth", min: 1, max: 5, optional: true, default: 2 },
      color: { type: "string", dynamicOptions: true },
    });
    expect((await advanced.options("color", {})).returnValue).toEqual({ options: ["red", "blue"] });
    expect((await advanced.run({})).emits[0]?.event).toEqual({ depth: 4 });
    expect(simple.description.props.mode?.reloadProps).toBe(true);
    simple.dispose();
    advanced.dispose();
  });

  it("reports a thrown error with a stack that points at the component's own lines", async () => {
    const code = [
      "export default {",
      "  name: 'Thrower', version: '0.1.0',",
      "  methods: { fail() {",
      "    throw new Error('boom');",
      "  } },",
      "  run() { this.fail(); },",
      "};",
    ].join("\n");
    const m = await mountCode(runtime, code, {}, {}, "thrower.mjs");
    const r = await m.run({});
    expect(r.error).toMatchObject({ code: "error", name: "Error", message: "boom" });
    expect(r.error?.stack).toContain("thrower.mjs:4:");
    expect(r.logs.at(-1)).toMatchObject({ level: "error" });
    expect((await m.run({})).error?.message).toBe("boom");
    m.dispose();
  });
});

describe("actions", () => {
  it("gives run({ $, steps }) every $ call and a return value", async () => {
    const code = `
      export default {
        name: "Act", version: "0.1.0", type: "action",
        props: { n: { type: "integer" } },
        async run({ $, steps }) {
          $.export("$summary", "did " + this.n);
          $.export("double", this.n * 2);
          $.respond({ status: 202, body: "accepted" });
          $.send.http({ method: "POST", url: "https://example.com", data: { a: 1 } });
          $.send.email({ subject: "s", text: "t" });
          $.send.s3({ bucket: "b", payload: {} });
          $.send.emit({ raw_event: { x: 1 } });
          $.send.sse({ channel: "c", payload: { y: 2 } });
          if (steps.trigger.exit) $.flow.exit("stopping");
          return { steps };
        },
      };`;
    const m = await mountCode(runtime, code, { n: 4 });
    const r = await m.runAction({ trigger: { event: 1 } });
    expect(r.error).toBeUndefined();
    expect(r.exports).toEqual({ $summary: "did 4", double: 8 });
    expect(r.responds).toEqual([{ status: 202, body: "accepted" }]);
    expect(r.sends.map((s) => s.kind)).toEqual(["http", "email", "s3", "emit", "sse"]);
    expect(r.returnValue).toEqual({ steps: { trigger: { event: 1 } } });
    const exited = await m.runAction({ trigger: { exit: true } });
    expect(exited.flowExit).toEqual({ reason: "stopping" });
    expect(exited.error).toBeUndefined();
    expect(exited.returnValue).toBeUndefined();
    m.dispose();
  });
});

describe("shims and built-in modules", () => {
  it("provides the globals and modules components use", async () => {
    const code = `
      import crypto from "crypto";
      import { Buffer as B } from "buffer";
      import qs from "querystring";
      import util from "util";
      import { EventEmitter } from "events";
      import { axios, DEFAULT_POLLING_SOURCE_TIMER_INTERVAL } from "@pipedream/platform";
      import { defineSource } from "@pipedream/types";
      export default defineSource({
        name: "Shims", version: "0.1.0",
        async run() {
          const u = new URL("https://user:pw@example.com:8443/p/a?x=1#h");
          u.searchParams.append("y", "2 3");
          const ee = new EventEmitter(); let got; ee.once("e", (v) => (got = v)); ee.emit("e", 5);
          await new Promise((r) => setTimeout(r, 2));
          this.$emit({
            url: [u.hostname, u.port, u.pathname, u.search, u.hash, u.origin],
            sp: new URLSearchParams({ a: "1", b: "x y" }).toString(),
            b64: Buffer.from("héllo").toString("base64"), hex: B.from("ff00", "hex").length,
            text: new TextDecoder().decode(new TextEncoder().encode("€uro")),
            ab: [btoa("hi"), atob("aGk=")],
            sha: crypto.createHash("sha256").update("abc").digest("hex"),
            hmac: crypto.createHmac("sha256", "key").update("msg").digest("base64"),
            uuid: /^[0-9a-f-]{36}$/.test(crypto.randomUUID()),
            eq: crypto.timingSafeEqual(Buffer.from("a"), Buffer.from("a")),
            clone: structuredClone({ d: [1, { e: 2 }] }),
            env: process.env.PD_COMPONENT,
            qs: qs.stringify({ a: 1, b: [2, 3] }), fmt: util.format("%s=%d", "n", 4), got,
            interval: DEFAULT_POLLING_SOURCE_TIMER_INTERVAL, axios: typeof axios,
          });
        },
      });`;
    const m = await mountCode(runtime, code, {});
    const r = await m.run({});
    expect(r.error).toBeUndefined();
    expect(r.emits[0]?.event).toEqual({
      url: ["example.com", "8443", "/p/a", "?x=1&y=2+3", "#h", "https://example.com:8443"],
      sp: "a=1&b=x+y",
      b64: Buffer.from("héllo").toString("base64"),
      hex: 2,
      text: "€uro",
      ab: ["aGk=", "hi"],
      sha: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      hmac: require("node:crypto").createHmac("sha256", "key").update("msg").digest("base64"),
      uuid: true,
      eq: true,
      clone: { d: [1, { e: 2 }] },
      env: "dc_test",
      qs: "a=1&b=2&b=3",
      fmt: "n=4",
      got: 5,
      interval: 900,
      axios: "function",
    });
    m.dispose();
  });

  it("routes fetch and axios through the host's fetch bridge", async () => {
    const code = `
      import { axios } from "@pipedream/platform";
      export default {
        name: "Net", version: "0.1.0", type: "action",
        async run({ $ }) {
          const res = await fetch("https://api.example.com/items?x=1", { method: "POST", headers: { "X-A": "b" }, body: JSON.stringify({ a: 1 }) });
          const data = await axios($, { url: "https://api.example.com/users", params: { q: "x", skip: undefined } });
          const full = await axios($, { url: "https://api.example.com/users", returnFullResponse: true });
          let error;
          try { await axios($, { url: "https://api.example.com/missing" }); } catch (e) { error = e.response.status; }
          return { status: res.status, body: await res.json(), data, fullStatus: full.status, error };
        },
      };`;
    const calls: unknown[] = [];
    const m = await mountCode(
      runtime,
      code,
      {},
      {
        fetch: async (req): Promise<BridgeResponse> => {
          calls.push({ url: req.url, method: req.method, headers: req.headers, body: req.body });
          if (req.url.endsWith("/missing")) return { status: 404, headers: {}, body: "{}" };
          return {
            status: 200,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ok: req.url }),
          };
        },
      },
    );
    const r = await m.runAction();
    expect(r.error).toBeUndefined();
    expect(r.returnValue).toEqual({
      status: 200,
      body: { ok: "https://api.example.com/items?x=1" },
      data: { ok: "https://api.example.com/users?q=x" },
      fullStatus: 200,
      error: 404,
    });
    expect(calls[0]).toEqual({
      url: "https://api.example.com/items?x=1",
      method: "POST",
      headers: { "x-a": "b" },
      body: '{"a":1}',
    });
    m.dispose();
  });

  it("loads packages that require Node modules it cannot give; using one throws, naming the call", async () => {
    const loaded = await runtime.load({
      filename: "cp.mjs",
      code: `import cp from "node:child_process"; import threads from "worker_threads"; import { isDate } from "util/types";
        class Worker extends threads.Worker {}
        export default { name: "C", version: "1", run(event) {
          if (event.agent) return new Worker("x.js");
          return [isDate(new Date()), typeof cp.execSync, cp.execSync("gcloud auth print-access-token")];
        } };`,
    });
    const m = await runtime.mount({ id: "dc_cp", bundle: loaded.bundle, props: {} });
    const run = await m.run({});
    expect(run.error).toMatchObject({
      message: "child_process.execSync() is not available in the Hookline sandbox",
    });
    expect((await m.run({ agent: true })).error?.message).toBe(
      "new worker_threads.Worker() is not available in the Hookline sandbox",
    );
    m.dispose();
  });

  it("gives what packages read at load: global, util.deprecate, process.title, diagnostics_channel, Buffer numbers, sqlProxy", async () => {
    const m = await mountCode(
      runtime,
      `import util from "util"; import dc from "node:diagnostics_channel"; import { sqlProxy } from "@pipedream/platform"; import tty from "tty"; import crypto from "crypto";
      const quiet = util.deprecate(() => "still works", "deprecated");
      const traced = dc.tracingChannel("db:query");
      export default { name: "G", version: "1", async run() {
        const seen = [];
        dc.channel("x").subscribe((m) => seen.push(m));
        dc.channel("x").publish(1);
        const buf = Buffer.alloc(16);
        const end = buf.writeInt32BE(-5, 1);
        buf.writeDoubleLE(1.5, 8);
        let range; try { buf.readUInt32LE(14); } catch (e) { range = e.name; }
        let sql; try { sqlProxy.methods.executeQuery(); } catch (e) { sql = e.name + ": " + e.message; }
        const made = new Response("hi", { status: 201, headers: { "x-a": "b" } });
        return [global === globalThis && __dirname === "/" && typeof __filename === "string", quiet(), typeof process.title, traced.traceSync((a, b) => a + b, {}, null, 2, 3),
          traced.hasSubscribers, seen, [end, buf.readInt32BE(1), buf.readUint8(4), buf.readDoubleLE(8), range],
          [process.stdout.fd, process.stderr.isTTY, tty.isatty(2)], sql, [made.status, made.headers.get("x-a"), await made.text()],
          [crypto.getHashes().includes("sha256"), crypto.getCiphers().includes("aes-256-gcm")]];
      } };`,
    );
    expect((await m.run({})).returnValue).toEqual([
      true,
      "still works",
      "string",
      5,
      false,
      [1],
      [5, -5, 251, 1.5, "RangeError"],
      [1, false, false],
      "ConfigurationError: executeQuery not implemented",
      [201, "b", "hi"],
      [true, true],
    ]);
    m.dispose();
  });

  it("gives a data_store prop Pipedream's async key-value API over the dataStore bridge", async () => {
    const stores = new Map<string, Map<string, unknown>>();
    const calls: DataStoreRequest[] = [];
    const dataStore = async (request: DataStoreRequest): Promise<unknown> => {
      calls.push(request);
      const store = stores.get(request.store) ?? new Map<string, unknown>();
      stores.set(request.store, store);
      const key = request.key as string;
      switch (request.op) {
        case "get":
          return store.get(key);
        case "set":
          store.set(key, request.value);
          return undefined;
        case "has":
          return store.has(key);
        case "delete":
          return store.delete(key);
        case "keys":
          return [...store.keys()];
        case "entries":
          return [...store.entries()];
        case "clear":
          store.clear();
          return undefined;
        default:
          return undefined;
      }
    };
    const m = await mountCode(
      runtime,
      `export default { type: "action", name: "D", version: "1", props: { store: { type: "data_store" }, none: { type: "data_store" } },
        async run() {
          await this.store.set("count", { n: 1 }, { ttl: 60 });
          await this.store.set("other", "x");
          const seen = [];
          for await (const [key] of this.store) seen.push(key);
          const before = [await this.store.get("count"), await this.store.has("count"), await this.store.keys(), seen];
          await this.store.delete("other");
          await this.store.setTtl("count", 120);
          const after = [await this.store.entries(), (await this.store.get("missing")) === undefined];
          await this.store.clear();
          let unset; try { await this.none.keys(); } catch (e) { unset = e.message; }
          return [before, after, await this.store.keys(), unset];
        } };`,
      { store: "orders" },
      { dataStore },
    );
    const result = await m.runAction();
    expect(result.error).toBeUndefined();
    expect(result.returnValue).toEqual([
      [{ n: 1 }, true, ["count", "other"], ["count", "other"]],
      [[["count", { n: 1 }]], true],
      [],
      "this data_store prop has no store configured (its value is the store's name)",
    ]);
    expect(calls[0]).toEqual({ store: "orders", op: "set", key: "count", value: { n: 1 }, ttl: 60 });
    expect(calls.find((c) => c.op === "setTtl")).toEqual({
      store: "orders",
      op: "setTtl",
      key: "count",
      ttl: 120,
    });
    m.dispose();
  });

  it("a package's optional dependency that is not installed fails only when required, as in Node", async () => {
    // `try { require("supports-color") } catch {}` is how packages such as debug ask for one,
    // `await import("@node-rs/xxhash")` how redis does.
    const root = mkdtempSync(join(tmpdir(), "hookline-optional-"));
    mkdirSync(join(root, "node_modules", "optional-user"), { recursive: true });
    writeFileSync(
      join(root, "node_modules", "optional-user", "package.json"),
      '{"name":"optional-user","version":"1.0.0","main":"index.js"}',
    );
    writeFileSync(
      join(root, "node_modules", "optional-user", "index.js"),
      `let code; try { require("not-installed-anywhere"); } catch (e) { code = e.code + ": " + e.message; }
       let native; try { require("./build/Release/addon.node"); } catch (e) { native = e.code; }
       const later = import("not-installed-either").then(() => "found", (e) => e.message);
       module.exports = [code, native, later];`,
    );
    const withRoot = createRuntime({ resolvers: [nodeModulesResolver(root)] });
    try {
      const loaded = await withRoot.load({
        filename: "opt.mjs",
        code: `import found from "optional-user"; export default { name: "O", version: "1", async run() { return [found[0], found[1], await found[2]]; } };`,
      });
      const m = await withRoot.mount({ id: "dc_opt", bundle: loaded.bundle, props: {} });
      expect((await m.run({})).returnValue).toEqual([
        "MODULE_NOT_FOUND: Cannot find module 'not-installed-anywhere'",
        "MODULE_NOT_FOUND", // a native addon cannot run in the sandbox
        "Cannot find module 'not-installed-either'", // import(), as redis and discord.js do
      ]);
      m.dispose();
      // The component's own import of a package nobody has still fails the load.
      await expect(
        withRoot.load({
          filename: "own.mjs",
          code: `import x from "not-installed-anywhere"; export default x;`,
        }),
      ).rejects.toMatchObject({ code: "module_not_found" });
    } finally {
      await withRoot.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("loads and runs a TypeScript component", async () => {
    const code = `
      interface Item { id: number; label: string }
      const items: Item[] = [{ id: 1, label: "one" }];
      export default {
        name: "Typed", version: "0.1.0",
        props: { prefix: { type: "string" as const } },
        run(): void { for (const item of items) (this as any).$emit({ text: (this as any).prefix + item.label }, { id: item.id }); },
      };`;
    const m = await mountCode(runtime, code, { prefix: ">" }, {}, "typed.ts");
    expect((await m.run({})).emits).toEqual([
      { event: { text: ">one" }, json: JSON.stringify({ text: ">one" }), meta: { id: 1 } },
    ]);
    m.dispose();
  });
});

describe("load errors", () => {
  it("returns every validation problem with its code and path", async () => {
    await expect(
      runtime.load({
        filename: "bad.mjs",
        code: `export default { name: "Bad", props: { n: { type: "integer", secret: true } }, run() {} };`,
      }),
    ).rejects.toMatchObject({
      code: "invalid_component",
      details: {
        problems: expect.arrayContaining([
          expect.objectContaining({ path: "version" }),
          expect.objectContaining({ path: "props.n.secret" }),
        ]),
      },
    });
  });

  it("names a missing relative file or package", async () => {
    await expect(
      runtime.load({ filename: "a.mjs", code: `import x from "./nope.mjs"; export default x;` }),
    ).rejects.toMatchObject({
      code: "module_not_found",
      message: expect.stringContaining('Cannot find "./nope.mjs"'),
    });
    await expect(
      runtime.load({ filename: "a.mjs", code: `import x from "no-such-package-hl@^1"; export default x;` }),
    ).rejects.toMatchObject({
      code: "module_not_found",
      message: expect.stringContaining('Cannot find package "no-such-package-hl@^1"'),
    });
    await expect(runtime.load({ filename: "a.mjs", code: `export default {` })).rejects.toMatchObject({
      code: "bundle_failed",
    });
  });
});
