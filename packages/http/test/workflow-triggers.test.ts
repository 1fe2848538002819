// Workflow triggers through REST and the /http ingress: HTTP ($.respond default, custom, immediate,
// none), timer, source, manual; $.send.emit delivered signed to a subscribed webhook (and $errors);
// $.send.sse seen on the workflow's stream.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createFakeClock } from "@hookline/engine";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, type Receiver, startApi, startReceiver } from "./_harness.js";
import { readSse } from "./_sse-reader.js";
import { type OpenedStore, WORKFLOW_STORES } from "./_workflow-stores.js";

for (const { name: storeName, open } of WORKFLOW_STORES)
  describe(`on the ${storeName} store`, () => {
    const clock = createFakeClock(Date.now());
    let api: Api;
    let receiver: Receiver;
    let opened: OpenedStore;
    beforeAll(async () => {
      opened = await open();
      api = await startApi("node", { engine: { clock, store: opened.store } });
      receiver = await startReceiver(200);
    }, 60_000);
    afterAll(async () => {
      await api.close();
      await opened.close();
      await receiver.close();
    });

    const code = (body: string, props = "") =>
      `export default defineComponent({ ${props ? `props: ${props},` : ""} async run({ steps, $ }) { ${body} } })`;

    async function create(definition: Record<string, unknown>) {
      const res = await api.call("POST", "/v1/workflows", { body: definition });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as { id: string; trigger: { endpoint_url?: string; endpoint_id?: string } };
    }

    const post = (url: string, body: unknown) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    describe("HTTP trigger", () => {
      it("without custom_response: 200 {success, execution_id} once accepted, then the run", async () => {
        const wf = await create({
          name: "http default",
          trigger: { type: "http" },
          steps: [{ name: "a", component_code: code("return steps.trigger.event.body.n + 1") }],
        });
        expect(wf.trigger.endpoint_url).toBe(`http://localhost:4100/http/${wf.trigger.endpoint_id}`);
        const res = await post(`${api.base}/http/${wf.trigger.endpoint_id}`, { n: 1 });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { execution_id: string };
        expect(body).toEqual({ success: true, execution_id: expect.stringMatching(/^exe_/) });
        await eventually(async () => {
          const exe = await api.call("GET", `/v1/workflows/${wf.id}/executions/${body.execution_id}`);
          expect(exe.body.data).toMatchObject({ status: "succeeded", trigger: "http" });
          expect(exe.body.data.steps[0].return_value).toBe(2);
          expect(exe.body.data.event).toMatchObject({ method: "POST", body: { n: 1 } });
        });
      });

      it("custom_response: the request waits for $.respond", async () => {
        const wf = await create({
          name: "http custom",
          trigger: { type: "http", custom_response: true },
          steps: [
            { name: "a", component_code: code(`return { hi: steps.trigger.event.body.name }`) },
            {
              name: "reply",
              component_code: code(
                `await $.respond({ status: 201, headers: { "x-step": "reply" }, body: { text: this.text } })`,
                `{ text: { type: "string" } }`,
              ),
              configured_props: { text: "Hello {{steps.a.$return_value.hi}}" },
            },
          ],
        });
        const res = await post(`${api.base}/http/${wf.trigger.endpoint_id}`, { name: "Ada" });
        expect(res.status).toBe(201);
        expect(res.headers.get("x-step")).toBe("reply");
        expect(await res.json()).toEqual({ text: "Hello Ada" });
      });

      it("custom_response with immediate: answered while later steps still run", async () => {
        // The second step waits on a loopback server that only answers once the test saw the response.
        let release: () => void = () => undefined;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        const gate = createServer((_req, res) => {
          void held.then(() => res.end(JSON.stringify({ late: true })));
        });
        await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
        const gateUrl = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/`;
        try {
          const wf = await create({
            name: "http immediate",
            trigger: { type: "http", custom_response: true },
            steps: [
              {
                name: "early",
                component_code: code(`$.respond({ immediate: true, status: 202, body: "accepted" })`),
              },
              {
                name: "late",
                component_code: code(
                  `const r = await fetch(${JSON.stringify(gateUrl)}); return await r.json()`,
                ),
              },
            ],
          });
          const res = await post(`${api.base}/http/${wf.trigger.endpoint_id}`, {});
          expect(res.status).toBe(202);
          expect(await res.text()).toBe("accepted");
          const running = await api.call("GET", `/v1/workflows/${wf.id}/executions`);
          expect(running.body.data[0].status).toBe("running");
          release();
          await eventually(async () => {
            const list = await api.call("GET", `/v1/workflows/${wf.id}/executions`);
            expect(list.body.data[0].status).toBe("succeeded");
            expect(list.body.data[0].steps[1].return_value).toEqual({ late: true });
          });
        } finally {
          release();
          await new Promise<void>((resolve) => gate.close(() => resolve()));
        }
      });

      it("custom_response and no $.respond: 500 no_response; inactive: 404", async () => {
        const wf = await create({
          name: "http none",
          trigger: { type: "http", custom_response: true },
          steps: [{ name: "a", component_code: code("return 1") }],
        });
        const res = await post(`${api.base}/http/${wf.trigger.endpoint_id}`, {});
        expect(res.status).toBe(500);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("no_response");
        await api.call("PUT", `/v1/workflows/${wf.id}`, { body: { active: false } });
        expect((await post(`${api.base}/http/${wf.trigger.endpoint_id}`, {})).status).toBe(404);
      });
    });

    describe("timer, source and manual triggers", () => {
      it("a timer trigger runs on its schedule", async () => {
        const wf = await create({
          name: "every minute",
          trigger: { type: "timer", intervalSeconds: 60 },
          steps: [{ name: "a", component_code: code("return steps.trigger.event.interval_seconds") }],
        });
        expect(await api.hookline.timers.tick()).toBe(0);
        clock.advance(61_000);
        expect(await api.hookline.timers.tick()).toBe(1);
        await eventually(async () => {
          const list = await api.call("GET", `/v1/workflows/${wf.id}/executions`);
          expect(list.body.data).toHaveLength(1);
          expect(list.body.data[0]).toMatchObject({ status: "succeeded", trigger: "timer" });
          expect(list.body.data[0].steps[0].return_value).toBe(60);
        });
      });

      it("a cron trigger with a time zone is accepted and scheduled; a bad cron is 422", async () => {
        await create({
          name: "cron",
          trigger: { type: "timer", cron: "0 9 * * 1", timezone: "Europe/Paris" },
          steps: [{ name: "a", component_code: code("return 1") }],
        });
        const bad = await api.call("POST", "/v1/workflows", {
          body: {
            name: "bad cron",
            trigger: { type: "timer", cron: "nope" },
            steps: [{ name: "a", component_code: code("return 1") }],
          },
        });
        expect(bad.status).toBe(422);
        expect(bad.body.error.details.problems[0]).toMatchObject({ code: "invalid_timer", path: "trigger" });
      });

      it("a source trigger runs on each event of its channel", async () => {
        const source = await api.call("POST", "/v1/sources", {
          body: {
            component_code: `export default { name: "Emitter", version: "0.0.1", async run(e) {
          this.$emit({ n: e.n }, { name: e.channel }) } }`,
          },
        });
        expect(source.status).toBe(200);
        const wf = await create({
          name: "listener",
          trigger: { type: "source", source_id: source.body.data.id, event_name: "orders" },
          steps: [
            {
              name: "a",
              component_code: code(
                "return { n: steps.trigger.event.n, from: steps.trigger.context.source_id }",
              ),
            },
          ],
        });
        await api.call("POST", `/v1/sources/${source.body.data.id}/run`, {
          body: { event: { n: 1, channel: "other" } },
        });
        await api.call("POST", `/v1/sources/${source.body.data.id}/run`, {
          body: { event: { n: 2, channel: "orders" } },
        });
        await eventually(async () => {
          const list = await api.call("GET", `/v1/workflows/${wf.id}/executions`);
          expect(list.body.data).toHaveLength(1);
          expect(list.body.data[0]).toMatchObject({ status: "succeeded", trigger: "source" });
          expect(list.body.data[0].steps[0].return_value).toEqual({ n: 2, from: source.body.data.id });
        });
      });
    });

    describe("what a workflow sends", () => {
      it("$.send.emit is delivered signed to a subscribed webhook; a failed run emits on $errors", async () => {
        await api.hookline.start();
        const wf = await create({
          name: "emitter",
          trigger: { type: "manual" },
          retry: { count: 0 }, // the run fails on its first try (retries: durable-runs.test.ts)
          steps: [
            {
              name: "a",
              component_code: code(
                `$.send.emit({ raw_event: { order: steps.trigger.event.order } }); if (steps.trigger.event.fail) throw new Error("boom")`,
              ),
            },
          ],
        });
        const hook = await api.call("POST", "/v1/webhooks", { body: { url: receiver.url } });
        const errorsHook = await api.call("POST", "/v1/webhooks", {
          body: { url: `${receiver.url}?errors` },
        });
        const sub = await api.call("POST", "/v1/subscriptions", {
          query: { emitter_id: wf.id, listener_id: hook.body.data.id },
        });
        expect(sub.status).toBe(200);
        const errSub = await api.call("POST", "/v1/subscriptions", {
          query: { emitter_id: wf.id, listener_id: errorsHook.body.data.id, event_name: "$errors" },
        });
        expect(errSub.body.data.event_name).toBe("$errors");
        const secret = (await api.call("GET", `/v1/webhooks/${hook.body.data.id}/secret`)).body.data.secret;

        await api.call("POST", `/v1/workflows/${wf.id}/run`, { body: { event: { order: 7 } } });
        await eventually(() => {
          const got = receiver.requests.filter((r) => r.url === "/hook");
          expect(got).toHaveLength(1);
          const r = got[0] as (typeof got)[number];
          expect(JSON.parse(r.body)).toEqual({ order: 7 });
          expect(r.headers["x-hookline-emitter-id"]).toBe(wf.id);
          expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
        });
        const events = await api.call("GET", `/v1/workflows/${wf.id}/event_summaries`, {
          query: { expand: "event" },
        });
        expect(events.body.data[0]).toMatchObject({
          event: { order: 7 },
          metadata: { emitter_id: wf.id, name: "default" },
        });

        const failed = (
          await api.call("POST", `/v1/workflows/${wf.id}/run`, { body: { event: { order: 8, fail: true } } })
        ).body.data;
        expect(failed.status).toBe("failed");
        await eventually(() => {
          const errs = receiver.requests.filter((r) => r.url === "/hook?errors");
          expect(errs).toHaveLength(1);
          expect(JSON.parse((errs[0] as { body: string }).body)).toMatchObject({
            workflow_id: wf.id,
            execution_id: failed.id,
            step: "a",
            error: { message: "boom" },
          });
        });
      });

      it("$.send.sse reaches the workflow's SSE stream", async () => {
        const wf = await create({
          name: "sse",
          trigger: { type: "manual" },
          steps: [
            { name: "a", component_code: code(`$.send.sse({ channel: "progress", payload: { pct: 50 } })`) },
          ],
        });
        const controller = new AbortController();
        const res = await api.raw(`/v1/workflows/${wf.id}/sse`, {
          headers: { authorization: `Bearer ${api.key}` },
          signal: controller.signal,
        });
        expect(res.status).toBe(200);
        const reader = readSse(res, controller);
        try {
          await eventually(() => expect(reader.comments.map((c) => c.trim())).toContain("connected"));
          const exe = (await api.call("POST", `/v1/workflows/${wf.id}/run`)).body.data;
          await eventually(() => {
            const sse = reader.messages.filter((m) => m.event === "sse");
            expect(sse).toHaveLength(1);
            expect(JSON.parse((sse[0] as { data: string }).data)).toEqual({
              execution_id: exe.id,
              step: "a",
              ts: expect.any(Number),
              payload: { channel: "progress", payload: { pct: 50 } },
            });
            const statuses = reader.messages
              .filter((m) => m.event === "execution")
              .map((m) => JSON.parse(m.data) as { execution_id: string; status: string })
              .filter((m) => m.execution_id === exe.id)
              .map((m) => m.status);
            expect(statuses).toEqual(["running", "succeeded"]);
          });
        } finally {
          await reader.close();
        }
      });
    });
  });
