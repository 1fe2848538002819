// Workflows through REST: CRUD and validation, manual runs of code steps reading earlier steps
// through expressions, $summary, $.flow.exit, a failing step, environment variables, async runs,
// executions, another workspace's workflow.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, startApi } from "./_harness.js";
import { type OpenedStore, WORKFLOW_STORES } from "./_workflow-stores.js";

for (const { name: storeName, open } of WORKFLOW_STORES)
  describe(`on the ${storeName} store`, () => {
    let api: Api;
    let opened: OpenedStore;
    beforeAll(async () => {
      opened = await open();
      api = await startApi("fetch", { engine: { worker: false, store: opened.store } });
    }, 60_000);
    afterAll(async () => {
      await api.close();
      await opened.close();
    });

    const code = (body: string, props = "") =>
      `export default defineComponent({ ${props ? `props: ${props},` : ""} async run({ steps, $ }) { ${body} } })`;

    async function create(definition: Record<string, unknown>) {
      const res = await api.call("POST", "/v1/workflows", { body: definition });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as { id: string; trigger: Record<string, unknown>; steps: unknown[] };
    }

    describe("POST /v1/workflows", () => {
      it("creates, lists newest first, reads, updates, deactivates and deletes", async () => {
        const def = {
          name: "crud",
          trigger: { type: "manual" },
          steps: [{ name: "a", component_code: code("return 1") }],
        };
        const first = await create(def);
        const second = await create({ ...def, name: "crud 2" });
        expect(first.id).toMatch(/^p_/);
        const list = await api.call("GET", "/v1/workflows", { query: { limit: "1" } });
        expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([second.id]);
        const next = await api.call("GET", "/v1/workflows", {
          query: { limit: "1", after: list.body.page_info.end_cursor },
        });
        expect(next.body.data[0].id).toBe(first.id);
        const got = await api.call("GET", `/v1/workflows/${first.id}`);
        expect(got.body.data).toMatchObject({
          name: "crud",
          active: true,
          steps: def.steps,
          trigger: def.trigger,
        });
        const off = await api.call("PUT", `/v1/workflows/${first.id}`, {
          body: { active: false, name: "renamed" },
        });
        expect(off.body.data).toMatchObject({ active: false, name: "renamed" });
        expect((await api.call("DELETE", `/v1/workflows/${first.id}`)).body.data).toEqual({ deleted: true });
        expect((await api.call("GET", `/v1/workflows/${first.id}`)).status).toBe(404);
      });

      it("refuses bad definitions with 422 invalid_workflow naming each field", async () => {
        const res = await api.call("POST", "/v1/workflows", {
          body: {
            name: "bad",
            trigger: { type: "cron" },
            steps: [
              { name: "ok", component_code: code("return 1") },
              { name: "1bad", component_code: code("return 1") },
              { name: "trigger", component_code: code("return 1") },
              { name: "ok", component_code: code("return 1") },
              { name: "x", component_code: code("return 1"), configured_props: { a: "{{ steps.ok" } },
            ],
          },
        });
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe("invalid_workflow");
        const paths = res.body.error.details.problems.map(
          (p: { path: string; code: string }) => `${p.path}:${p.code}`,
        );
        expect(paths).toEqual(
          expect.arrayContaining([
            "trigger.type:invalid_trigger",
            "steps[1].name:invalid_step_name",
            "steps[2].name:reserved_step_name",
            "steps[3].name:duplicate_step_name",
            "steps[4].configured_props.a:invalid_expression",
          ]),
        );
      });

      it("refuses a step whose component is missing, a source, or whose props do not fit", async () => {
        const src = await api.call("POST", "/v1/components", {
          body: { component_code: `export default { name: "S", version: "0.0.1", run() {} }` },
        });
        const res = await api.call("POST", "/v1/workflows", {
          body: {
            name: "bad",
            trigger: { type: "source", source_id: "dc_00000000000000000000000000" },
            steps: [
              { name: "a", component_id: "sc_00000000000000000000000000" },
              { name: "b", component_id: src.body.data.id },
              {
                name: "c",
                component_code: code("return 1", "{ n: { type: 'integer' } }"),
                configured_props: { n: "x" },
              },
            ],
          },
        });
        expect(res.status).toBe(422);
        const paths = res.body.error.details.problems.map((p: { path: string }) => p.path);
        expect(paths).toEqual([
          "steps[0].component_id",
          "steps[1]",
          "steps[2].configured_props.n",
          "trigger.source_id",
        ]);

        const app = await api.call("POST", "/v1/workflows", {
          body: {
            name: "app",
            trigger: { type: "manual" },
            steps: [
              { name: "gh", component_code: code("return 1", `{ github: { type: "app", app: "github" } }`) },
            ],
          },
        });
        expect(app.status).toBe(422);
        expect(app.body.error.details.problems).toEqual([
          expect.objectContaining({ code: "account_required", path: "steps[0].configured_props.github" }),
        ]);
      });
    });

    describe("POST /v1/workflows/{id}/run", () => {
      it("runs code steps that read earlier return values, exports and env vars through expressions", async () => {
        expect(
          (await api.call("POST", "/v1/env", { body: { name: "GREETING", value: "Hello" } })).status,
        ).toBe(200);
        const wf = await create({
          name: "chain",
          trigger: { type: "manual" },
          steps: [
            {
              name: "prep",
              component_code: code(
                `$.export("who", steps.trigger.event.name); $.export("$summary", "prepared " + steps.trigger.event.name); return { n: 21, tags: ["a"] }`,
              ),
            },
            {
              name: "use",
              component_code: code(
                `console.log("seen", this.n); return { n: this.n * 2, text: this.text, tags: this.tags, env: typeof process.env.GREETING }`,
                `{ n: { type: "integer" }, text: { type: "string" }, tags: { type: "string[]" } }`,
              ),
              configured_props: {
                n: "{{steps.prep.$return_value.n}}",
                text: "{{ process.env.GREETING }}, {{steps.prep.who}}: {{steps.prep.$return_value.tags}}",
                tags: "{{steps.prep.$return_value.tags}}",
              },
            },
          ],
        });
        const res = await api.call("POST", `/v1/workflows/${wf.id}/run`, {
          body: { event: { name: "Ada" } },
        });
        expect(res.status).toBe(200);
        const exe = res.body.data;
        expect(exe).toMatchObject({
          workflow_id: wf.id,
          status: "succeeded",
          event: { name: "Ada" },
          exit_reason: null,
        });
        expect(exe.id).toMatch(/^exe_/);
        expect(exe.steps[0]).toMatchObject({
          name: "prep",
          status: "succeeded",
          summary: "prepared Ada",
          exports: { who: "Ada", $summary: "prepared Ada" },
          return_value: { n: 21, tags: ["a"] },
          attempts: 1,
        });
        expect(exe.steps[1].return_value).toEqual({
          n: 42,
          text: 'Hello, Ada: ["a"]',
          tags: ["a"],
          env: "undefined",
        });
        expect(exe.steps[1].logs.map((l: { message: string }) => l.message)).toContain("seen 21");
        expect(typeof exe.steps[1].duration_ms).toBe("number");
        // The environment variable's value is never returned.
        const env = await api.call("GET", "/v1/env");
        expect(env.body.data).toEqual([expect.objectContaining({ name: "GREETING" })]);
        expect(JSON.stringify(env.body)).not.toContain("Hello");
        const stored = await api.call("GET", `/v1/workflows/${wf.id}/executions/${exe.id}`);
        expect(stored.body.data).toEqual(exe);
      });

      it("$.flow.exit ends the run: later steps skipped, the reason recorded", async () => {
        const wf = await create({
          name: "exit",
          trigger: { type: "manual" },
          steps: [
            { name: "a", component_code: code(`return $.flow.exit("nothing to do")`) },
            { name: "b", component_code: code(`throw new Error("never")`) },
          ],
        });
        const exe = (await api.call("POST", `/v1/workflows/${wf.id}/run`)).body.data;
        expect(exe).toMatchObject({ status: "exited", exit_reason: "nothing to do" });
        expect(exe.steps.map((s: { status: string }) => s.status)).toEqual(["exited", "skipped"]);
      });

      it("a throwing step fails the run with its error recorded; an expression error fails its step", async () => {
        // retry count 0: this test is about the last try's failure (retries: durable-runs.test.ts).
        const wf = await create({
          name: "fail",
          trigger: { type: "manual" },
          retry: { count: 0 },
          steps: [
            { name: "a", component_code: code(`return 1`) },
            { name: "b", component_code: code(`throw new TypeError("bad input: " + steps.a.$return_value)`) },
            { name: "c", component_code: code(`return 3`) },
          ],
        });
        const exe = (await api.call("POST", `/v1/workflows/${wf.id}/run`)).body.data;
        expect(exe.status).toBe("failed");
        expect(exe.error).toMatchObject({ code: "error", name: "TypeError", message: "bad input: 1" });
        expect(exe.steps.map((s: { status: string }) => s.status)).toEqual([
          "succeeded",
          "failed",
          "skipped",
        ]);
        expect(exe.steps[1].error.message).toBe("bad input: 1");

        const expr = await create({
          name: "expr",
          trigger: { type: "manual" },
          retry: { count: 0 },
          steps: [
            {
              name: "a",
              component_code: code("return this.v", "{ v: { type: 'string' } }"),
              configured_props: { v: "{{steps.nope.x}}" },
            },
          ],
        });
        const bad = (await api.call("POST", `/v1/workflows/${expr.id}/run`)).body.data;
        expect(bad.status).toBe("failed");
        expect(bad.steps[0].error).toMatchObject({ code: "expression_error" });
        expect(bad.steps[0].error.message).toContain("configured_props.v");
      });

      it("a send to a destination this server does not have fails the step with destination_not_configured", async () => {
        const wf = await create({
          name: "email",
          trigger: { type: "manual" },
          retry: { count: 0 },
          steps: [
            {
              name: "mail",
              component_code: code(
                `$.send.email({ to: "a@example.com", subject: "hi", text: "body" }); return 1`,
              ),
            },
            { name: "after", component_code: code("return 2") },
          ],
        });
        const exe = (await api.call("POST", `/v1/workflows/${wf.id}/run`)).body.data;
        expect(exe.status).toBe("failed");
        expect(exe.steps[0].error).toMatchObject({ code: "destination_not_configured" });
        expect(exe.steps.map((s: { status: string }) => s.status)).toEqual(["failed", "skipped"]);
      });

      it("?async=true answers queued at once; the run finishes in the background", async () => {
        const wf = await create({
          name: "async",
          trigger: { type: "manual" },
          steps: [{ name: "a", component_code: code("return 7") }],
        });
        const res = await api.call("POST", `/v1/workflows/${wf.id}/run`, { query: { async: "true" } });
        expect(res.body.data.status).toBe("queued");
        await eventually(async () => {
          const got = await api.call("GET", `/v1/workflows/${wf.id}/executions/${res.body.data.id}`);
          expect(got.body.data.status).toBe("succeeded");
          expect(got.body.data.steps[0].return_value).toBe(7);
        });
        const list = await api.call("GET", `/v1/workflows/${wf.id}/executions`, {
          query: { status: "succeeded" },
        });
        expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([res.body.data.id]);
      });
    });

    describe("workspaces", () => {
      it("another workspace's workflow and executions are 404", async () => {
        const wf = await create({
          name: "mine",
          trigger: { type: "manual" },
          steps: [{ name: "a", component_code: code("return 1") }],
        });
        const exe = (await api.call("POST", `/v1/workflows/${wf.id}/run`)).body.data;
        const other = await api.hookline.workspaces.create({ name: "other" });
        const { key } = await api.hookline.apiKeys.create(other.id);
        for (const [method, path] of [
          ["GET", `/v1/workflows/${wf.id}`],
          ["PUT", `/v1/workflows/${wf.id}`],
          ["DELETE", `/v1/workflows/${wf.id}`],
          ["POST", `/v1/workflows/${wf.id}/run`],
          ["GET", `/v1/workflows/${wf.id}/executions`],
          ["GET", `/v1/workflows/${wf.id}/executions/${exe.id}`],
          ["GET", `/v1/workflows/${wf.id}/event_summaries`],
        ] as const) {
          const res = await api.call(method, path, {
            key,
            body: method === "PUT" ? { name: "x" } : undefined,
          });
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(res.body.error.code).toBe("not_found");
        }
        expect((await api.call("GET", "/v1/workflows", { key })).body.data).toEqual([]);
      });
    });
  });
