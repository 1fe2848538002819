/** A webhook URL the SSRF guard refuses is kept, and the answer says so beside `data`, with the way out. */
import { afterEach, describe, expect, it } from "vitest";
import { type Api, MODES, startApi } from "./_harness.js";

let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const REFUSED = /^(\S+) is refused by the SSRF guard: .*--allow-private-urls .*--dev.*allow-list/;

describe.each(MODES)("webhook warnings (%s)", (mode) => {
  it("POST and PATCH warn of a loopback or private URL (literal or resolved), answer 200 and keep it", async () => {
    api = await startApi(mode, { engine: { allowPrivateUrls: false } });
    const created = await api.call("POST", "/v1/webhooks", {
      query: { url: "http://127.0.0.1:9/h", name: "local" },
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ url: "http://127.0.0.1:9/h", name: "local", active: true });
    expect(created.body.warnings).toHaveLength(1);
    expect(created.body.warnings[0]).toMatchObject({ code: "ssrf_blocked", path: "url" });
    expect(created.body.warnings[0].message).toMatch(REFUSED);
    expect(created.body.warnings[0].message).toContain("127.0.0.1");

    // A host name is resolved: localhost is loopback.
    const named = await api.call("POST", "/v1/webhooks", { body: { url: "http://localhost:9/h" } });
    expect(named.body.warnings?.[0]?.message).toMatch(
      /localhost resolves to a private address: (127\.0\.0\.1|::1)/,
    );

    // A public address: no warnings field at all.
    const fine = await api.call("POST", "/v1/webhooks", { body: { url: "https://93.184.216.34/hooks" } });
    expect(fine.status).toBe(200);
    expect(fine.body).not.toHaveProperty("warnings");
    const moved = await api.call("PATCH", `/v1/webhooks/${fine.body.data.id}`, {
      body: { url: "http://10.1.2.3/h" },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.warnings?.[0]?.message).toMatch(REFUSED);
    // A change that leaves the URL alone says nothing; the webhook is listed as created.
    const renamed = await api.call("PATCH", `/v1/webhooks/${fine.body.data.id}`, { body: { name: "n" } });
    expect(renamed.body).not.toHaveProperty("warnings");
    const list = await api.call("GET", "/v1/webhooks");
    expect(list.body.data.map((w: { url: string }) => w.url)).toContain("http://127.0.0.1:9/h");
  });

  it("no warning when the guard lets the address through: allowPrivateUrls, or an allow-list entry", async () => {
    api = await startApi(mode, { engine: { allowPrivateUrls: false, allowList: ["127.0.0.0/8"] } });
    const allowed = await api.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/h" } });
    expect(allowed.body).not.toHaveProperty("warnings");
    const other = await api.call("POST", "/v1/webhooks", { body: { url: "http://192.168.1.1/h" } });
    expect(other.body.warnings?.[0]?.message).toMatch(REFUSED);
    await api.close();
    api = await startApi(mode, { engine: { allowPrivateUrls: true } });
    const open = await api.call("POST", "/v1/webhooks", { body: { url: "http://192.168.1.1/h" } });
    expect(open.body).not.toHaveProperty("warnings");
  });

  it("the OpenAPI document declares warnings on the webhook write routes", async () => {
    api = await startApi(mode);
    const doc = (await api.call("GET", "/v1/openapi.json")).body;
    const schema = (method: string, path: string) =>
      doc.paths[path][method].responses["200"].content["application/json"].schema;
    expect(schema("post", "/v1/webhooks").properties.warnings).toMatchObject({ type: "array" });
    expect(schema("patch", "/v1/webhooks/{id}").properties.warnings).toMatchObject({ type: "array" });
    expect(schema("get", "/v1/webhooks/{id}").properties).not.toHaveProperty("warnings");
  });
});
