// `pd serve` on a data folder keeps a delayed workflow run across a crash (issue 20): a workflow
// `$.flow.delay`s 2.5 s, the server is killed (SIGKILL) while the run waits, a new `pd serve` on
// the same folder resumes the run when it is due and finishes it; the step before the delay does
// not run again.
import { afterAll, describe, expect, it } from "vitest";
import { baseEnv, type Served, serve, stop, tempDir } from "./_helpers.js";

const KEY = "hl_durable_test_key_0123456789abcdef";

describe("pd serve: a delayed run survives a crash", () => {
  const cwd = tempDir("pd-durable-");
  const env = baseEnv({ HOOKLINE_API_KEY: KEY });
  let server: Served | undefined;
  afterAll(async () => {
    if (server) await stop(server);
  });

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server?.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    });
    return { status: res.status, body: (await res.json()) as { data: any } };
  };

  it("resumes the run after a restart and finishes it once it is due and the server is up", {
    timeout: 120_000,
  }, async () => {
    server = await serve(["--data-dir", "data"], { cwd, env }, 60_000);
    const created = await api("/v1/workflows", {
      method: "POST",
      body: JSON.stringify({
        name: "later",
        trigger: { type: "manual" },
        steps: [
          {
            name: "before",
            component_code: `export default defineComponent({ async run({ $ }) {
              $.flow.delay(2500); return { at: Date.now() } } })`,
          },
          {
            name: "after",
            component_code: `export default defineComponent({ async run({ steps }) {
              return { waited: Date.now() - steps.before.$return_value.at } } })`,
          },
        ],
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const wf = created.body.data.id as string;
    const ran = await api(`/v1/workflows/${wf}/run`, { method: "POST", body: "{}" });
    expect(ran.body.data.status).toBe("delayed");
    const exe = ran.body.data.id as string;
    const at = ran.body.data.steps[0].return_value.at as number;

    // A crash while the run waits.
    server.child.kill("SIGKILL");
    await server.exited;
    server = await serve(["--data-dir", "data"], { cwd, env }, 60_000);
    const up = Date.now();
    let done: any;
    const deadline = Date.now() + 30_000;
    do {
      await new Promise((r) => setTimeout(r, 100));
      done = (await api(`/v1/workflows/${wf}/executions/${exe}`)).body.data;
    } while (done.status !== "succeeded" && done.status !== "failed" && Date.now() < deadline);
    expect(done.status).toBe("succeeded");
    expect(done.steps[0]).toMatchObject({ attempts: 1, return_value: { at } });
    // Due while the server was down: run once it is up, not before it was due.
    expect(done.steps[1].return_value.waited).toBeGreaterThanOrEqual(2500);
    expect(done.finished_at_ms).toBeGreaterThanOrEqual(up);
  });
});
