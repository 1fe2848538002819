// Concurrency, throttling and bounded queues of workflows through REST (issue 20), on memory,
// PGlite and (with HOOKLINE_TEST_PG_URL) Postgres: at most `concurrency.max` runs at once, at most
// `throttle.limit` starts per `throttle.interval_ms` (on the engine's clock), and an HTTP trigger
// answering 429 with Retry-After once `queue_size` runs wait.
import { createFakeClock, type FakeClock } from "@hookline/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, startApi } from "./_harness.js";
import { type OpenStore, STORES } from "./_stores.js";

const code = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } })`;

for (const [storeName, open] of STORES)
  describe(`workflow limits on the ${storeName} store`, () => {
    let api: Api;
    let opened: Awaited<ReturnType<OpenStore>>;
    let clock: FakeClock;
    beforeAll(async () => {
      opened = await open();
      clock = createFakeClock(Date.UTC(2026, 0, 1));
      api = await startApi("fetch", {
        engine: { worker: false, store: opened.store, clock, timerPollMs: 25 },
      });
      await api.hookline.start();
    }, 60_000);
    afterAll(async () => {
      await api.close();
      await opened.close();
    });

    async function create(definition: Record<string, unknown>) {
      const res = await api.call("POST", "/v1/workflows", { body: definition });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as { id: string; trigger: { endpoint_url?: string } };
    }
    const executions = async (id: string) =>
      (await api.call("GET", `/v1/workflows/${id}/executions`, { query: { limit: "100" } })).body
        .data as any[];

    it("concurrency.max 1: the runs go one at a time, all of them", async () => {
      const wf = await create({
        name: "one at a time",
        trigger: { type: "manual" },
        concurrency: { max: 1 },
        steps: [
          {
            name: "work",
            component_code: code(
              "const start = Date.now(); await new Promise((r) => setTimeout(r, 150)); return { start, end: Date.now() }",
            ),
          },
        ],
      });
      expect(wf).toMatchObject({ concurrency: { max: 1 } });
      // Even a synchronous run is queued: the claim holds the limit.
      const first = (await api.call("POST", `/v1/workflows/${wf.id}/run`)).body.data;
      expect(["queued", "running"]).toContain(first.status);
      for (let i = 0; i < 3; i++)
        await api.call("POST", `/v1/workflows/${wf.id}/run`, { body: { async: true } });
      let most = 0;
      await eventually(async () => {
        const all = await executions(wf.id);
        most = Math.max(most, all.filter((e) => e.status === "running").length);
        expect(all.filter((e) => e.status === "succeeded")).toHaveLength(4);
      }, 20_000);
      expect(most).toBeLessThanOrEqual(1);
      const spans = (await executions(wf.id))
        .map((e) => e.steps[0].return_value as { start: number; end: number })
        .sort((a, b) => a.start - b.start);
      for (let i = 1; i < spans.length; i++) {
        expect(spans[i]?.start).toBeGreaterThanOrEqual(spans[i - 1]?.end as number);
      }
    });

    it("throttle: one start per interval of the clock; queue_size: the HTTP trigger answers 429 with Retry-After", async () => {
      const wf = await create({
        name: "throttled",
        trigger: { type: "http" },
        throttle: { limit: 1, interval_ms: 60_000 },
        queue_size: 1,
        steps: [{ name: "a", component_code: code("return steps.trigger.event.body") }],
      });
      const url = new URL(wf.trigger.endpoint_url as string).pathname;
      const post = (n: number) =>
        api.raw(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ n }),
        });
      expect((await post(1)).status).toBe(200);
      await eventually(async () =>
        expect((await executions(wf.id)).map((e) => e.status)).toEqual(["succeeded"]),
      );
      expect((await post(2)).status).toBe(200); // queued: the throttle allows one start per minute
      const full = await post(3);
      expect(full.status).toBe(429);
      expect(full.headers.get("retry-after")).toBe("60");
      expect(((await full.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
      const manual = await api.call("POST", `/v1/workflows/${wf.id}/run`, { body: { async: true } });
      expect(manual.status).toBe(429);
      expect(manual.body.error.code).toBe("rate_limited");
      await new Promise((r) => setTimeout(r, 150));
      expect((await executions(wf.id)).map((e) => e.status)).toEqual(["queued", "succeeded"]);
      clock.advance(60_000);
      await eventually(async () =>
        expect((await executions(wf.id)).map((e) => e.status)).toEqual(["succeeded", "succeeded"]),
      );
      expect((await post(4)).status).toBe(200);
    });

    it("refuses bad limits, and limits on an HTTP trigger that answers from the run, naming the field", async () => {
      const bad = await api.call("POST", "/v1/workflows", {
        body: {
          name: "bad",
          trigger: { type: "manual" },
          concurrency: { max: 0 },
          throttle: { limit: 1 },
          queue_size: "ten",
          steps: [{ name: "a", component_code: code("return 1") }],
        },
      });
      expect(bad.status).toBe(422);
      const paths = bad.body.error.details.problems.map((p: { path: string }) => p.path);
      expect(paths).toEqual(
        expect.arrayContaining(["concurrency.max", "throttle.interval_ms", "queue_size"]),
      );
      const custom = await api.call("POST", "/v1/workflows", {
        body: {
          name: "custom",
          trigger: { type: "http", custom_response: true },
          concurrency: { max: 2 },
          steps: [{ name: "a", component_code: code("return 1") }],
        },
      });
      expect(custom.status).toBe(422);
      expect(custom.body.error.details.problems[0].path).toBe("concurrency");
    });
  });
