// GET /v1/components/{id}/code: the code of a saved component as uploaded (what the web UI's
// Configuration tab edits), scoped like GET /v1/components/{id}.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, MODES, startApi } from "./_harness.js";

const CODE = `// a comment the bundle would not keep
export default {
  key: "http-echo", name: "Echo", version: "1.0.0",
  props: { http: { type: "app", app: "http" } },
  run(event) { this.$emit(event); },
};`;

describe.each(MODES)("component code (%s)", (mode) => {
  let api: Api;
  let otherKey: string;
  beforeAll(async () => {
    api = await startApi(mode);
    const other = await api.hookline.workspaces.create({ name: "globex" });
    otherKey = (await api.hookline.apiKeys.create(other.id)).key;
  });
  afterAll(() => api.close());

  it("returns the uploaded code and file name by id and by key", async () => {
    const saved = await api.call("POST", "/v1/components", {
      body: { component_code: CODE, filename: "echo.mjs" },
    });
    const id = saved.body.data.id as string;
    for (const ref of [id, "http-echo"]) {
      const res = await api.call("GET", `/v1/components/${ref}/code`);
      expect([res.status, res.body.data], ref).toEqual([200, { id, filename: "echo.mjs", code: CODE }]);
    }
    // A deployed source's component_id leads to its code.
    const source = await api.call("POST", "/v1/sources", { body: { component_id: id } });
    const code = await api.call("GET", `/v1/components/${source.body.data.component_id}/code`);
    expect(code.body.data.code).toBe(CODE);
  });

  it("is 404 not_found for an unknown id or another workspace's component, 401 without a key", async () => {
    const saved = await api.call("POST", "/v1/components", { body: { component_code: CODE } });
    const theirs = await api.call("GET", `/v1/components/${saved.body.data.id}/code`, { key: otherKey });
    expect([theirs.status, theirs.body.error.code]).toEqual([404, "not_found"]);
    const unknown = await api.call("GET", "/v1/components/sc_nope/code");
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    const anonymous = await api.call("GET", `/v1/components/${saved.body.data.id}/code`, { key: null });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, "unauthorized"]);
  });
});
