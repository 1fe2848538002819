import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { mountCode, testRuntime } from "./_helpers.js";
import { loopbackBridges } from "./_net.js";

let server: http.Server;
let base = "";
const seen: unknown[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ id: "x_1", object: "thing", ok: true, url: req.url }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const runtime = testRuntime();
afterAll(() => runtime.close());
async function run(code: string) {
  const mounted = await mountCode(runtime, code, {}, loopbackBridges());
  const result = await mounted.run({ url: base });
  mounted.dispose();
  return result;
}

it.each([
  ["axios", `import axios from "axios"; export default { name: "x", version: "0.1.0", props: {}, async run(e) {
    const r = await axios.post(e.url + "/a", { hi: 1 }, { adapter: "http", headers: { "x-a": "1" } }); this.$emit(r.data); } }`],
  ["got", `import got from "got"; export default { name: "x", version: "0.1.0", props: {}, async run(e) {
    const r = await got.post(e.url + "/g", { json: { hi: 1 } }).json(); this.$emit(r); } }`],
  ["stripe", `import Stripe from "stripe"; export default { name: "x", version: "0.1.0", props: {}, async run(e) {
    const u = new URL(e.url); const s = new Stripe("sk_test_123", { host: u.hostname, port: u.port, protocol: "http" });
    const r = await s.customers.create({ email: "a@b.c" }); this.$emit(r); } }`],
])("%s", async (_name, code) => {
  const result = await run(code);
  console.log(JSON.stringify(result).slice(0, 1500));
  console.log(JSON.stringify(seen.at(-1)).slice(0, 800));
  expect(result.error).toBeUndefined();
});
