/** docs/rest-api.md says which lists carry `page_info.total_count`; the API does as it says. */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, HTTP_SOURCE, startApi } from "./_harness.js";

let api: Api;
beforeAll(async () => {
  api = await startApi("fetch");
});
afterAll(() => api.close());

describe("page_info.total_count", () => {
  it("is in the lists built in memory and left out of the cursor lists the page names", async () => {
    const page = readFileSync(new URL("../../../docs/rest-api.md", import.meta.url), "utf8");
    const uncounted = /have no `total_count`/.test(page)
      ? [...(/\(([^)]*)\) have no `total_count`/.exec(page)?.[1] ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1])
      : [];
    expect(uncounted).toEqual(["event_summaries", "logs", "deliveries"]);
    const source = await api.call("POST", "/v1/sources", {
      body: { component_code: HTTP_SOURCE, name: "counted" },
    });
    const webhook = await api.call("POST", "/v1/webhooks", { body: { url: "https://93.184.216.34/h" } });
    const paths: Record<string, string> = {
      event_summaries: `/v1/sources/${source.body.data.id}/event_summaries`,
      logs: `/v1/sources/${source.body.data.id}/logs`,
      deliveries: `/v1/webhooks/${webhook.body.data.id}/deliveries`,
    };
    for (const name of uncounted) {
      const res = await api.call("GET", paths[name as string] as string);
      expect(res.status).toBe(200);
      expect(res.body.page_info).not.toHaveProperty("total_count");
    }
    for (const path of [
      "/v1/webhooks",
      "/v1/sources",
      "/v1/subscriptions",
      "/v1/components",
      "/v1/accounts",
    ]) {
      const res = await api.call("GET", path);
      expect(res.body.page_info.total_count, path).toBe(res.body.data.length);
    }
  });
});
