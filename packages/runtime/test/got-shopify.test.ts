/**
 * got 11 (the version SDKs such as shopify-api-node pin) in the sandbox: the real
 * `shopify-api-node` talking to a loopback stand-in of Shopify's API, through the `http` bridge
 * with the shop's host sent to the stand-in. got 11 checks a request body with
 * `instanceof fs.ReadStream`: without that class every request failed before it was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostBridges, Runtime } from "../src/index.js";
import { testRuntime } from "./_helpers.js";
import { loopbackBridges } from "./_net.js";
import { recordingServer, type TestServer } from "./_servers.js";

let runtime: Runtime;
let api: TestServer;
beforeAll(async () => {
  runtime = testRuntime();
  api = await recordingServer((req, res) => {
    if (req.headers["x-shopify-access-token"] !== "shpat_good") {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ errors: "[API] Invalid API key or access token" }));
    } else if (req.url.endsWith("/graphql.json")) {
      const { variables } = JSON.parse(req.body.toString()) as { variables: { id: string } };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: { product: { id: variables.id, title: "Hat" } } }));
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ shop: { name: "Hookline shop" } }));
    }
  });
});
afterAll(async () => {
  await runtime.close();
  await api.close();
});

/** The `http` bridge to Node, with every shop's origin replaced by the stand-in's. */
function toStandIn(): HostBridges {
  const { http, net } = loopbackBridges();
  if (!http) throw new Error("loopbackBridges() gives an http bridge");
  return {
    net,
    http: (request) => {
      const url = new URL(request.url);
      return http({ ...request, url: `${api.url}${url.pathname}${url.search}` });
    },
  };
}

async function run(body: string) {
  const code = [
    `import Shopify from "shopify-api-node";`,
    `import fs from "fs";`,
    `export default { name: "shop", version: "0.1.0", props: {}, async run(event) {`,
    `  const shopify = new Shopify({ shopName: "hookline", accessToken: event.token, apiVersion: "2025-01" });`,
    body,
    `} }`,
  ].join("\n");
  const loaded = await runtime.load({ code, filename: "shop.mjs" });
  const mounted = await runtime.mount({
    id: "dc_shop",
    bundle: loaded.bundle,
    props: {},
    bridges: toStandIn(),
  });
  try {
    return [await mounted.run({ token: "shpat_good" }), await mounted.run({ token: "shpat_bad" })];
  } finally {
    mounted.dispose();
  }
}

describe("got 11 through shopify-api-node", () => {
  it("sends GraphQL and REST requests and reads the answers; a refusal is got's HTTPError", async () => {
    const before = api.seen.length;
    const [ok, refused] = await run(
      [
        `try {`,
        `  const product = await shopify.graphql("query($id: ID!) { product(id: $id) { id title } }", { id: "gid://1" });`,
        `  const shop = await shopify.shop.get();`,
        `  return { product, shop: shop.name };`,
        `} catch (e) { return { name: e.name, message: e.message, status: e.response && e.response.statusCode }; }`,
      ].join("\n"),
    );
    expect(ok?.error).toBeUndefined();
    expect(ok?.returnValue).toEqual({
      product: { product: { id: "gid://1", title: "Hat" } },
      shop: "Hookline shop",
    });
    expect(refused?.returnValue).toEqual({
      name: "HTTPError",
      message: "Response code 401 (Unauthorized)",
      status: 401,
    });
    const seen = api.seen.slice(before);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "POST /admin/api/2025-01/graphql.json",
      "GET /admin/api/2025-01/shop.json",
      "POST /admin/api/2025-01/graphql.json",
    ]);
    expect(JSON.parse(seen[0]?.body.toString() ?? "")).toEqual({
      query: "query($id: ID!) { product(id: $id) { id title } }",
      variables: { id: "gid://1" },
    });
  }, 60_000);

  it("gives fs.ReadStream and fs.WriteStream, the classes of fs's streams", async () => {
    const [ok] = await run(
      [
        `fs.writeFileSync("/tmp/a.txt", "hi");`,
        `const r = fs.createReadStream("/tmp/a.txt");`,
        `const w = new fs.WriteStream("/tmp/b.txt");`,
        `const checks = [r instanceof fs.ReadStream, w instanceof fs.WriteStream, r instanceof fs.WriteStream, {} instanceof fs.ReadStream];`,
        `for await (const chunk of r) checks.push(String(chunk));`,
        `await new Promise((resolve) => w.end("written", resolve));`,
        `checks.push(fs.readFileSync("/tmp/b.txt", "utf8"));`,
        `return checks;`,
      ].join("\n"),
    );
    expect(ok?.error).toBeUndefined();
    expect(ok?.returnValue).toEqual([true, true, false, false, "hi", "written"]);
  }, 60_000);
});
