/**
 * Components' Node networking through the engine, as a user deploys them: a source whose `run`
 * uses the Stripe SDK (over `https` with a certificate made for the test) reaches a loopback
 * stand-in through the engine's guarded transport, and the emitted event holds the answer; without
 * `allowPrivateUrls` the same SSRF guard as `fetch` refuses loopback sockets, `https.request` and
 * `dns.lookup`, in both sandbox modes.
 */
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import selfsigned from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHookline, type Hookline } from "../src/index.js";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const packages = { root: REPO_ROOT, registry: false as const };

let stripeApi: https.Server;
let stripePort = 0;
let ca = "";
const seen: { method?: string; url?: string; authorization?: string; body: string }[] = [];
let tcp: net.Server;
let tcpPort = 0;
let tcpConnections = 0;

beforeAll(async () => {
  const pems = await selfsigned.generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
  });
  ca = pems.cert;
  stripeApi = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ id: "cus_123", object: "customer", email: new URLSearchParams(body).get("email") }),
      );
    });
  });
  await new Promise<void>((resolve) => stripeApi.listen(0, "127.0.0.1", resolve));
  stripePort = (stripeApi.address() as AddressInfo).port;
  tcp = net.createServer((socket) => {
    tcpConnections++;
    socket.end();
  });
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  tcpPort = (tcp.address() as AddressInfo).port;
});
afterAll(async () => {
  stripeApi.closeAllConnections();
  await new Promise((resolve) => stripeApi.close(resolve));
  await new Promise((resolve) => tcp.close(resolve));
});

const STRIPE_SOURCE = `import Stripe from "stripe"; import https from "https";
export default {
  name: "New customer", version: "0.1.0",
  props: { apiKey: { type: "string", secret: true }, port: "integer", ca: "string" },
  async run() {
    // A CA for the test's certificate: the agent carries it, as an SDK user would pass one.
    const stripe = new Stripe(this.apiKey, { host: "127.0.0.1", port: this.port, maxNetworkRetries: 0,
      httpAgent: new https.Agent({ ca: this.ca }) });
    const customer = await stripe.customers.create({ email: "ada@example.com" });
    this.$emit(customer, { id: customer.id, summary: "customer " + customer.email });
  },
};`;

describe.each(["thread", "pool"] as const)(
  "a deployed source using an npm SDK, sandboxes in %s mode",
  (mode) => {
    let hookline: Hookline;
    let ws: string;
    beforeAll(async () => {
      hookline = createHookline({
        packages,
        worker: false,
        allowPrivateUrls: true,
        sandboxes: { mode, size: 1 },
      });
      ws = (await hookline.workspaces.create({ name: "acme" })).id;
    });
    afterAll(() => hookline.close());

    it("calls the API with the Stripe SDK over https and emits the answer", async () => {
      const source = await hookline.sources.deploy(ws, {
        code: { code: STRIPE_SOURCE, filename: "stripe-source.mjs" },
        props: { apiKey: "sk_test_hookline", port: stripePort, ca },
      });
      const run = await hookline.sources.run(ws, source.id);
      expect(run.error).toBeUndefined();
      expect(run.emitted.map((e) => e.body)).toEqual([
        { id: "cus_123", object: "customer", email: "ada@example.com" },
      ]);
      expect(seen.at(-1)).toEqual({
        method: "POST",
        url: "/v1/customers",
        authorization: "Bearer sk_test_hookline",
        body: "email=ada%40example.com",
      });
    });
  },
);

const GUARDED = `import net from "net"; import https from "https"; import dns from "dns";
export default {
  name: "Guarded", version: "0.1.0", props: { port: "integer" },
  async run() {
    const socket = await new Promise((resolve) => net.connect(this.port, "127.0.0.1")
      .on("error", (e) => resolve(e.code + ": " + e.message)).on("connect", () => resolve("connected")));
    const named = await new Promise((resolve) => net.connect(this.port, "localhost")
      .on("error", (e) => resolve(e.code)).on("connect", () => resolve("connected")));
    const request = await new Promise((resolve) => https.get("https://127.0.0.1:" + this.port + "/", () => resolve("answered"))
      .on("error", (e) => resolve(e.code)));
    const lookup = await dns.promises.lookup("localhost").then(() => "resolved", (e) => e.code);
    this.$emit({ socket, named, request, lookup });
  },
};`;

describe.each(["thread", "pool"] as const)("the SSRF guard, sandboxes in %s mode", (mode) => {
  let hookline: Hookline;
  let ws: string;
  beforeAll(async () => {
    hookline = createHookline({ packages, worker: false, sandboxes: { mode, size: 1 } });
    ws = (await hookline.workspaces.create({ name: "acme" })).id;
  });
  afterAll(() => hookline.close());

  it("refuses loopback sockets, https requests and lookups without allowPrivateUrls", async () => {
    const before = tcpConnections;
    const source = await hookline.sources.deploy(ws, {
      code: { code: GUARDED, filename: "guarded.mjs" },
      props: { port: tcpPort },
    });
    const run = await hookline.sources.run(ws, source.id);
    expect(run.error).toBeUndefined();
    expect(run.emitted[0]?.body).toEqual({
      socket:
        "ssrf_blocked: Destination address is private: 127.0.0.1 (the Hookline sandbox refuses private and loopback addresses unless the server allows them)",
      named: "ssrf_blocked",
      request: "ssrf_blocked",
      lookup: "ssrf_blocked",
    });
    expect(tcpConnections).toBe(before);
    // Refusals are in the component's logs even when an SDK swallows them.
    const logs = (await hookline.sources.logs(ws, source.id, {})).items.map((l) => `${l.level} ${l.message}`);
    expect(logs).toEqual(
      expect.arrayContaining([
        `warn net.connect 127.0.0.1:${tcpPort} refused: Destination address is private: 127.0.0.1 (the Hookline sandbox refuses private and loopback addresses unless the server allows them)`,
        expect.stringMatching(/^warn GET https:\/\/127\.0\.0\.1:\d+\/ refused: /),
        expect.stringMatching(/^warn dns\.lookup localhost refused: /),
      ]),
    );
  });
});
