// Data stores behind `data_store` props, as on Pipedream: the real @pipedream/data_stores actions
// run as workflow steps and write records that the REST API reads back; a source keeps a counter in
// one; users list, seed and clean stores through /v1/data_stores. In both sandbox modes.
import { fileURLToPath } from "node:url";
import { bundleComponent } from "@hookline/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RestApi, startRestApi } from "./_api.js";

const action = (name: string) =>
  fileURLToPath(
    new URL(`../../node_modules/@pipedream/data_stores/actions/${name}/${name}.mjs`, import.meta.url),
  );

const COUNTER = `export default {
  name: "Counter", version: "0.1.0",
  props: { store: { type: "data_store" } },
  async run(event) {
    const n = ((await this.store.get("count")) ?? 0) + 1;
    await this.store.set("count", n);
    await this.store.set("last", event, { ttl: 3600 });
    const seen = [];
    for await (const [key] of this.store) seen.push(key);
    this.$emit({ n, has: await this.store.has("count"), keys: await this.store.keys(), seen });
  },
};`;

describe.each(["thread", "pool"] as const)("data stores (%s sandboxes)", (mode) => {
  let api: RestApi;
  beforeAll(async () => {
    api = await startRestApi({
      sandboxes: mode === "pool" ? { mode: "pool", size: 1 } : { mode: "thread" },
      limits: { maxDataStoreKeys: 3, maxDataStoreValueBytes: 1024 },
    });
    for (const name of ["add-update-record", "get-record-or-create", "delete-single-record"]) {
      const bundled = await bundleComponent(action(name));
      const published = await api.call("POST", "/v1/components/registry", {
        component_code: bundled.code,
        filename: bundled.filename,
      });
      expect(published.status, published.text).toBe(200);
    }
  }, 120_000);
  afterAll(() => api.close());

  it("a real data_stores action as a workflow step writes a record the REST API reads", async () => {
    const created = await api.call("POST", "/v1/workflows", {
      name: "remember",
      trigger: { type: "manual" },
      steps: [
        {
          name: "save",
          component_key: "data_stores-add-update-record",
          configured_props: {
            dataStore: "customers",
            key: "{{steps.trigger.event.email}}",
            value: '{"plan": "pro", "seats": 3}',
            ttl: 600,
          },
        },
        {
          name: "read",
          component_key: "data_stores-get-record-or-create",
          configured_props: { dataStore: { name: "customers" }, key: "{{steps.trigger.event.email}}" },
        },
      ],
    });
    expect(created.status, created.text).toBe(200);
    const run = await api.call("POST", `/v1/workflows/${created.body.data.id}/run`, {
      event: { email: "ada@example.com" },
    });
    const exe = run.body.data;
    expect(exe.status, JSON.stringify(exe.steps)).toBe("succeeded");
    expect(exe.steps[0]).toMatchObject({
      summary: "Successfully added a new record with the key, `ada@example.com` (expires in 10 minutes).",
      return_value: { key: "ada@example.com", value: { plan: "pro", seats: 3 }, ttl: 600 },
    });
    expect(exe.steps[1]).toMatchObject({ return_value: { plan: "pro", seats: 3 } });

    // The store was created by its first write; REST reads the record and its expiry.
    const store = await api.call("GET", "/v1/data_stores/customers");
    expect(store.body.data).toMatchObject({ name: "customers", record_count: 1 });
    expect(store.body.data.id).toMatch(/^ds_/);
    const record = await api.call("GET", `/v1/data_stores/${store.body.data.id}/records/ada%40example.com`);
    expect(record.status, record.text).toBe(200);
    expect(record.body.data).toMatchObject({ key: "ada@example.com", value: { plan: "pro", seats: 3 } });
    const expires = record.body.data.expires_at - Date.now() / 1000;
    expect(expires).toBeGreaterThan(590);
    expect(expires).toBeLessThanOrEqual(601);
  });

  it("a source keeps state in a data_store prop; users seed and read it through REST", async () => {
    const seeded = await api.call("POST", "/v1/data_stores", { name: "counters" });
    expect(seeded.status, seeded.text).toBe(200);
    const put = await api.call("PUT", "/v1/data_stores/counters/records/count", { value: 41 });
    expect([put.status, put.body.data]).toEqual([
      200,
      expect.objectContaining({ key: "count", value: 41, expires_at: null }),
    ]);

    const deployed = await api.call("POST", "/v1/sources", {
      component_code: COUNTER,
      configured_props: { store: seeded.body.data.id },
    });
    expect(deployed.status, deployed.text).toBe(200);
    expect(deployed.body.data.configured_props.store).toBe(seeded.body.data.id);
    const run = await api.call("POST", `/v1/sources/${deployed.body.data.id}/run`, { event: { hi: 1 } });
    expect(run.status, run.text).toBe(200);
    expect(run.body.data.error, run.text).toBeNull();
    expect(run.body.data.emitted[0].event).toEqual({
      n: 42,
      has: true,
      keys: ["count", "last"],
      seen: ["count", "last"],
    });
    const records = await api.call("GET", "/v1/data_stores/counters/records");
    expect(records.body.data.map((r: { key: string; value: unknown }) => [r.key, r.value])).toEqual([
      ["count", 42],
      ["last", { hi: 1 }],
    ]);
    expect(records.body.data[1].expires_at).toBeGreaterThan(Date.now() / 1000 + 3000);
    expect(records.body.page_info.total_count).toBe(2);
  });

  it("limits and bad input have clear codes; a step past the key cap fails naming it", async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await api.call(method, path, body);
      return [res.status, res.body.error?.code ?? "ok"];
    };
    expect(await call("POST", "/v1/data_stores", { name: "limits" })).toEqual([200, "ok"]);
    expect(await call("POST", "/v1/data_stores", { name: "limits" })).toEqual([409, "conflict"]);
    expect(await call("POST", "/v1/data_stores", { name: "ds_like_an_id" })).toEqual([
      422,
      "invalid_data_store",
    ]);
    expect(await call("POST", "/v1/data_stores", { name: "" })).toEqual([422, "validation_failed"]);
    expect(await call("GET", "/v1/data_stores/nope")).toEqual([404, "not_found"]);
    expect(await call("GET", "/v1/data_stores/limits/records/nope")).toEqual([404, "not_found"]);
    expect(await call("PUT", "/v1/data_stores/limits/records/k", {})).toEqual([422, "validation_failed"]);
    expect(await call("PUT", "/v1/data_stores/limits/records/k", { value: 1, ttl: -1 })).toEqual([
      422,
      "validation_failed",
    ]);
    expect(await call("PUT", "/v1/data_stores/limits/records/k", { value: "x".repeat(2000) })).toEqual([
      413,
      "data_store_value_too_large",
    ]);
    expect(await call("PUT", `/v1/data_stores/limits/records/${"k".repeat(1025)}`, { value: 1 })).toEqual([
      422,
      "invalid_data_store",
    ]);
    for (const key of ["a", "b", "c"])
      expect(await call("PUT", `/v1/data_stores/limits/records/${key}`, { value: key })).toEqual([200, "ok"]);
    expect(await call("PUT", "/v1/data_stores/limits/records/d", { value: "d" })).toEqual([
      409,
      "data_store_full",
    ]);
    expect(await call("PUT", "/v1/data_stores/limits/records/a", { value: "again" })).toEqual([200, "ok"]);

    const created = await api.call("POST", "/v1/workflows", {
      name: "overflow",
      trigger: { type: "manual" },
      retry: { count: 0 }, // fails on its first try (manual runs retry by default)
      steps: [
        {
          name: "save",
          component_key: "data_stores-add-update-record",
          configured_props: { dataStore: "limits", key: "d", value: "d" },
        },
      ],
    });
    const run = await api.call("POST", `/v1/workflows/${created.body.data.id}/run`, { event: {} });
    expect(run.body.data.status).toBe("failed");
    expect(JSON.stringify(run.body.data.steps[0])).toContain(
      "data_store_full: data store limits holds 3 keys",
    );

    const deleted = await api.call("POST", "/v1/workflows", {
      name: "forget",
      trigger: { type: "manual" },
      steps: [
        {
          name: "delete",
          component_key: "data_stores-delete-single-record",
          configured_props: { dataStore: "limits", key: "a" },
        },
      ],
    });
    const ran = await api.call("POST", `/v1/workflows/${deleted.body.data.id}/run`, { event: {} });
    expect(ran.body.data.status, JSON.stringify(ran.body.data.steps)).toBe("succeeded");
    expect(await call("GET", "/v1/data_stores/limits/records/a")).toEqual([404, "not_found"]);
    expect(await call("DELETE", "/v1/data_stores/limits/records/b")).toEqual([200, "ok"]);
    expect(await call("DELETE", "/v1/data_stores/limits/records/b")).toEqual([404, "not_found"]);
    expect(await call("DELETE", "/v1/data_stores/limits")).toEqual([200, "ok"]);
    expect(await call("GET", "/v1/data_stores/limits/records")).toEqual([404, "not_found"]);
    const listed = await api.call("GET", "/v1/data_stores");
    expect(listed.body.data.map((s: { name: string }) => s.name)).not.toContain("limits");
  });
});
