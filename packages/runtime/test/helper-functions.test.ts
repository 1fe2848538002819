import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { HostBridges } from "../src/index.js";
import { REPO_ROOT, testRuntime } from "./_helpers.js";

// Real, unchanged actions from the npm package @pipedream/helper_functions. Their undeclared
// imports (moment, moment-timezone, lodash.set, xml-js) come from the repository's node_modules.
const PACKAGE = join(REPO_ROOT, "node_modules/@pipedream/helper_functions");
const APP = readFileSync(join(PACKAGE, "helper_functions.app.mjs"), "utf8");
const runtime = testRuntime();
afterAll(() => runtime.close());

async function action(name: string, props: Record<string, unknown>, bridges: HostBridges = {}) {
  const filename = `${name}.mjs`;
  const code = readFileSync(join(PACKAGE, "actions", name, filename), "utf8");
  const loaded = await runtime.load({ code, filename, files: { "../../helper_functions.app.mjs": APP } });
  expect(loaded.description.type).toBe("action");
  const appProp = Object.entries(loaded.description.props).find(([, p]) => p.type === "app")?.[0] as string;
  return runtime.mount({
    id: `dc_${name}`,
    bundle: loaded.bundle,
    props: { [appProp]: { $auth: {} }, ...props },
    bridges,
  });
}

async function run(name: string, props: Record<string, unknown>, bridges?: HostBridges) {
  const mounted = await action(name, props, bridges);
  const result = await mounted.runAction({});
  mounted.dispose();
  expect(result.error).toBeUndefined();
  return result;
}

describe("@pipedream/helper_functions actions, unchanged", () => {
  it("base64-decode-string", async () => {
    const r = await run("base64-decode-string", { data: Buffer.from("Hookline ✓").toString("base64") });
    expect(r.exports).toEqual({ data: "Hookline ✓" });
  });

  it("convert-object-to-json-string", async () => {
    const r = await run("convert-object-to-json-string", { object: { a: [1, 2], b: "c" } });
    expect(r.returnValue).toBe('{"a":[1,2],"b":"c"}');
  });

  it("delay", async () => {
    const started = Date.now();
    const r = await run("delay", { ms: "30" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(r.exports).toEqual({ $summary: "Workflow successfully delayed for 30 ms" });
  });

  it("export-variables, and its ConfigurationError", async () => {
    const r = await run("export-variables", { config: '{"x": 1, "y": [true]}' });
    expect(r.exports).toEqual({ config: { x: 1, y: [true] } });
    const bad = await action("export-variables", { config: "{not json" });
    const failed = await bad.runAction({});
    expect(failed.error).toMatchObject({
      code: "configuration_error",
      message: "Make sure the custom expression contains a valid object",
    });
    bad.dispose();
  });

  it("format-iso8601-datetime (moment)", async () => {
    const r = await run("format-iso8601-datetime", { iso8601: "2024-03-05T14:07:09Z" });
    expect(r.returnValue).toEqual({
      date_time: "03/05/2024 2:07:09 pm",
      date: "03/05/2024",
      time: "2:07:09 pm",
    });
  });

  it("get-coutry-name-by-code-iso", async () => {
    const r = await run("get-coutry-name-by-code-iso", { countryCode: "AR" });
    expect(r.returnValue).toBe("Argentina");
  });

  it("get-time-in-specific-timezone (moment-timezone)", async () => {
    const r = await run("get-time-in-specific-timezone", {
      time: "2024-07-01T12:00:00Z",
      timezone: "Asia/Tokyo",
    });
    expect(r.returnValue).toBe("2024-07-01T21:00:00+09:00");
  });

  it("get-current-time-in-specific-timezone (moment-timezone)", async () => {
    const r = await run("get-current-time-in-specific-timezone", {
      timezone: "America/Argentina/Buenos_Aires",
    });
    expect(r.returnValue).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-03:00$/);
    expect(Math.abs(Date.parse(r.returnValue as string) - Date.now())).toBeLessThan(60_000);
  });

  it("get-iso-string-n-days-ago (moment)", async () => {
    const r = await run("get-iso-string-n-days-ago", { days: "3" });
    const date = Date.parse(r.exports.date as string);
    expect(Math.abs(Date.now() - 3 * 86_400_000 - date)).toBeLessThan(60_000);
  });

  it("prettify-json (lodash.set)", async () => {
    // It only sets this.prettifiedValue (lodash.set on `this`): it must run without error and return nothing.
    const r = await run("prettify-json", { val: "x" });
    expect(r.returnValue).toBeUndefined();
    expect(r.exports).toEqual({});
  });

  it("xml-to-json (xml-js)", async () => {
    const r = await run("xml-to-json", { input: '<a><b x="1">hi</b></a>', compact: true, spaces: 0 });
    expect(r.returnValue).toEqual({ a: { b: { _attributes: { x: "1" }, _text: "hi" } } });
    expect(r.exports).toEqual({ $summary: "Successfully converted XML to JSON" });
  });

  it("send-to-s3 ($.send.s3)", async () => {
    const r = await run("send-to-s3", { bucket: "my-bucket", prefix: "events/", payload: { a: 1 } });
    expect(r.sends).toEqual([
      { kind: "s3", payload: { bucket: "my-bucket", prefix: "events/", payload: { a: 1 } } },
    ]);
  });

  it("convert-currency (@pipedream/platform axios, async options) over a fake fetch bridge", async () => {
    const seen: string[] = [];
    const fetch: HostBridges["fetch"] = async (req) => {
      seen.push(req.url);
      const body = req.url.includes("/currencies")
        ? { EUR: "Euro", USD: "United States Dollar" }
        : { amount: 10, base: "EUR", rates: { USD: 10.8 } };
      return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    };
    const props = { fromCurrency: "EUR", toCurrency: "USD", value: "10" };
    const mounted = await action("convert-currency", props, { fetch });
    const options = await mounted.options("fromCurrency", {});
    expect(options.returnValue).toEqual({
      options: [
        { value: "EUR", label: "Euro" },
        { value: "USD", label: "United States Dollar" },
      ],
    });
    const r = await mounted.runAction({});
    expect(r.exports).toEqual({ $summary: "10 EUR = 10.8 USD" });
    expect(seen).toEqual([
      "https://api.frankfurter.app/currencies",
      "https://api.frankfurter.app/latest?from=EUR&to=USD&amount=10",
    ]);
    mounted.dispose();
  });

  it("send-http-request: the http_request prop's execute() sends the configured request through fetch", async () => {
    const seen: Parameters<NonNullable<HostBridges["fetch"]>>[0][] = [];
    const fetch: HostBridges["fetch"] = async (req) => {
      seen.push(req);
      const ok = !req.url.includes("/refused");
      return {
        status: ok ? 201 : 401,
        statusText: ok ? "Created" : "Unauthorized",
        headers: { "content-type": "application/json", "x-id": "r1" },
        body: JSON.stringify(ok ? { id: "r1" } : { error: "bad token" }),
      };
    };
    // Pipedream's request builder keeps headers and params as name-value lists, the body as fields.
    const httpRequest = {
      method: "POST",
      url: "https://hooks.example.com/in?x=1",
      headers: [
        { name: "X-Trace", value: "t1" },
        { name: "", value: "ignored" },
      ],
      params: [{ name: "q", value: "a b" }],
      auth: { type: "basic", username: "u", password: "p" },
      body: {
        type: "fields",
        fields: [
          { name: "hello", value: "world" },
          { name: "n", value: 2 },
        ],
      },
    };
    const r = await run("send-http-request", { httpRequest }, { fetch });
    expect(r.returnValue).toEqual({
      status: 201,
      statusText: "Created",
      headers: { "content-type": "application/json", "x-id": "r1" },
      data: { id: "r1" },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "https://hooks.example.com/in?x=1&q=a+b",
      headers: {
        "x-trace": "t1",
        authorization: `Basic ${Buffer.from("u:p").toString("base64")}`,
        "content-type": "application/json",
      },
      body: '{"hello":"world","n":2}',
    });

    // A raw body with its content type, a bearer token; a refusal rejects as axios does.
    const refused = await action(
      "send-http-request",
      {
        httpRequest: {
          method: "put",
          url: "https://hooks.example.com/refused",
          headers: { Accept: "text/plain" },
          auth: { type: "bearer", token: "tok" },
          body: { type: "raw", contentType: "text/csv", raw: "a,b\n1,2" },
        },
      },
      { fetch },
    );
    const failed = await refused.runAction({});
    refused.dispose();
    expect(failed.error).toMatchObject({ name: "Error", message: "Request failed with status code 401" });
    expect(seen[1]).toMatchObject({
      method: "PUT",
      url: "https://hooks.example.com/refused",
      headers: { accept: "text/plain", authorization: "Bearer tok", "content-type": "text/csv" },
      body: "a,b\n1,2",
    });

    // Without a URL (the action's default is only `{ method: "POST" }`): a clear error, no request.
    const bare = await action("send-http-request", { httpRequest: { method: "POST" } }, { fetch });
    const none = await bare.runAction({});
    bare.dispose();
    expect(none.error).toMatchObject({
      name: "TypeError",
      message: "this http_request prop has no URL configured",
    });
    expect(seen).toHaveLength(2);
  });
});
