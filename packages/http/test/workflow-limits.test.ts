// Workflow retention and the 6 MB cap per run, through REST: executions kept per workflow
// (retention.executions, `pd serve --keep-executions`); a step whose return value and exports, or
// logs, bring the run over the cap fails with `execution_too_large` naming them (recorded on the
// execution), the cap counts the whole run; an HTTP trigger or a manual run whose event is over it
// is 413 `execution_too_large`. Default cap (6 MB). On memory, PGlite, and Postgres when
// HOOKLINE_TEST_PG_URL is set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, startApi } from "./_harness.js";
import { STORES } from "./_stores.js";

const code = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } })`;
const MB = 1024 * 1024;

describe.each(STORES)("workflow limits on the %s store", (_name, open) => {
  let api: Api;
  let closeStore: () => Promise<void>;
  beforeAll(async () => {
    const opened = await open();
    closeStore = opened.close;
    api = await startApi("fetch", {
      engine: { worker: false, store: opened.store, retention: { executions: 2 } },
      handler: { bodyLimit: 8 * MB },
    });
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await closeStore();
  });

  async function create(steps: unknown[], trigger: Record<string, unknown> = { type: "manual" }) {
    const res = await api.call("POST", "/v1/workflows", {
      body: { name: "limits", trigger, steps, retry: { count: 0 } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { id: string; trigger: { endpoint_id?: string } };
  }
  const run = async (id: string, event: unknown = {}) =>
    (await api.call("POST", `/v1/workflows/${id}/run`, { body: { event } })).body.data;

  it("keeps the newest executions of each workflow (retention.executions)", async () => {
    const wf = await create([{ name: "a", component_code: code("return steps.trigger.event.n") }]);
    const ids = [];
    for (let n = 0; n < 4; n++) ids.push((await run(wf.id, { n })).id);
    await api.hookline.retention.sweep();
    const list = await api.call("GET", `/v1/workflows/${wf.id}/executions`);
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([ids[3], ids[2]]);
  });

  it("a step whose return value brings the run over 6 MB fails with execution_too_large", async () => {
    const wf = await create([
      { name: "first", component_code: code(`return "a".repeat(4 * 1024 * 1024)`) },
      { name: "second", component_code: code(`$.export("more", "b".repeat(3 * 1024 * 1024)); return 1`) },
      { name: "third", component_code: code("return 3") },
    ]);
    const exe = await run(wf.id);
    expect(exe.status).toBe("failed");
    expect(exe.error).toMatchObject({ code: "execution_too_large" });
    expect(exe.error.message).toMatch(/return value and exports of step second/);
    expect(exe.error.message).toMatch(/over its 6,291,456-byte cap/);
    const [first, second, third] = exe.steps;
    expect(first.status).toBe("succeeded");
    expect(second).toMatchObject({ status: "failed", return_value: null, exports: {} });
    expect(second.error.code).toBe("execution_too_large");
    expect(second.logs.at(-1).message).toMatch(/^execution_too_large: /);
    expect(third.status).toBe("skipped");
  }, 30_000);

  it("logs over the cap fail the step too, keeping the lines that fit", async () => {
    const wf = await create([
      {
        name: "chatty",
        component_code: code(
          `const line = "l".repeat(1024 * 1024); for (let i = 0; i < 7; i++) console.log(line); return 1`,
        ),
      },
    ]);
    const exe = await run(wf.id);
    expect(exe.status).toBe("failed");
    const [chatty] = exe.steps;
    expect(chatty.error.code).toBe("execution_too_large");
    expect(chatty.error.message).toMatch(/logs of step chatty/);
    const big = chatty.logs.filter((l: { message: string }) => l.message.length === MB);
    expect(big.length).toBeGreaterThan(0);
    expect(big.length).toBeLessThan(7);
  }, 30_000);

  it("an event over 6 MB: 413 execution_too_large from an HTTP trigger and a manual run", async () => {
    const wf = await create([{ name: "a", component_code: code("return 1") }], { type: "http" });
    const body = JSON.stringify({ blob: "x".repeat(6.5 * MB) });
    const res = await api.raw(`/http/${wf.trigger.endpoint_id}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(413);
    const answer = (await res.json()) as { error: { code: string; message: string; details: unknown } };
    expect(answer.error.code).toBe("execution_too_large");
    expect(answer.error.details).toMatchObject({ what: "event", limit: 6 * MB });
    const manual = await api.call("POST", `/v1/workflows/${wf.id}/run`, {
      body: { event: { blob: "x".repeat(6.5 * MB) } },
    });
    expect(manual.status).toBe(413);
    expect(manual.body.error.code).toBe("execution_too_large");
    const list = await api.call("GET", `/v1/workflows/${wf.id}/executions`);
    expect(list.body.data).toEqual([]);
    // Under the cap, it runs.
    const small = await api.raw(`/http/${wf.trigger.endpoint_id}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ blob: "x".repeat(1 * MB) }),
    });
    expect(small.status).toBe(200);
  }, 30_000);
});
