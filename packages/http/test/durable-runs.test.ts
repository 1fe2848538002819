// Durable workflow runs through REST (issue 20), on memory, PGlite and (with HOOKLINE_TEST_PG_URL)
// Postgres: a run whose node died mid-step resumes at that step with its attempt number
// incremented while finished steps never run again; per-step retries with their history;
// $.flow.delay on the engine's clock, $.flow.suspend with its resume URL's body reaching the next
// step, cancel URLs, $.flow.rerun and its limit; single-use tokens.
import { createFakeClock, type FakeClock } from "@hookline/engine";
import type { ExecutionStep, Store } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, startApi } from "./_harness.js";
import { type OpenStore, STORES } from "./_stores.js";

const START = Date.UTC(2026, 0, 1);

const code = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } })`;

for (const [storeName, open] of STORES)
  describe(`durable runs on the ${storeName} store`, () => {
    let api: Api;
    let opened: Awaited<ReturnType<OpenStore>>;
    let clock: FakeClock;
    let store: Store;
    beforeAll(async () => {
      opened = await open();
      store = opened.store;
      clock = createFakeClock(START);
      api = await startApi("fetch", {
        engine: { worker: false, store, clock, timerPollMs: 25, executionLeaseMs: 10_000 },
      });
      await api.hookline.start();
    }, 60_000);
    afterAll(async () => {
      await api.close();
      await opened.close();
    });

    async function create(definition: Record<string, unknown>) {
      const res = await api.call("POST", "/v1/workflows", {
        body: { trigger: { type: "manual" }, ...definition },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as { id: string };
    }
    const run = async (id: string) => (await api.call("POST", `/v1/workflows/${id}/run`)).body.data;
    const get = async (wf: string, exe: string) =>
      (await api.call("GET", `/v1/workflows/${wf}/executions/${exe}`)).body.data;
    /** Advances the clock and waits for the execution to reach `status`. */
    async function until(wf: string, exe: string, status: string, ms = 0) {
      clock.advance(ms);
      let last: any;
      await eventually(async () => {
        last = await get(wf, exe);
        expect(last.status).toBe(status);
      });
      return last;
    }
    /** A flow URL's path and query, for the handler. */
    const local = (url: string) => {
      const u = new URL(url);
      return u.pathname + u.search;
    };

    it("a run whose node died mid-step resumes at that step: attempt 2, earlier steps not rerun", async () => {
      const wf = await create({
        name: "crash",
        retry: { count: 0 },
        steps: [
          { name: "a", component_code: code(`throw new Error("a ran again")`) },
          {
            name: "b",
            component_code: code(`return { attempt: $.context.attempt, a: steps.a.$return_value }`),
          },
          { name: "c", component_code: code(`return steps.b.$return_value.attempt + steps.a.n`) },
        ],
      });
      // What a node that died while running b left behind: a finished, b started, the lease expired.
      const ws = api.workspaceId;
      const now = clock.now();
      const done: ExecutionStep = {
        name: "a",
        status: "succeeded",
        returnValue: "from a",
        exports: { n: 40 },
        logs: [],
        attempts: 1,
      };
      const exe = await store.executions?.create({
        workspaceId: ws,
        workflowId: wf.id,
        trigger: "manual",
        event: {},
        status: "running",
        leaseOwner: "dead-node",
        leaseExpiresAt: now + 5_000,
        startedAt: now,
        steps: [
          done,
          { name: "b", status: "running", logs: [], attempts: 1, startedAt: now },
          { name: "c", status: "pending", logs: [], attempts: 0 },
        ],
      });
      expect((await get(wf.id, exe?.id as string)).status).toBe("running");
      const after = await until(wf.id, exe?.id as string, "succeeded", 5_000);
      expect(after.steps.map((s: { status: string }) => s.status)).toEqual([
        "succeeded",
        "succeeded",
        "succeeded",
      ]);
      expect(after.steps[0]).toMatchObject({ attempts: 1, return_value: "from a" });
      expect(after.steps[1]).toMatchObject({ attempts: 2, return_value: { attempt: 2, a: "from a" } });
      expect(after.steps[1].attempt_errors).toEqual([expect.objectContaining({ code: "interrupted" })]);
      expect(after.steps[2].return_value).toBe(42);
    });

    it("a rerun whose node died resumes with its run count and context", async () => {
      const wf = await create({
        name: "rerun crash",
        steps: [
          { name: "poll", component_code: code(`return { run: $.context.run, attempt: $.context.attempt }`) },
        ],
      });
      const now = clock.now();
      const exe = await store.executions?.create({
        workspaceId: api.workspaceId,
        workflowId: wf.id,
        trigger: "manual",
        event: {},
        status: "running",
        leaseOwner: "dead-node",
        leaseExpiresAt: now + 5_000,
        startedAt: now,
        steps: [
          {
            name: "poll",
            status: "running",
            logs: [],
            attempts: 1,
            pause: { kind: "rerun", runs: 3, context: { page: 7 }, maxReruns: 10 },
          },
        ],
      });
      const done = await until(wf.id, exe?.id as string, "succeeded", 5_000);
      expect(done.steps[0].return_value).toEqual({ run: { runs: 3, context: { page: 7 } }, attempt: 2 });
      expect(done.steps[0].pause).toBeUndefined();
    });

    it("retries a failing step with backoff, recording each try's error, until it succeeds", async () => {
      const wf = await create({
        name: "flaky",
        retry: { count: 3, initial_ms: 1_000, factor: 2, jitter: 0 },
        steps: [
          { name: "first", component_code: code(`return "once"`) },
          {
            name: "flaky",
            component_code: code(
              `if ($.context.attempt < 3) throw new Error("try " + $.context.attempt); return "ok"`,
            ),
          },
        ],
      });
      const t0 = clock.now();
      const exe = await run(wf.id);
      expect(exe).toMatchObject({ status: "queued", run_at_ms: t0 + 1_000 });
      expect(exe.steps[1]).toMatchObject({ status: "pending", attempts: 1 });
      expect(exe.steps[1].attempt_errors.map((e: { message: string }) => e.message)).toEqual(["try 1"]);
      clock.advance(999);
      await new Promise((r) => setTimeout(r, 150));
      expect((await get(wf.id, exe.id)).steps[1].attempts).toBe(1);
      clock.advance(1);
      let second: any;
      await eventually(async () => {
        second = await get(wf.id, exe.id);
        expect(second).toMatchObject({ status: "queued", steps: [{}, { attempts: 2 }] });
      });
      expect(second.run_at_ms).toBe(t0 + 1_000 + 2_000); // the backoff doubled
      const done = await until(wf.id, exe.id, "succeeded", 2_000);
      expect(done.steps[0]).toMatchObject({ attempts: 1, return_value: "once" });
      expect(done.steps[1]).toMatchObject({ status: "succeeded", attempts: 3, return_value: "ok" });
      expect(done.steps[1].attempt_errors.map((e: { message: string }) => e.message)).toEqual([
        "try 1",
        "try 2",
      ]);
    });

    it("fails the run after the last try; a step's own policy overrides the workflow's", async () => {
      const wf = await create({
        name: "doomed",
        retry: { count: 1, initial_ms: 100, jitter: 0 },
        steps: [{ name: "a", component_code: code(`throw new Error("no " + $.context.attempt)`) }],
      });
      const exe = await run(wf.id);
      expect(exe.status).toBe("queued");
      const failed = await until(wf.id, exe.id, "failed", 100);
      expect(failed.steps[0]).toMatchObject({ status: "failed", attempts: 2 });
      expect(failed.error.message).toBe("no 2");
      expect(failed.steps[0].attempt_errors).toHaveLength(2);

      const own = await create({
        name: "own",
        retry: { count: 5 },
        steps: [{ name: "a", retry: { count: 0 }, component_code: code(`throw new Error("at once")`) }],
      });
      expect(await run(own.id)).toMatchObject({ status: "failed", error: { message: "at once" } });
    });

    it("defaults: a manual run retries (next try in 4 to 5 minutes); a custom_response workflow never", async () => {
      const manual = await create({
        name: "default",
        steps: [{ name: "a", component_code: code(`throw new Error("down")`) }],
      });
      const t0 = clock.now();
      const exe = await run(manual.id);
      expect(exe.status).toBe("queued");
      expect(exe.run_at_ms).toBeGreaterThanOrEqual(t0 + 4 * 60_000); // 5 minutes less up to 20% jitter
      expect(exe.run_at_ms).toBeLessThanOrEqual(t0 + 5 * 60_000);

      const http = await create({
        name: "answers",
        trigger: { type: "http", custom_response: true },
        steps: [{ name: "a", component_code: code(`throw new Error("down")`) }],
      });
      expect((await run(http.id)).status).toBe("failed");
      const url = new URL((http as unknown as { trigger: { endpoint_url: string } }).trigger.endpoint_url);
      const answered = await api.raw(url.pathname, { method: "POST", body: "{}" });
      expect(answered.status).toBe(500);
      expect(((await answered.json()) as { error: { code: string } }).error.code).toBe("no_response");
    });

    it("refuses a bad retry policy with 422 naming the field", async () => {
      const res = await api.call("POST", "/v1/workflows", {
        body: {
          name: "bad",
          trigger: { type: "manual" },
          retry: { count: -1, speed: 2 },
          steps: [{ name: "a", retry: { factor: "x" }, component_code: code("return 1") }],
        },
      });
      expect(res.status).toBe(422);
      const paths = res.body.error.details.problems.map((p: { path: string }) => p.path);
      expect(paths).toEqual(expect.arrayContaining(["retry.count", "retry.speed", "steps[0].retry.factor"]));
    });

    it("$.flow.delay pauses the run after the step until its time; its cancel URL ends it, once", async () => {
      const wf = await create({
        name: "delay",
        steps: [
          { name: "wait", component_code: code(`const urls = $.flow.delay(60_000); return urls`) },
          { name: "after", component_code: code(`return "resumed"`) },
        ],
      });
      const t0 = clock.now();
      const exe = await run(wf.id);
      expect(exe).toMatchObject({ status: "delayed", run_at_ms: t0 + 60_000 });
      const urls = exe.steps[0].return_value;
      expect(urls.resume_url).toMatch(new RegExp(`/v1/flow/${exe.id}/resume\\?token=[\\w-]{32}`));
      expect(urls.cancel_url).toMatch(new RegExp(`/v1/flow/${exe.id}/cancel\\?token=[\\w-]{32}`));
      clock.advance(59_999);
      await new Promise((r) => setTimeout(r, 150));
      expect((await get(wf.id, exe.id)).status).toBe("delayed");
      const done = await until(wf.id, exe.id, "succeeded", 1);
      expect(done.steps[1].return_value).toBe("resumed");
      expect(done.steps[0].pause).toMatchObject({ kind: "delay", outcome: "due" });
      // The URLs of a run that went on are dead.
      expect((await api.raw(local(urls.resume_url), { method: "POST" })).status).toBe(404);

      const other = await run(wf.id);
      const cancel = local(other.steps[0].return_value.cancel_url);
      const res = await api.call("GET", cancel, { key: null });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ execution_id: other.id, status: "exited" });
      const cancelled = await get(wf.id, other.id);
      expect(cancelled).toMatchObject({ status: "exited", exit_reason: "cancelled" });
      expect(cancelled.steps[1].status).toBe("skipped");
      const again = await api.call("GET", cancel, { key: null });
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe("not_found");
      clock.advance(60_000);
      await new Promise((r) => setTimeout(r, 150));
      expect((await get(wf.id, other.id)).status).toBe("exited");
    });

    it("$.flow.suspend waits for its resume URL, whose body reaches the next step; tokens work once", async () => {
      const wf = await create({
        name: "approve",
        steps: [
          { name: "ask", component_code: code(`return $.flow.suspend(3_600_000)`) },
          { name: "decide", component_code: code(`return steps.ask.$resume_data`) },
        ],
      });
      const exe = await run(wf.id);
      expect(exe.status).toBe("suspended");
      const { resume_url, cancel_url } = exe.steps[0].return_value;
      const wrong = local(resume_url).replace(/token=.*/, "token=not-the-token");
      expect((await api.call("POST", wrong, { key: null, body: {} })).status).toBe(404);
      // A cancel token does not resume.
      const swapped = local(resume_url).replace(/token=.*/, new URL(cancel_url).search.slice(1));
      expect((await api.call("POST", swapped, { key: null, body: {} })).status).toBe(404);
      const res = await api.call("POST", local(resume_url), {
        key: null,
        body: { approved: true, by: "ada" },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe("queued");
      const done = await until(wf.id, exe.id, "succeeded");
      expect(done.steps[1].return_value).toEqual({ approved: true, by: "ada" });
      expect(done.steps[0]).toMatchObject({ resume_data: { approved: true, by: "ada" } });
      const twice = await api.call("POST", local(resume_url), { key: null, body: {} });
      expect(twice.status).toBe(404);
      expect((await api.call("GET", local(cancel_url), { key: null })).status).toBe(404);
    });

    it("an HTTP trigger waiting for $.respond gets the step's reply, or 202, when the run pauses", async () => {
      const wf = await create({
        name: "pause answers",
        trigger: { type: "http", custom_response: true },
        steps: [
          {
            name: "ask",
            component_code: code(
              `if (steps.trigger.event.body.reply) await $.respond({ status: 201, body: "later" }); $.flow.suspend(60_000)`,
            ),
          },
          { name: "after", component_code: code(`return 1`) },
        ],
      });
      const url = new URL((wf as unknown as { trigger: { endpoint_url: string } }).trigger.endpoint_url)
        .pathname;
      const post = (body: unknown) =>
        api.raw(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const replied = await post({ reply: true });
      expect(replied.status).toBe(201);
      expect(await replied.text()).toBe("later");
      const accepted = await post({ reply: false });
      expect(accepted.status).toBe(202);
      const body = (await accepted.json()) as { execution_id: string; status: string };
      expect(body.status).toBe("suspended");
      expect((await get(wf.id, body.execution_id)).status).toBe("suspended");
    });

    it("a suspend that times out fails the run with suspend_timeout", async () => {
      const wf = await create({
        name: "timeout",
        steps: [
          { name: "ask", component_code: code(`$.flow.suspend(1_000)`) },
          { name: "never", component_code: code(`return 1`) },
        ],
      });
      const exe = await run(wf.id);
      const failed = await until(wf.id, exe.id, "failed", 1_000);
      expect(failed.error.code).toBe("suspend_timeout");
      expect(failed.steps.map((s: { status: string }) => s.status)).toEqual(["succeeded", "skipped"]);
    });

    it("$.flow.rerun reruns the step with $.context.run, and stops at maxReruns", async () => {
      const wf = await create({
        name: "poll",
        steps: [
          {
            name: "poll",
            component_code: code(
              `const run = $.context.run; if (run.runs < 3) return $.flow.rerun(1_000, { seen: run.runs }); return run`,
            ),
          },
          {
            name: "next",
            component_code: code(`return { poll: steps.poll.$return_value.runs, own: $.context.run }`),
          },
        ],
      });
      const exe = await run(wf.id);
      expect(exe).toMatchObject({ status: "delayed" });
      expect(exe.steps[0]).toMatchObject({ status: "pending", pause: { kind: "rerun", runs: 2 } });
      await eventually(async () => {
        clock.advance(1_000);
        expect((await get(wf.id, exe.id)).status).toBe("succeeded");
      });
      const done = await get(wf.id, exe.id);
      expect(done.steps[0].return_value).toEqual({ runs: 3, context: { seen: 2 } });
      // The rerun's count and context are its step's: the next step runs for the first time.
      expect(done.steps[1].return_value).toEqual({ poll: 3, own: { runs: 1 } });

      const forever = await create({
        name: "forever",
        retry: { count: 0 },
        steps: [{ name: "poll", component_code: code(`$.flow.rerun(0, null, 2)`) }],
      });
      const looping = await run(forever.id);
      let last: any;
      await eventually(async () => {
        last = await get(forever.id, looping.id);
        expect(last.status).toBe("failed");
      });
      expect(last.error.code).toBe("rerun_limit");
    });
  });

for (const [storeName, open] of STORES)
  describe(`a resume URL called before its step ends, on the ${storeName} store`, () => {
    let api: Api;
    let opened: Awaited<ReturnType<OpenStore>>;
    beforeAll(async () => {
      opened = await open();
      api = await startApi("node", { engine: { worker: false, store: opened.store, timerPollMs: 25 } });
      await api.hookline.start();
    }, 60_000);
    afterAll(async () => {
      await api.close();
      await opened.close();
    });

    it("the run goes on at once with the body as $resume_data (the URL may be handed out before the pause)", async () => {
      const created = await api.call("POST", "/v1/workflows", {
        body: {
          name: "early",
          trigger: { type: "manual" },
          steps: [
            {
              name: "ask",
              // The callback arrives while this step still runs (as a fast external service would).
              component_code: code(`const { resume_url } = $.flow.suspend(3_600_000);
                const path = resume_url.slice(resume_url.indexOf("/v1/flow/"));
                const res = await fetch(steps.trigger.event.base + path, {
                  method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ early: true }) });
                return res.status;`),
            },
            { name: "next", component_code: code(`return steps.ask.$resume_data`) },
          ],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const wf = created.body.data.id as string;
      const exe = (await api.call("POST", `/v1/workflows/${wf}/run`, { body: { event: { base: api.base } } }))
        .body.data;
      expect(exe.status).toBe("succeeded");
      expect(exe.steps[0]).toMatchObject({ return_value: 200, resume_data: { early: true } });
      expect(exe.steps[0].pause).toMatchObject({ kind: "suspend", outcome: "resumed" });
      expect(exe.steps[1].return_value).toEqual({ early: true });
    });
  });
