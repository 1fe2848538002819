// Deactivating and reactivating a source over REST (issue 14, item 6: `{"active": true}` alone
// answered 500), through the fetch handler and a real node:http server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, HTTP_SOURCE, MODES, startApi } from "./_harness.js";

describe.each(MODES)("PUT /v1/sources/{id} with only active, through %s", (mode) => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(() => api.close());

  it("deactivates, then reactivates the source, whose endpoint answers again", async () => {
    const created = await api.call("POST", "/v1/sources", { body: { component_code: HTTP_SOURCE } });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    const endpoint = new URL(created.body.data.endpoint_url as string).pathname;
    const post = () =>
      api.raw(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });

    const off = await api.call("PUT", `/v1/sources/${id}`, { body: { active: false } });
    expect([off.status, off.body.data.active]).toEqual([200, false]);
    expect((await post()).status).toBe(404);

    const on = await api.call("PUT", `/v1/sources/${id}`, { body: { active: true } });
    expect([on.status, on.body.data.active]).toEqual([200, true]);
    const hit = await post();
    expect([hit.status, await hit.json()]).toEqual([200, { success: true }]);

    const again = await api.call("PUT", `/v1/sources/${id}`, { query: { active: "true" } });
    expect([again.status, again.body.data.active]).toEqual([200, true]);
  });
});
