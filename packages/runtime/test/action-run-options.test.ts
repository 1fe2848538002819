// runAction's per-run options (workflow steps): props bound per run, `{{ }}` expressions evaluated
// in the sandbox over `steps` and only the given environment variables, and `defineComponent`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../src/index.js";
import { mountCode, testRuntime } from "./_helpers.js";

const CODE = `export default defineComponent({
  name: "Step", version: "0.0.1", type: "action",
  props: { a: { type: "any" }, b: { type: "string" }, o: { type: "object" } },
  async run() { return { a: this.a, b: this.b, o: this.o, env: typeof process.env.SECRET } },
})`;

// Both sandbox modes: the pool forwards the per-run options to the component's thread.
describe.each(["thread", "pool"] as const)("runAction options in %s mode", (mode) => {
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime({ mode, pool: { size: 1 } });
  });
  afterAll(() => runtime.close());

  it("binds each run's props; a whole expression keeps its type, mixed text is a string", async () => {
    const m = await mountCode(runtime, CODE, { b: "mounted" });
    const steps = { trigger: { event: { n: 2, list: [1, 2] } } };
    const r = await m.runAction(steps, {
      props: { o: { keep: true } },
      exprs: [
        {
          path: ["a"],
          parts: [{ code: "steps.trigger.event.list" }],
          whole: true,
          label: "configured_props.a",
        },
        {
          path: ["b"],
          parts: [
            "n=",
            { code: "steps.trigger.event.n * 2" },
            " ",
            { code: "process.env.SECRET" },
            " ",
            { code: "steps.trigger.event" },
          ],
          whole: false,
          label: "configured_props.b",
        },
        {
          path: ["o", "deep"],
          parts: [{ code: "steps.trigger.event.n" }],
          whole: true,
          label: "configured_props.o.deep",
        },
      ],
      env: { SECRET: "s3" },
    });
    expect(r.error).toBeUndefined();
    expect(r.returnValue).toEqual({
      a: [1, 2],
      b: 'n=4 s3 {"n":2,"list":[1,2]}',
      o: { keep: true, deep: 2 },
      env: "undefined",
    });
    // Without options the mount's props are used again.
    expect((await m.runAction({})).returnValue).toMatchObject({ b: "mounted" });
    m.dispose();
  });

  it("a throwing expression fails the run with expression_error naming the value", async () => {
    const m = await mountCode(runtime, CODE);
    const r = await m.runAction(
      {},
      {
        exprs: [{ path: ["b"], parts: [{ code: "steps.nope.x" }], whole: true, label: "configured_props.b" }],
      },
    );
    expect(r.error).toMatchObject({ code: "expression_error", name: "ExpressionError" });
    expect(r.error?.message).toContain("configured_props.b");
    m.dispose();
  });
});
