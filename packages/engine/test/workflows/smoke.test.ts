import { createHookline } from "@hookline/engine";
import { afterAll, describe, expect, it } from "vitest";

const hookline = createHookline({ worker: false });
afterAll(() => hookline.close());

describe("workflows (library)", () => {
  it("runs code steps reading earlier steps through expressions", async () => {
    const ws = await hookline.workspaces.create({ name: "a" });
    await hookline.env.set(ws.id, "GREETING", "Hello");
    const wf = await hookline.workflows.create(ws.id, {
      name: "w",
      trigger: { type: "manual" },
      steps: [
        {
          name: "first",
          component_code: `export default defineComponent({ async run({ steps, $ }) {
            $.export("who", steps.trigger.event.name); $.export("$summary", "first ran"); return { n: 21 } } })`,
        },
        {
          name: "second",
          component_code: `export default defineComponent({ props: { n: { type: "integer" }, text: { type: "string" } },
            async run() { return { doubled: this.n * 2, text: this.text, env: typeof process.env.GREETING } } })`,
          configured_props: {
            n: "{{steps.first.$return_value.n}}",
            text: "{{process.env.GREETING}}, {{steps.first.who}}!",
          },
        },
      ],
    });
    const exe = await hookline.workflows.run(ws.id, wf.id, { event: { name: "Ada" } });
    expect(exe.status).toBe("succeeded");
    expect(exe.steps[0]?.summary).toBe("first ran");
    expect(exe.steps[1]?.returnValue).toEqual({ doubled: 42, text: "Hello, Ada!", env: "undefined" });
  });
});
