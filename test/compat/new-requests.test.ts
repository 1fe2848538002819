// Pipedream's flagship HTTP source, "New Requests" (`http-new-requests`), has this shape: an `http`
// app file imported by relative path, a custom-response HTTP interface, and optional props with
// defaults for the response: a string status code ("200"), a content type, a body, and a toggle
// to emit the body only. It must deploy unchanged through REST and answer as configured.
// (@pipedream/http is not published on npm, so the shape is written here.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleFiles, type RestApi, startRestApi } from "./_api.js";

const HTTP_APP = `export default {
  type: "app",
  app: "http",
  propDefinitions: {},
};
`;

const NEW_REQUESTS = `import http from "../../http.app.mjs";

export default {
  key: "http-new-requests",
  name: "New Requests",
  description: "Get a URL and emit the HTTP event on every request; configure the response.",
  version: "0.1.1",
  type: "source",
  props: {
    httpInterface: { type: "$.interface.http", customResponse: true },
    emitBodyOnly: {
      type: "boolean",
      label: "Body Only",
      description: "Emit the body only instead of the whole request",
      optional: true,
      default: false,
    },
    resStatusCode: {
      type: "string",
      label: "Response Status Code",
      description: "The status code of the HTTP response",
      optional: true,
      default: "200",
    },
    resContentType: {
      type: "string",
      label: "Response Content-Type",
      description: "The Content-Type of the response body",
      optional: true,
      default: "application/json",
    },
    resBody: {
      type: "string",
      label: "Response Body",
      description: "The body of the HTTP response",
      optional: true,
      default: '{ "success": true }',
    },
    http,
  },
  async run(event) {
    const summary = event.method + " " + event.path;
    this.httpInterface.respond({
      status: this.resStatusCode,
      body: this.resBody,
      headers: { "content-type": this.resContentType },
    });
    if (this.emitBodyOnly) this.$emit(event.body, { summary });
    else this.$emit(event, { summary });
  },
};
`;

let api: RestApi;
beforeAll(async () => {
  api = await startRestApi();
});
afterAll(() => api.close());

describe("New Requests (http-new-requests)", () => {
  it("deploys unchanged with its app file, answers with the configured response, emits the request", async () => {
    const code = await bundleFiles(
      { "http.app.mjs": HTTP_APP, "sources/new-requests/new-requests.mjs": NEW_REQUESTS },
      "sources/new-requests/new-requests.mjs",
    );
    const deployed = await api.call("POST", "/v1/sources", code);
    expect(deployed.status).toBe(200);
    expect(deployed.body.warnings).toBeUndefined();
    const endpoint = new URL(deployed.body.data.endpoint_url as string).pathname;

    // Defaults: 200 with a JSON body, the whole request emitted.
    const hit = await api.raw(`${endpoint}/orders?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: 7 }),
    });
    expect(hit.status).toBe(200);
    expect(hit.headers.get("content-type")).toContain("application/json");
    expect(hit.body).toEqual({ success: true });
    const events = await api.call("GET", `/v1/sources/${deployed.body.data.id}/event_summaries?expand=event`);
    expect(events.body.data[0].event).toMatchObject({
      method: "POST",
      path: "/orders",
      query: { x: "1" },
      body: { id: 7 },
    });
    expect(events.body.data[0].metadata.summary).toBe("POST /orders");

    // Configured: a string status, a content type, a body, and the body only.
    const updated = await api.call("PUT", `/v1/sources/${deployed.body.data.id}`, {
      configured_props: {
        resStatusCode: "202",
        resContentType: "text/plain",
        resBody: "queued",
        emitBodyOnly: true,
      },
    });
    expect(updated.status).toBe(200);
    const second = await api.raw(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: 8 }),
    });
    expect([second.status, second.headers.get("content-type"), second.text]).toEqual([
      202,
      "text/plain",
      "queued",
    ]);
    const after = await api.call("GET", `/v1/sources/${deployed.body.data.id}/event_summaries?expand=event`);
    expect(after.body.data[0].event).toEqual({ id: 8 });
  });
});
