/**
 * Node's `http`/`https` in the sandbox, through the host's `http` bridge: the module as SDKs use
 * it, and real SDKs (axios's Node adapter, got, Stripe, googleapis, form-data) talking to loopback
 * servers, which assert the requests they received.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InvocationResult, Runtime } from "../src/index.js";
import { testRuntime } from "./_helpers.js";
import { loopbackBridges } from "./_net.js";
import { recordingServer, selfSignedCert, type TestServer } from "./_servers.js";

let runtime: Runtime;
let api: TestServer;
let secure: TestServer;
let ca = "";
beforeAll(async () => {
  runtime = testRuntime();
  api = await recordingServer((req, res) => {
    if (req.url.startsWith("/gzip")) {
      res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" });
      res.end(gzipSync("squeezed"));
    } else if (req.url.startsWith("/slow")) setTimeout(() => res.end("late"), 2_000);
    else if (req.url.startsWith("/big")) res.end("x".repeat(4096));
    else {
      res.writeHead(201, {
        "content-type": "application/json",
        "set-cookie": ["a=1", "b=2"],
        "x-twice": ["1", "2"],
      });
      res.end(JSON.stringify({ id: "obj_1", method: req.method, url: req.url }));
    }
  });
  const cert = await selfSignedCert();
  ca = cert.cert;
  secure = await recordingServer(undefined, cert);
});
afterAll(async () => {
  await runtime.close();
  await api.close();
  await secure.close();
});

/** Runs `body` as the `run` of a component importing `imports`, with the test's bridges. */
async function run(imports: string, body: string, event: Record<string, unknown> = {}, limits = {}) {
  const code = `${imports}\nexport default { name: "net", version: "0.1.0", props: {}, async run(event) {\n${body}\n} }`;
  const loaded = await runtime.load({ code, filename: "net.mjs" });
  const mounted = await runtime.mount({
    id: "dc_net",
    bundle: loaded.bundle,
    props: {},
    bridges: loopbackBridges(),
    limits,
  });
  try {
    return await mounted.run({ api: api.url, secure: secure.url, ca, ...event });
  } finally {
    mounted.dispose();
  }
}

function emitted(result: InvocationResult): unknown {
  expect(result.error).toBeUndefined();
  return result.emits[0]?.event;
}

const COLLECT = `function collect(res) { return new Promise((resolve, reject) => { const chunks = [];
  res.on("data", (c) => chunks.push(c)); res.on("end", () => resolve(Buffer.concat(chunks))); res.on("error", reject); }); }`;

describe("the http module", () => {
  it("sends a request with its headers and body and reads the response as Node shapes it", async () => {
    const result = await run(
      `import http from "node:http";\n${COLLECT}`,
      `const out = await new Promise((resolve, reject) => {
        const req = http.request(event.api + "/things?x=1", { method: "POST", headers: { "X-Custom": "yes" } }, async (res) => {
          const order = ["response"];
          res.on("end", () => order.push("end"));
          const body = await collect(res);
          resolve({ order, status: res.statusCode, message: res.statusMessage, cookies: res.headers["set-cookie"],
            twice: res.headers["x-twice"], raw: res.rawHeaders.length > 0, version: res.httpVersion, body: JSON.parse(body) });
        });
        req.on("error", reject);
        req.setHeader("Content-Type", "text/plain");
        req.write("hello ");
        req.end("world");
      });
      this.$emit(out);`,
    );
    expect(emitted(result)).toEqual({
      order: ["response", "end"],
      status: 201,
      message: "Created",
      cookies: ["a=1", "b=2"],
      twice: "1, 2",
      raw: true,
      version: "1.1",
      body: { id: "obj_1", method: "POST", url: "/things?x=1" },
    });
    const seen = api.seen.at(-1);
    expect(seen?.body.toString()).toBe("hello world");
    expect(seen?.headers).toMatchObject({
      "x-custom": "yes",
      "content-type": "text/plain",
      "content-length": "11",
    });
  });

  it("has Node's tables, validators, agents and http2 constants", async () => {
    const result = await run(
      `import http from "http"; import https from "https"; import http2 from "http2";`,
      `class Keep extends https.Agent { constructor() { super({ keepAlive: true }); this.mine = true; } }
      function Old(options) { http.Agent.call(this, options); }
      Old.prototype = Object.create(http.Agent.prototype);
      let refused = null;
      try { http.validateHeaderName("bad name"); } catch (e) { refused = e.code; }
      let badValue = null;
      try { http.validateHeaderValue("x", "a\\nb"); } catch (e) { badValue = e.code; }
      this.$emit({ methods: http.METHODS.includes("PATCH"), teapot: http.STATUS_CODES[418], refused, badValue,
        keep: new Keep().mine && new Keep() instanceof https.Agent, old: new Old({ keepAlive: true }).keepAlive,
        global: http.globalAgent instanceof http.Agent, status: http2.constants.HTTP2_HEADER_STATUS,
        server: (() => { try { http.createServer(); } catch (e) { return e.code; } })() });`,
    );
    expect(emitted(result)).toEqual({
      methods: true,
      teapot: "I'm a Teapot",
      refused: "ERR_INVALID_HTTP_TOKEN",
      badValue: "ERR_INVALID_CHAR",
      keep: true,
      old: true,
      global: true,
      status: ":status",
      server: "ERR_NOT_AVAILABLE_IN_SANDBOX",
    });
  });

  it("leaves a gzip body compressed, as Node does", async () => {
    const result = await run(
      `import http from "http"; import zlib from "zlib";\n${COLLECT}`,
      `const res = await new Promise((resolve) => http.get(event.api + "/gzip", resolve));
      const body = await collect(res);
      this.$emit({ encoding: res.headers["content-encoding"], magic: body[0] === 0x1f && body[1] === 0x8b,
        text: zlib.gunzipSync(body).toString() });`,
    );
    expect(emitted(result)).toEqual({ encoding: "gzip", magic: true, text: "squeezed" });
  });

  it("emits timeout when no answer comes in time, and the caller aborts", async () => {
    const result = await run(
      `import http from "http";`,
      `const events = [];
      await new Promise((resolve) => {
        const req = http.get(event.api + "/slow");
        req.setTimeout(50, () => { events.push("timeout"); req.destroy(new Error("gave up")); });
        req.on("response", () => events.push("response"));
        req.on("error", (e) => events.push("error: " + e.message));
        req.on("close", () => { events.push("close"); resolve(); });
      });
      this.$emit(events);`,
    );
    expect(emitted(result)).toEqual(["timeout", "error: gave up", "close"]);
  });

  it("reports a refused connection with Node's code", async () => {
    const result = await run(
      `import http from "http";`,
      `const code = await new Promise((resolve) => http.get("http://127.0.0.1:1/", () => resolve("answered")).on("error", (e) => resolve(e.code)));
      this.$emit(code);`,
    );
    expect(emitted(result)).toBe("ECONNREFUSED");
  });

  it("refuses a response past limits.httpResponseBytes", async () => {
    const result = await run(
      `import http from "http";`,
      `this.$emit(await new Promise((resolve) => http.get(event.api + "/big", () => resolve("answered")).on("error", (e) => resolve(e.code))));`,
      {},
      { httpResponseBytes: 1024 },
    );
    expect(emitted(result)).toBe("ERR_SANDBOX_RESPONSE_TOO_LARGE");
  });
});

describe("https with a certificate made for the test", () => {
  const GET = `function get(url, options) { return new Promise((resolve) => {
    https.get(url, options, (res) => { res.resume(); res.on("end", () => resolve(res.statusCode)); }).on("error", (e) => resolve(e.code)); }); }`;

  it("trusts the server through `ca` (on the request or the agent), refuses it without", async () => {
    const result = await run(
      `import https from "https";\n${GET}`,
      `this.$emit({
        withCa: await get(event.secure + "/a", { ca: event.ca }),
        agentCa: await get(event.secure + "/b", { agent: new https.Agent({ ca: event.ca }) }),
        without: await get(event.secure + "/c", {}),
        unchecked: await get(event.secure + "/d", { rejectUnauthorized: false }),
      });`,
    );
    expect(emitted(result)).toEqual({
      withCa: 200,
      agentCa: 200,
      without: "DEPTH_ZERO_SELF_SIGNED_CERT",
      unchecked: 200,
    });
    expect(secure.seen.map((s) => s.url)).toEqual(["/a", "/b", "/d"]);
  });
});

describe("real SDKs over the http module", () => {
  it("axios with its Node adapter", async () => {
    const result = await run(
      `import axios from "axios";`,
      `const res = await axios.post(event.api + "/axios", { hello: "world" }, { headers: { "x-sdk": "axios" } });
      this.$emit({ status: res.status, data: res.data });`,
    );
    expect(emitted(result)).toEqual({ status: 201, data: { id: "obj_1", method: "POST", url: "/axios" } });
    const seen = api.seen.at(-1);
    expect(JSON.parse(seen?.body.toString() ?? "")).toEqual({ hello: "world" });
    expect(seen?.headers).toMatchObject({ "x-sdk": "axios", "content-type": "application/json" });
    expect(seen?.headers["user-agent"]).toMatch(/^axios\//);
  });

  it("got", async () => {
    const result = await run(
      `import got from "got";`,
      `this.$emit(await got.put(event.api + "/got", { json: { n: 1 }, headers: { "x-sdk": "got" } }).json());`,
    );
    expect(emitted(result)).toEqual({ id: "obj_1", method: "PUT", url: "/got" });
    expect(api.seen.at(-1)).toMatchObject({ headers: { "x-sdk": "got" } });
    expect(api.seen.at(-1)?.body.toString()).toBe('{"n":1}');
  });

  it("the Stripe SDK", async () => {
    const result = await run(
      `import Stripe from "stripe";`,
      `const url = new URL(event.api);
      const stripe = new Stripe("sk_test_hookline", { host: url.hostname, port: url.port, protocol: "http", maxNetworkRetries: 0 });
      const customer = await stripe.customers.create({ email: "ada@example.com", metadata: { plan: "pro" } });
      this.$emit({ id: customer.id, url: customer.url });`,
    );
    expect(emitted(result)).toEqual({ id: "obj_1", url: "/v1/customers" });
    const seen = api.seen.at(-1);
    expect(seen?.headers.authorization).toBe("Bearer sk_test_hookline");
    expect(new URLSearchParams(seen?.body.toString())).toEqual(
      new URLSearchParams("email=ada%40example.com&metadata[plan]=pro"),
    );
  });

  it("googleapis (@googleapis/drive over gaxios and node-fetch)", async () => {
    const result = await run(
      `import { drive } from "@googleapis/drive";`,
      `const client = drive({ version: "v3", rootUrl: event.api + "/" });
      const res = await client.files.list({ pageSize: 5, q: "trashed = false", access_token: "ya29.token" });
      this.$emit({ status: res.status, data: res.data });`,
    );
    expect(emitted(result)).toMatchObject({ status: 201, data: { id: "obj_1", method: "GET" } });
    const seen = api.seen.at(-1);
    const url = new URL(seen?.url ?? "", api.url);
    expect(url.pathname).toBe("/drive/v3/files");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ pageSize: "5", q: "trashed = false" });
    expect(seen?.headers["accept-encoding"]).toMatch(/gzip/);
  });

  it("a form-data upload, through axios and piped into http.request", async () => {
    const result = await run(
      `import axios from "axios"; import FormData from "form-data"; import http from "http";`,
      `const form = new FormData();
      form.append("note", "hi");
      form.append("file", Buffer.from("file body"), { filename: "a.txt", contentType: "text/plain" });
      await axios.post(event.api + "/upload-axios", form);
      const piped = new FormData();
      piped.append("field", "value");
      const status = await new Promise((resolve, reject) => {
        const req = http.request(event.api + "/upload-pipe", { method: "POST", headers: piped.getHeaders() }, (res) => { res.resume(); resolve(res.statusCode); });
        req.on("error", reject);
        piped.pipe(req);
      });
      this.$emit(status);`,
    );
    expect(emitted(result)).toBe(201);
    const [viaAxios, viaPipe] = api.seen.slice(-2);
    const boundary = (seen: typeof viaAxios) =>
      /boundary=(.+)$/.exec(String(seen?.headers["content-type"]))?.[1];
    expect(viaAxios?.url).toBe("/upload-axios");
    expect(viaAxios?.body.toString()).toContain(`--${boundary(viaAxios)}`);
    expect(viaAxios?.body.toString()).toContain(
      'name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nfile body',
    );
    expect(viaAxios?.body.toString()).toContain('name="note"\r\n\r\nhi');
    expect(viaPipe?.url).toBe("/upload-pipe");
    expect(viaPipe?.body.toString()).toContain('name="field"\r\n\r\nvalue');
    expect(
      viaPipe?.body
        .toString()
        .trimEnd()
        .endsWith(`--${boundary(viaPipe)}--`),
    ).toBe(true);
  });
});
