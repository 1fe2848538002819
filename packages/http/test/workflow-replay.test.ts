// Replaying workflow executions through REST: with the original event or an edited one, from the
// first step or from a chosen step (the earlier steps keep their recorded results and do not run
// again), `replay_of`; 422 naming from_step; 404 for another workspace; bulk replay of the failed
// runs of a window, bounded per call with a cursor. On memory, PGlite, and Postgres when
// HOOKLINE_TEST_PG_URL is set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, startApi } from "./_harness.js";
import { STORES } from "./_stores.js";

const code = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } })`;

const STEPS = [
  // A random number: a step that ran again would return another one.
  {
    name: "a",
    component_code: code(`console.log("a ran"); return { n: steps.trigger.event.n * 10, r: Math.random() }`),
  },
  {
    name: "b",
    component_code: code(`$.export("seen", steps.a.$return_value.n);
      if (steps.trigger.event.fail) throw new Error("b failed");
      return steps.a.$return_value.n + 1`),
  },
  {
    name: "c",
    component_code: code(
      `return { b: steps.b.$return_value, seen: steps.b.seen, r: steps.a.$return_value.r, replay_of: steps.trigger.context.replay_of ?? null }`,
    ),
  },
];

describe.each(STORES)("replay on the %s store", (_name, open) => {
  let api: Api;
  let closeStore: () => Promise<void>;
  beforeAll(async () => {
    const opened = await open();
    closeStore = opened.close;
    api = await startApi("fetch", { engine: { worker: false, store: opened.store } });
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await closeStore();
  });

  async function create(name: string) {
    const res = await api.call("POST", "/v1/workflows", {
      body: { name, trigger: { type: "manual" }, retry: { count: 0 }, steps: STEPS },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id as string;
  }
  const run = async (id: string, event: unknown) =>
    (await api.call("POST", `/v1/workflows/${id}/run`, { body: { event } })).body.data;
  async function ended(id: string, exe: string) {
    let got: any;
    await eventually(async () => {
      got = (await api.call("GET", `/v1/workflows/${id}/executions/${exe}`)).body.data;
      expect(["succeeded", "failed", "exited"]).toContain(got.status);
    }, 15_000);
    return got;
  }

  it("from a step with an edited event: earlier steps keep their records, later ones run", async () => {
    const id = await create("replay from b");
    const original = await run(id, { n: 2, fail: true });
    expect(original.status).toBe("failed");

    const res = await api.call("POST", `/v1/workflows/${id}/executions/${original.id}/replay`, {
      body: { from_step: "b", event: { n: 2 } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ status: "queued", replay_of: original.id, event: { n: 2 } });
    const replay = await ended(id, res.body.data.id);
    expect(replay.status).toBe("succeeded");
    expect(replay.replay_of).toBe(original.id);
    expect(replay.context).toEqual({ trigger: "manual", replay_of: original.id });
    const [a, b, c] = replay.steps;
    // Step a did not run again: its record is the original's (the same random number and log).
    expect(a).toMatchObject({ status: "succeeded", replayed_from: original.id });
    expect(a.return_value).toEqual(original.steps[0].return_value);
    expect(a.started_at_ms).toBe(original.steps[0].started_at_ms);
    expect(a.logs.map((l: { message: string }) => l.message)).toEqual(["a ran"]);
    expect(b).toMatchObject({
      status: "succeeded",
      replayed_from: null,
      return_value: 21,
      exports: { seen: 20 },
    });
    expect(c.return_value).toEqual({
      b: 21,
      seen: 20,
      r: original.steps[0].return_value.r,
      replay_of: original.id,
    });
  }, 30_000);

  it("from the first step with the original event: every step runs again", async () => {
    const id = await create("replay all");
    const original = await run(id, { n: 1, fail: true });
    const res = await api.call("POST", `/v1/workflows/${id}/executions/${original.id}/replay`);
    expect(res.status).toBe(200);
    const replay = await ended(id, res.body.data.id);
    expect(replay).toMatchObject({ status: "failed", event: { n: 1, fail: true }, replay_of: original.id });
    expect(replay.steps[0].replayed_from).toBeNull();
    expect(replay.steps[0].return_value.r).not.toBe(original.steps[0].return_value.r);
    expect(replay.steps[1].error.message).toBe("b failed");
  }, 30_000);

  it("422 naming from_step for an unknown step or one after a step that did not succeed; 404 elsewhere", async () => {
    const id = await create("replay errors");
    const original = await run(id, { n: 1, fail: true });
    const path = `/v1/workflows/${id}/executions/${original.id}/replay`;
    for (const from_step of ["nope", "c"]) {
      const res = await api.call("POST", path, { body: { from_step } });
      expect(res.status, from_step).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details.problems[0].path).toBe("from_step");
    }
    const unknownExe = await api.call(
      "POST",
      `/v1/workflows/${id}/executions/exe_00000000000000000000000000/replay`,
    );
    expect(unknownExe.status).toBe(404);
    const other = await api.hookline.workspaces.create({ name: "other" });
    const { key } = await api.hookline.apiKeys.create(other.id);
    const foreign = await api.call("POST", path, { key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
    const foreignBulk = await api.call("POST", `/v1/workflows/${id}/replay`, { key });
    expect(foreignBulk.status).toBe(404);
  }, 30_000);

  it("bulk: replays the failed runs of a window, at most limit per call, with a cursor", async () => {
    const id = await create("bulk");
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const failed = [];
    for (let n = 1; n <= 3; n++) failed.push((await run(id, { n, fail: true })).id);
    await run(id, { n: 9 }); // succeeded: not replayed
    const first = await api.call("POST", `/v1/workflows/${id}/replay`, {
      query: { status: "failed", since: before, limit: "2" },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.queued).toBe(2);
    expect(first.body.data.executions.map((e: { replay_of: string }) => e.replay_of)).toEqual([
      failed[2],
      failed[1],
    ]);
    expect(first.body.data.next_cursor).toBe(failed[1]);
    const second = await api.call("POST", `/v1/workflows/${id}/replay`, {
      query: { since: before, limit: "2", after: first.body.data.next_cursor },
    });
    expect(second.body.data).toMatchObject({ queued: 1, next_cursor: null });
    expect(second.body.data.executions[0].replay_of).toBe(failed[0]);
    for (const e of [...first.body.data.executions, ...second.body.data.executions]) {
      const replay = await ended(id, e.id);
      expect(replay).toMatchObject({ status: "failed", replay_of: e.replay_of });
    }
    // A window before the runs: nothing.
    const none = await api.call("POST", `/v1/workflows/${id}/replay`, { query: { until: before } });
    expect(none.body.data).toEqual({ queued: 0, executions: [], next_cursor: null });
    const bad = await api.call("POST", `/v1/workflows/${id}/replay`, { query: { since: "yesterday" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.problems[0].path).toBe("since");
    const badCursor = await api.call("POST", `/v1/workflows/${id}/replay`, { query: { after: "nope" } });
    expect(badCursor.status).toBe(422);
    expect(badCursor.body.error.details.problems[0].path).toBe("after");
  }, 60_000);
});
