// Each class of failure real Pipedream components met (issue 17's list), through the REST API on a
// real node:http server: what used to be refused now saves and deploys, with warnings where SPEC's
// rule is broken, and strict publishing still refuses it.
import { fileURLToPath } from "node:url";
import { bundleComponent } from "@hookline/cli";
import { createFakeClock } from "@hookline/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleFiles, type RestApi, startRestApi } from "./_api.js";

const clock = createFakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
let api: RestApi;
beforeAll(async () => {
  api = await startRestApi({ clock });
});
afterAll(() => api.close());

const codes = (list: { code: string; path: string }[] | undefined) =>
  (list ?? []).map((w) => [w.code, w.path]);

describe("1. a default on a required prop", () => {
  it("deploys with a default_on_required warning, and the default is the value", async () => {
    const deployed = await api.call("POST", "/v1/sources", {
      component_code: `export default {
        name: "Greeter", version: "0.1.0",
        props: { greeting: { type: "string", label: "Greeting", default: "hi" } },
        run() { this.$emit({ greeting: this.greeting }); },
      };`,
    });
    expect(deployed.status).toBe(200);
    expect(codes(deployed.body.warnings)).toEqual([["default_on_required", "props.greeting.default"]]);
    expect(deployed.body.warnings[0].message).toMatch(/optional/);
    const run = await api.call("POST", `/v1/sources/${deployed.body.data.id}/run`);
    expect(run.body.data.emitted[0].event).toEqual({ greeting: "hi" });
  });

  it("saves the real helper_functions-compare-arrays action (required props with defaults)", async () => {
    const file = new URL(
      "../../node_modules/@pipedream/helper_functions/actions/compare-arrays/compare-arrays.mjs",
      import.meta.url,
    );
    const bundled = await bundleComponent(fileURLToPath(file));
    const saved = await api.call("POST", "/v1/components", {
      component_code: bundled.code,
      filename: bundled.filename,
    });
    expect(saved.status).toBe(200);
    expect(saved.body.data.key).toBe("helper_functions-compare-arrays");
    expect(codes(saved.body.warnings)).toEqual([
      ["default_on_required", "props.array1.default"],
      ["default_on_required", "props.array2.default"],
    ]);
    const strict = await api.call("POST", "/v1/components", {
      component_code: bundled.code,
      filename: bundled.filename,
      strict: true,
    });
    expect([strict.status, strict.body.error.code]).toEqual([422, "invalid_component"]);
    expect(codes(strict.body.error.details.problems)).toEqual(codes(saved.body.warnings));
  });
});

describe("3. prop types SPEC does not list", () => {
  it("deploys a source with an apphook, a dir, an alert and app-specific types, described for forms", async () => {
    const deployed = await api.call("POST", "/v1/sources", {
      component_code: `export default {
        name: "Channel Watch", version: "0.1.0",
        props: {
          discord: { type: "app", app: "discord", optional: true },
          notice: { type: "alert", alertType: "info", content: "Pick the channels to watch." },
          hook: { type: "$.interface.apphook", appProp: "discord", async eventNames() { return ["message"]; } },
          files: { type: "dir", accessMode: "write", sync: true, optional: true },
          channel: { type: "$.discord.channel", label: "Channel" },
          others: { type: "$.discord.channel[]", label: "Other channels", optional: true },
        },
        run(event) { this.$emit({ event, channel: this.channel, others: this.others }); },
      };`,
      configured_props: { channel: 42, others: "general" },
    });
    expect(deployed.status).toBe(200);
    expect(codes(deployed.body.warnings)).toEqual([
      ["unknown_prop_type", "props.channel.type"],
      ["unknown_prop_type", "props.others.type"],
    ]);
    // Taken as a string and a string array.
    expect(deployed.body.data.configured_props).toMatchObject({ channel: "42", others: ["general"] });
    const component = await api.call("GET", `/v1/components/${deployed.body.data.component_id}`);
    const props = Object.fromEntries(
      (component.body.data.configurable_props as { name: string; valueType?: string }[]).map((p) => [
        p.name,
        p.valueType,
      ]),
    );
    expect(props).toEqual({
      discord: undefined,
      notice: "none",
      hook: "none",
      files: "none",
      channel: "string",
      others: "string",
    });
    const run = await api.call("POST", `/v1/sources/${deployed.body.data.id}/run`, { event: { n: 1 } });
    expect(run.body.data.emitted[0].event).toMatchObject({ channel: "42", others: ["general"] });
  });

  it("saves an action with an http_request, a data_store and a sql prop; checks their values' types", async () => {
    const saved = await api.call("POST", "/v1/components", {
      component_code: `export default {
        type: "action", name: "Send Request", version: "0.1.0",
        props: {
          httpRequest: { type: "http_request", label: "Request", default: { method: "GET", url: "https://example.com" } },
          store: { type: "data_store", label: "Data Store" },
          query: { type: "sql", auth: { app: "postgresql" }, optional: true },
        },
        async run({ $ }) { return this.httpRequest; },
      };`,
    });
    expect(saved.status).toBe(200);
    expect(saved.body.warnings).toEqual([
      expect.objectContaining({ code: "default_on_required", path: "props.httpRequest.default" }),
    ]);
    const described = Object.fromEntries(
      (saved.body.data.configurable_props as { name: string }[]).map(({ name, ...p }) => [name, p]),
    );
    expect(described.httpRequest).toMatchObject({ type: "http_request", valueType: "object" });
    expect(described.store).toMatchObject({ type: "data_store", valueType: "string" });
    expect(described.query).toMatchObject({ type: "sql", valueType: "any" });
    // An http_request default that is not an object is refused, as any default of the wrong type.
    const wrong = await api.call("POST", "/v1/components", {
      component_code: `export default { type: "action", name: "Bad", version: "0.1.0",
        props: { req: { type: "http_request", optional: true, default: "GET /" } }, run() {} };`,
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([422, "invalid_component"]);
    expect(codes(wrong.body.error.details.problems)).toEqual([["invalid_type", "props.req.default"]]);
  });

  it("refuses unknown types that are not app-specific, and the new types where they do not belong", async () => {
    for (const [props, code, path] of [
      [`{ p: { type: "$.interface.ftp" } }`, "unknown_prop_type", "props.p.type"],
      [`{ p: { type: "http_request" } }`, "action_only", "props.p.type"],
      [`{ p: { type: "$.interface.apphook" } }`, "required", "props.p.appProp"],
    ] as const) {
      const res = await api.call("POST", "/v1/sources", {
        component_code: `export default { name: "X", version: "1", props: ${props}, run() {} };`,
      });
      expect([res.status, res.body.error.code]).toEqual([422, "invalid_component"]);
      expect(codes(res.body.error.details.problems)).toEqual([[code, path]]);
    }
  });
});

describe("4. sources without run", () => {
  it("a schedule source (a timer from the app's propDefinition, no run) emits each timer event", async () => {
    const code = await bundleFiles(
      {
        "schedule.app.mjs": `export default {
  type: "app",
  app: "schedule",
  propDefinitions: { cron: { type: "$.interface.timer", label: "Schedule", description: "When to run" } },
};
`,
        "sources/daily/daily.mjs": `import schedule from "../../schedule.app.mjs";
export default {
  key: "schedule-daily",
  name: "Daily schedule",
  version: "0.0.1",
  type: "source",
  props: { schedule, cron: { propDefinition: [schedule, "cron"], default: { cron: "0 11 * * *" } } },
};
`,
      },
      "sources/daily/daily.mjs",
    );
    const deployed = await api.call("POST", "/v1/sources", code);
    expect(deployed.status).toBe(200);
    expect(codes(deployed.body.warnings)).toEqual([["required", "run"]]);
    clock.set(Date.UTC(2026, 0, 1, 11, 0, 30));
    await api.hookline.timers.tick();
    const events = await api.call("GET", `/v1/sources/${deployed.body.data.id}/event_summaries?expand=event`);
    expect(events.body.data.map((e: { event: unknown }) => e.event)).toEqual([
      expect.objectContaining({ timestamp: Date.UTC(2026, 0, 1, 11, 0, 0) / 1000, cron: "0 11 * * *" }),
    ]);
  });

  it("an HTTP source without run emits the request event, and an action without run is refused", async () => {
    const deployed = await api.call("POST", "/v1/sources", {
      component_code: `export default { name: "Catch All", version: "0.1.0", props: { http: "$.interface.http" } };`,
    });
    expect(deployed.status).toBe(200);
    const endpoint = new URL(deployed.body.data.endpoint_url as string).pathname;
    const hit = await api.raw(`${endpoint}/x`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(hit.status).toBe(200);
    const events = await api.call("GET", `/v1/sources/${deployed.body.data.id}/event_summaries?expand=event`);
    expect(events.body.data[0].event).toMatchObject({ method: "POST", path: "/x", body: { a: 1 } });
    const action = await api.call("POST", "/v1/components", {
      component_code: `export default { type: "action", name: "Nothing", version: "0.1.0" };`,
    });
    expect([action.status, action.body.error.code]).toEqual([422, "invalid_component"]);
    expect(codes(action.body.error.details.problems)).toEqual([["required", "run"]]);
  });
});

describe("5. an option object whose label is not a string", () => {
  it("deploys with a warning, and the value is checked against the options", async () => {
    const code = `export default {
      name: "Sizes", version: "0.1.0",
      props: { size: { type: "integer", options: [{ label: 1, value: 1 }, { value: 2 }] } },
      run() { this.$emit({ size: this.size }); },
    };`;
    const deployed = await api.call("POST", "/v1/sources", {
      component_code: code,
      configured_props: { size: 2 },
    });
    expect(deployed.status).toBe(200);
    expect(codes(deployed.body.warnings)).toEqual([
      ["invalid_value", "props.size.options.0"],
      ["invalid_value", "props.size.options.1"],
    ]);
    const wrong = await api.call("POST", "/v1/sources", {
      component_code: code,
      configured_props: { size: 3 },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([422, "invalid_prop_value"]);
    const options = await api.call(
      "POST",
      `/v1/components/${deployed.body.data.component_id}/props/size/options`,
      {},
    );
    expect(options.body.data.options).toEqual([{ label: 1, value: 1 }, { value: 2 }]);
  });
});

describe("6. registry key rules", () => {
  const formatNumber = (version: string) => `export default {
    key: "formatting-format-number", name: "[Numbers] Format Number", version: "${version}", type: "action",
    props: { formatting: { type: "app", app: "formatting" }, input: { type: "string", label: "Input" } },
    run() { return Number(this.input).toFixed(2); },
  };`;

  it("publishes formatting-format-number privately as it is, publicly with a warning, and refuses it strictly", async () => {
    const own = await api.call("POST", "/v1/components/registry", { component_code: formatNumber("0.0.1") });
    expect(own.status).toBe(200);
    expect([own.body.data.key, own.body.data.visibility, own.body.warnings]).toEqual([
      "formatting-format-number",
      "private",
      undefined,
    ]);
    const strict = await api.call("POST", "/v1/components/registry", {
      component_code: formatNumber("0.0.2"),
      visibility: "public",
      strict: true,
    });
    expect([strict.status, strict.body.error.code]).toEqual([422, "invalid_registry_key"]);
    expect(strict.body.error.message).toContain("formatting-numbers-format-number");
    const pub = await api.call("POST", "/v1/components/registry", {
      component_code: formatNumber("0.0.2"),
      visibility: "public",
    });
    expect(pub.status).toBe(200);
    expect(codes(pub.body.warnings)).toEqual([["invalid_registry_key", "key"]]);
    const read = await api.call("GET", "/v1/components/registry/formatting-format-number");
    expect(read.body.data.version).toBe("0.0.2");
  });

  it("still refuses a public key whose prefix is not one of the component's apps", async () => {
    const res = await api.call("POST", "/v1/components/registry", {
      component_code: formatNumber("0.0.1").replace("formatting-format-number", "numbers-format-number"),
      visibility: "public",
    });
    expect([res.status, res.body.error.code]).toEqual([422, "invalid_registry_key"]);
  });
});
