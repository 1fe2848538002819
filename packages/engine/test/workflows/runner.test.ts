// The workflow runner through the engine's public API (`hookline.workflows`, `hookline.ingress`,
// `hookline.store`) on the memory store and a fake clock, beside the REST tests of the same rules
// (http/test/workflows.test.ts, durable-runs.test.ts): steps and their exports, `$.flow.exit`,
// `$.respond`, retries and the last failure, delay and suspend, a run whose node died.
import { createFakeClock, createHookline, type FakeClock, type Hookline } from "@hookline/engine";
import type { ExecutionStep } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const START = Date.UTC(2026, 0, 1);

let hookline: Hookline;
let clock: FakeClock;
let ws: string;
beforeAll(async () => {
  clock = createFakeClock(START);
  // Queued runs are claimed every 10 ms (real time) once due on the fake clock.
  hookline = createHookline({ worker: false, clock, timerPollMs: 10, executionLeaseMs: 10_000 });
  await hookline.start();
  ws = (await hookline.workspaces.create({ name: "runner" })).id;
});
afterAll(() => hookline.close());

const step = (name: string, body: string, extra: Record<string, unknown> = {}) => ({
  name,
  component_code: `export default defineComponent({ async run({ steps, $ }) { ${body} } })`,
  ...extra,
});

type Definition = Parameters<Hookline["workflows"]["create"]>[1];
const create = (definition: Partial<Definition> & Pick<Definition, "steps">) =>
  hookline.workflows.create(ws, { name: "w", trigger: { type: "manual" }, ...definition } as Definition);

/** Waits (real time, a hang guard only) until the execution reaches `status`, and returns it. */
async function reaches(workflowId: string, executionId: string, status: string) {
  for (let i = 0; ; i++) {
    const exe = await hookline.workflows.execution(ws, workflowId, executionId);
    if (exe.status === status) return exe;
    if (i > 2_000) throw new Error(`execution ${executionId} stayed ${exe.status}, never ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What a node that died while running step `index` leaves behind: a `running` execution whose lease ends soon. */
async function interrupted(workflowId: string, steps: ExecutionStep[]) {
  const executions = hookline.store.executions;
  if (!executions) throw new Error("the memory store has workflows");
  const now = clock.now();
  return executions.create({
    workspaceId: ws,
    workflowId,
    trigger: "manual",
    event: {},
    status: "running",
    leaseOwner: "a-dead-node",
    leaseExpiresAt: now + 1_000,
    startedAt: now,
    steps,
  });
}

describe("the workflow runner", () => {
  it("runs the steps in order; each reads the earlier ones' return values, exports and summaries", async () => {
    const wf = await create({
      steps: [
        step("a", `$.export("x", 2); $.export("$summary", "a ran"); console.log("in a"); return { n: 40 }`),
        step("b", `return steps.a.$return_value.n + steps.a.x + steps.trigger.event.plus`),
      ],
    });
    const exe = await hookline.workflows.run(ws, wf.id, { event: { plus: 0.5 } });
    expect(exe.status).toBe("succeeded");
    expect(exe.steps.map((s) => [s.name, s.status, s.attempts])).toEqual([
      ["a", "succeeded", 1],
      ["b", "succeeded", 1],
    ]);
    expect(exe.steps[0]).toMatchObject({ returnValue: { n: 40 }, exports: { x: 2 }, summary: "a ran" });
    expect(exe.steps[0]?.logs.map((l) => l.message)).toEqual(["in a"]);
    expect(exe.steps[1]?.returnValue).toBe(42.5);
  });

  it("$.flow.exit ends the run: exited with its reason, the later steps skipped and never run", async () => {
    const wf = await create({
      steps: [step("stop", `return $.flow.exit("nothing to do")`), step("never", `throw new Error("ran")`)],
    });
    const exe = await hookline.workflows.run(ws, wf.id);
    expect(exe).toMatchObject({ status: "exited", exitReason: "nothing to do" });
    expect(exe.steps.map((s) => s.status)).toEqual(["exited", "skipped"]);
    expect(exe.steps[1]?.attempts).toBe(0);
  });

  it("$.respond answers the HTTP trigger; without it the trigger gets 500 no_response", async () => {
    const post = (endpoint: string, body: unknown) =>
      hookline.ingress(endpoint, {
        method: "POST",
        path: "/",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const answers = await create({
      trigger: { type: "http", custom_response: true },
      steps: [
        step(
          "reply",
          `await $.respond({ status: 201, headers: { "x-n": "1" }, body: { got: steps.trigger.event.body } })`,
        ),
        step("after", `return "after the reply"`),
      ],
    });
    const res = await post(answers.trigger.endpoint_id as string, { a: 1 });
    expect(res.status).toBe(201);
    expect(res.headers?.["x-n"]).toBe("1");
    expect(JSON.parse(String(res.body))).toEqual({ got: { a: 1 } });
    const [exe] = (await hookline.workflows.executions(ws, answers.id)).items;
    expect(exe).toMatchObject({ status: "succeeded", steps: [{}, { returnValue: "after the reply" }] });

    const silent = await create({
      trigger: { type: "http", custom_response: true },
      steps: [step("quiet", `return 1`)],
    });
    const none = await post(silent.trigger.endpoint_id as string, {});
    expect(none.status).toBe(500);
    expect(JSON.parse(String(none.body)).error.code).toBe("no_response");
  });

  it("retries a failed try after its backoff on the engine's clock; the last failure fails the run and emits $errors", async () => {
    const wf = await create({
      retry: { count: 1, initial_ms: 60_000, jitter: 0 },
      steps: [step("flaky", `throw new Error("try " + $.context.attempt)`), step("later", `return 1`)],
    });
    const first = await hookline.workflows.run(ws, wf.id, { event: { order: 7 } });
    expect(first).toMatchObject({ status: "queued", runAt: clock.now() + 60_000 });
    expect(first.steps[0]).toMatchObject({ status: "pending", attempts: 1 });
    clock.advance(60_000);
    const failed = await reaches(wf.id, first.id, "failed");
    expect(failed.steps.map((s) => [s.status, s.attempts])).toEqual([
      ["failed", 2],
      ["skipped", 0],
    ]);
    expect(failed.steps[0]?.attemptErrors?.map((e) => e.message)).toEqual(["try 1", "try 2"]);
    expect(failed.error?.message).toBe("try 2");
    const errors = (await hookline.workflows.events(ws, wf.id)).items;
    expect(errors.map((e) => e.channel)).toEqual(["$errors"]);
  });

  it("a step's own retry policy overrides the workflow's", async () => {
    const wf = await create({
      retry: { count: 5 },
      steps: [step("once", `throw new Error("at once")`, { retry: { count: 0 } })],
    });
    expect(await hookline.workflows.run(ws, wf.id)).toMatchObject({
      status: "failed",
      error: { message: "at once" },
    });
  });

  it("$.flow.delay pauses the run until its time on the engine's clock, then the next step runs", async () => {
    const wf = await create({
      steps: [
        step("wait", `$.flow.delay(30_000); return "waited"`),
        step("after", `return steps.wait.$return_value`),
      ],
    });
    const exe = await hookline.workflows.run(ws, wf.id);
    expect(exe).toMatchObject({ status: "delayed", runAt: clock.now() + 30_000 });
    expect(exe.steps.map((s) => s.status)).toEqual(["succeeded", "pending"]);
    clock.advance(30_000);
    const done = await reaches(wf.id, exe.id, "succeeded");
    expect(done.steps[0]?.pause).toMatchObject({ kind: "delay", outcome: "due" });
    expect(done.steps[1]?.returnValue).toBe("waited");
  });

  it("$.flow.suspend: the resume URL's data reaches the next step; without it the run fails at its timeout", async () => {
    const wf = await create({
      steps: [step("ask", `return $.flow.suspend(60_000)`), step("decide", `return steps.ask.$resume_data`)],
    });
    const exe = await hookline.workflows.run(ws, wf.id);
    expect(exe.status).toBe("suspended");
    const { resume_url } = (exe.steps[0]?.returnValue ?? {}) as { resume_url: string };
    const token = new URL(resume_url).searchParams.get("token") as string;
    expect((await hookline.workflows.flow("resume", exe.id, token, { approved: true })).status).toBe(
      "queued",
    );
    const done = await reaches(wf.id, exe.id, "succeeded");
    expect(done.steps[1]?.returnValue).toEqual({ approved: true });
    await expect(hookline.workflows.flow("resume", exe.id, token, {})).rejects.toMatchObject({
      code: "not_found",
    });

    const ignored = await hookline.workflows.run(ws, wf.id);
    clock.advance(60_000);
    const timedOut = await reaches(wf.id, ignored.id, "failed");
    expect(timedOut.error?.code).toBe("suspend_timeout");
    expect(timedOut.steps.map((s) => s.status)).toEqual(["succeeded", "skipped"]);
  });

  it("a run whose node died resumes at the unfinished step; interrupted tries do not count as failed ones", async () => {
    const wf = await create({
      // One retry: the interrupted try and one failed try still leave the step its retry.
      retry: { count: 1, initial_ms: 1_000, jitter: 0 },
      steps: [
        step("done", `throw new Error("a finished step ran again")`),
        step(
          "flaky",
          `if ($.context.attempt === 2) throw new Error("try 2"); return { attempt: $.context.attempt, before: steps.done.$return_value }`,
        ),
      ],
    });
    const exe = await interrupted(wf.id, [
      { name: "done", status: "succeeded", returnValue: "kept", logs: [], attempts: 1 },
      { name: "flaky", status: "running", logs: [], attempts: 1, startedAt: clock.now() },
    ]);
    clock.advance(1_000); // the dead node's lease ends: the run is swept back and claimed
    const retrying = await reaches(wf.id, exe.id, "queued");
    expect(retrying.steps[1]).toMatchObject({ status: "pending", attempts: 2 });
    expect(retrying.steps[1]?.attemptErrors?.map((e) => e.code)).toEqual(["interrupted", "error"]);
    clock.advance(1_000);
    const done = await reaches(wf.id, exe.id, "succeeded");
    expect(done.steps[0]).toMatchObject({ attempts: 1, returnValue: "kept" });
    expect(done.steps[1]).toMatchObject({ attempts: 3, returnValue: { attempt: 3, before: "kept" } });
  });

  it("fails a step whose tries keep being interrupted, at the fifth", async () => {
    const wf = await create({ steps: [step("crashy", `return 1`)] });
    const lost = { code: "interrupted", message: "lost" };
    const exe = await interrupted(wf.id, [
      { name: "crashy", status: "running", logs: [], attempts: 4, attemptErrors: [lost, lost, lost, lost] },
    ]);
    clock.advance(1_000);
    const failed = await reaches(wf.id, exe.id, "failed");
    expect(failed.error?.code).toBe("interrupted");
    expect(failed.steps[0]).toMatchObject({ status: "failed", attempts: 5 });
  });

  it("finds an execution only under its own workflow", async () => {
    const a = await create({ steps: [step("a", `return "a"`)] });
    const b = await create({ steps: [step("b", `return "b"`)] });
    const exe = await hookline.workflows.run(ws, a.id);
    expect((await hookline.workflows.execution(ws, a.id, exe.id)).id).toBe(exe.id);
    await expect(hookline.workflows.execution(ws, b.id, exe.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(hookline.workflows.replay(ws, b.id, exe.id)).rejects.toMatchObject({ code: "not_found" });
    const other = (await hookline.workspaces.create({ name: "other" })).id;
    await expect(hookline.workflows.execution(other, a.id, exe.id)).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
