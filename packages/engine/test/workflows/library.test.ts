// Workflows through the library API (`hookline.workflows`, `hookline.env`, `hookline.ingress`).
import { createHookline, type Hookline } from "@hookline/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let hookline: Hookline;
let ws: string;
beforeAll(async () => {
  hookline = createHookline({ worker: false });
  ws = (await hookline.workspaces.create({ name: "a" })).id;
});
afterAll(() => hookline.close());

const step = (name: string, body: string, props?: string) => ({
  name,
  component_code: `export default defineComponent({ ${props ? `props: ${props},` : ""} async run({ steps, $ }) { ${body} } })`,
});

describe("hookline.workflows", () => {
  it("runs code steps reading earlier steps and env vars through expressions", async () => {
    await hookline.env.set(ws, "GREETING", "Hello");
    expect((await hookline.env.list(ws)).map((v) => Object.keys(v).sort())).toEqual([
      ["createdAt", "name", "updatedAt"],
    ]);
    const wf = await hookline.workflows.create(ws, {
      name: "w",
      trigger: { type: "manual" },
      steps: [
        step(
          "first",
          `$.export("who", steps.trigger.event.name); $.export("$summary", "first ran"); return { n: 21 }`,
        ),
        {
          ...step(
            "second",
            "return { doubled: this.n * 2, text: this.text, env: typeof process.env.GREETING }",
            `{ n: { type: "integer" }, text: { type: "string" } }`,
          ),
          configured_props: {
            n: "{{steps.first.$return_value.n}}",
            text: "{{process.env.GREETING}}, {{steps.first.who}}!",
          },
        },
      ],
    });
    const exe = await hookline.workflows.run(ws, wf.id, { event: { name: "Ada" } });
    expect(exe.status).toBe("succeeded");
    expect(exe.steps[0]?.summary).toBe("first ran");
    expect(exe.steps[1]?.returnValue).toEqual({ doubled: 42, text: "Hello, Ada!", env: "undefined" });
    const page = await hookline.workflows.executions(ws, wf.id);
    expect(page.items.map((e) => e.id)).toEqual([exe.id]);
    expect(await hookline.workflows.execution(ws, wf.id, exe.id)).toEqual(exe);
  });

  it("answers an HTTP trigger through hookline.ingress with $.respond; an update keeps the endpoint", async () => {
    const wf = await hookline.workflows.create(ws, {
      name: "http",
      trigger: { type: "http", custom_response: true },
      steps: [step("reply", `$.respond({ status: 200, body: { echo: steps.trigger.event.body } })`)],
    });
    const endpoint = wf.trigger.endpoint_id as string;
    const res = await hookline.ingress(endpoint, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: 1 }),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(String(res.body))).toEqual({ echo: { a: 1 } });
    const updated = await hookline.workflows.update(ws, wf.id, {
      steps: [step("reply", `$.respond({ status: 203, body: "v2" })`)],
    });
    expect(updated.trigger.endpoint_id).toBe(endpoint);
    const again = await hookline.ingress(endpoint, { method: "GET", path: "/", headers: {} });
    expect([again.status, String(again.body)]).toEqual([203, "v2"]);
    await hookline.workflows.delete(ws, wf.id);
    expect((await hookline.ingress(endpoint, { method: "GET", path: "/", headers: {} })).status).toBe(404);
  });

  it("refuses bad input with invalid_workflow naming the field; another workspace's workflow is not_found", async () => {
    await expect(
      hookline.workflows.create(ws, {
        name: "x",
        trigger: { type: "manual" },
        steps: [step("a b", "return 1")],
      }),
    ).rejects.toMatchObject({
      code: "invalid_workflow",
      status: 422,
      details: { problems: [{ path: "steps[0].name" }] },
    });
    await expect(hookline.env.set(ws, "1BAD", "x")).rejects.toMatchObject({ code: "validation_failed" });
    const wf = await hookline.workflows.create(ws, {
      name: "x",
      trigger: { type: "manual" },
      steps: [step("a", "return 1")],
    });
    const other = (await hookline.workspaces.create({ name: "b" })).id;
    await expect(hookline.workflows.get(other, wf.id)).rejects.toMatchObject({
      code: "not_found",
      status: 404,
    });
    await expect(hookline.workflows.run(other, wf.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("keeps retention.executions executions per workflow (the newest)", async () => {
    const small = createHookline({ worker: false, retention: { executions: 2 } });
    try {
      const w = (await small.workspaces.create({ name: "r" })).id;
      const wf = await small.workflows.create(w, {
        name: "r",
        trigger: { type: "manual" },
        steps: [step("a", "return 1")],
      });
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await small.workflows.run(w, wf.id)).id);
      await small.retention.sweep();
      expect((await small.workflows.executions(w, wf.id)).items.map((e) => e.id)).toEqual([ids[3], ids[2]]);
    } finally {
      await small.close();
    }
  });
});
