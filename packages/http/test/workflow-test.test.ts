// Test runs (POST /v1/workflows/{id}/test), what the workflow editor's "Test" calls: marked as tests,
// a failing step fails at once (the retry default is for real runs), auto_retry asks for the
// policy, stop_after / from_step run part of the workflow, a draft runs without being saved, and
// limits do not queue a test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, startApi } from "./_harness.js";

const code = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } })`;

describe("workflow test runs", () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi("fetch", { engine: { worker: false } });
  });
  afterAll(() => api.close());

  async function create(definition: Record<string, unknown>) {
    const res = await api.call("POST", "/v1/workflows", {
      body: { trigger: { type: "manual" }, ...definition },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { id: string; steps: unknown[] };
  }
  const test = (id: string, body: Record<string, unknown> = {}) =>
    api.call("POST", `/v1/workflows/${id}/test`, { body });

  const THREE = [
    { name: "load", component_code: code(`$.export("n", steps.trigger.event.n ?? 1); return "loaded"`) },
    { name: "double", component_code: code(`return steps.load.n * 2`) },
    { name: "after", component_code: code(`return "after"`) },
  ];

  it("fails a failing step at once in a test run, where a manual run waits for its retry; auto_retry asks for it", async () => {
    const wf = await create({
      name: "down",
      steps: [{ name: "a", component_code: code(`throw new Error("down")`) }],
    });
    const tested = await test(wf.id, { event: { n: 1 } });
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({
      status: "failed",
      context: { trigger: "manual", test: true },
      error: { message: "down" },
      steps: [{ status: "failed", attempts: 1 }],
    });
    expect(tested.body.data.run_at_ms).toBeNull();
    // A real (non-test) manual run keeps the documented default: queued for its next try.
    expect((await api.call("POST", `/v1/workflows/${wf.id}/run`)).body.data.status).toBe("queued");
    const retried = await test(wf.id, { auto_retry: true });
    expect(retried.body.data).toMatchObject({ status: "queued", context: { test: true, auto_retry: true } });
  });

  it("runs up to a step (the later ones skipped), then one step with the earlier step's recorded result", async () => {
    const wf = await create({ name: "parts", steps: THREE });
    const upTo = (await test(wf.id, { event: { n: 21 }, stop_after: "double" })).body.data;
    expect(upTo.status).toBe("succeeded");
    expect(upTo.steps.map((s: { status: string }) => s.status)).toEqual([
      "succeeded",
      "succeeded",
      "skipped",
    ]);
    expect(upTo.steps[1].return_value).toBe(42);

    const one = (await test(wf.id, { from_execution: upTo.id, from_step: "double", stop_after: "double" }))
      .body.data;
    expect(one.event).toEqual({ n: 21 }); // the original event by default
    expect(one.steps[0]).toMatchObject({ status: "succeeded", replayed_from: upTo.id, exports: { n: 21 } });
    expect(one.steps[1]).toMatchObject({ status: "succeeded", return_value: 42, replayed_from: null });
    expect(one.steps[2].status).toBe("skipped");
    expect(one.context).toMatchObject({ test: true, stop_after: "double", replay_of: upTo.id });
  });

  it("runs an unsaved draft without saving it", async () => {
    const wf = await create({ name: "drafted", steps: THREE });
    const draft = [THREE[0], { name: "triple", component_code: code(`return steps.load.n * 3`) }];
    const ran = (await test(wf.id, { event: { n: 5 }, workflow: { steps: draft } })).body.data;
    expect(ran.steps.map((s: { name: string }) => s.name)).toEqual(["load", "triple"]);
    expect(ran.steps[1].return_value).toBe(15);
    const saved = (await api.call("GET", `/v1/workflows/${wf.id}`)).body.data;
    expect(saved.steps.map((s: { name: string }) => s.name)).toEqual(["load", "double", "after"]);
    // The saved version still runs as saved.
    expect((await test(wf.id, { event: { n: 5 } })).body.data.steps[1].return_value).toBe(10);
    const bad = await test(wf.id, { workflow: { steps: [{ name: "trigger", component_code: code("") }] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("invalid_workflow");
  });

  it("does not queue a test of a workflow with limits", async () => {
    const wf = await create({ name: "limited", concurrency: { max: 1 }, steps: THREE.slice(0, 1) });
    expect((await api.call("POST", `/v1/workflows/${wf.id}/run`)).body.data.status).toBe("queued");
    expect((await test(wf.id)).body.data.status).toBe("succeeded");
  });

  it("names a wrong stop_after, from_step or from_execution", async () => {
    const wf = await create({ name: "wrong", steps: THREE });
    const problems = async (body: Record<string, unknown>) => {
      const res = await test(wf.id, body);
      expect(res.status).toBe(422);
      return res.body.error.details.problems.map((p: { path: string }) => p.path);
    };
    expect(await problems({ stop_after: "nope" })).toEqual(["stop_after"]);
    expect(await problems({ from_step: "double" })).toEqual(["from_execution"]);
    expect(await problems({ from_execution: "exe_nope", from_step: "double" })).toEqual(["from_execution"]);
    const first = (await test(wf.id, { stop_after: "load" })).body.data;
    expect(await problems({ from_execution: first.id, from_step: "after" })).toEqual(["from_step"]);
    expect(await problems({ from_execution: first.id, from_step: "double", stop_after: "load" })).toEqual([
      "stop_after",
    ]);
  });
});
