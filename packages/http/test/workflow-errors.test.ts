// A failed workflow run's `$errors` event through REST: Pipedream's shape
// `{ original_event, original_context, error: { name, message, stack }, step }` delivered signed to
// a webhook subscribed with `listener_url`, and another workflow triggered on it (a source trigger
// on `p_...` with `event_name: "$errors"`); an error handler's own failure starts no further
// workflow. On memory, PGlite, and Postgres when HOOKLINE_TEST_PG_URL is set.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, type Receiver, startApi, startReceiver } from "./_harness.js";
import { STORES } from "./_stores.js";

const code = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } })`;

describe.each(STORES)("$errors on the %s store", (_name, open) => {
  let api: Api;
  let receiver: Receiver;
  let closeStore: () => Promise<void>;
  beforeAll(async () => {
    const opened = await open();
    closeStore = opened.close;
    api = await startApi("fetch", { engine: { store: opened.store } });
    await api.hookline.start();
    receiver = await startReceiver(200);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await closeStore();
    await receiver.close();
  });

  async function create(definition: Record<string, unknown>) {
    const res = await api.call("POST", "/v1/workflows", { body: definition });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { id: string };
  }

  const failing = () =>
    create({
      name: "charges",
      trigger: { type: "manual" },
      retry: { count: 0 }, // fails on its first try (retries: durable-runs.test.ts)
      steps: [
        { name: "load", component_code: code("return steps.trigger.event.order") },
        {
          name: "charge",
          component_code: code(`throw new TypeError("card declined for " + steps.load.$return_value)`),
        },
      ],
    });

  it("is delivered signed, in Pipedream's shape, to a subscription by listener_url", async () => {
    const wf = await failing();
    const sub = await api.call("POST", "/v1/subscriptions", {
      query: { emitter_id: wf.id, event_name: "$errors", listener_url: `${receiver.url}?errors` },
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(sub.body.data).toMatchObject({ emitter_id: wf.id, event_name: "$errors" });
    const listener = sub.body.data.listener_id as string;
    expect(listener).toMatch(/^wh_/);
    // The same URL again: the same webhook and subscription.
    const again = await api.call("POST", "/v1/subscriptions", {
      query: { emitter_id: wf.id, event_name: "$errors", listener_url: `${receiver.url}?errors` },
    });
    expect(again.body.data.listener_id).toBe(listener);
    const secret = (await api.call("GET", `/v1/webhooks/${listener}/secret`)).body.data.secret;

    const run = await api.call("POST", `/v1/workflows/${wf.id}/run`, { body: { event: { order: 42 } } });
    expect(run.body.data.status).toBe("failed");
    await eventually(() => {
      const got = receiver.requests.filter((r) => r.url === "/hook?errors");
      expect(got).toHaveLength(1);
      const r = got[0] as (typeof got)[number];
      expect(JSON.parse(r.body)).toEqual({
        original_event: { order: 42 },
        original_context: { trigger: "manual" },
        error: {
          name: "TypeError",
          message: "card declined for 42",
          stack: expect.stringContaining("card declined for 42"),
        },
        step: "charge",
        workflow_id: wf.id,
        execution_id: run.body.data.id,
      });
      expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    });
  }, 20_000);

  it("refuses a subscription with neither or both of listener_id and listener_url", async () => {
    const wf = await failing();
    const neither = await api.call("POST", "/v1/subscriptions", { query: { emitter_id: wf.id } });
    expect(neither.status).toBe(422);
    expect(neither.body.error.details.problems[0].path).toBe("listener_id");
  });

  it("starts another workflow with a source trigger on p_... $errors; a handler's failure goes no further", async () => {
    const wf = await failing();
    const handler = await create({
      name: "on charge errors",
      trigger: { type: "source", source_id: wf.id, event_name: "$errors" },
      retry: { count: 0 },
      steps: [
        {
          name: "note",
          component_code: code(`const e = steps.trigger.event;
            if (e.original_event.order === 13) throw new Error("handler broke");
            return { step: e.step, message: e.error.message, order: e.original_event.order,
                     from: steps.trigger.context.source_id, channel: steps.trigger.context.name }`),
        },
      ],
    });
    const third = await create({
      name: "on handler errors",
      trigger: { type: "source", source_id: handler.id, event_name: "$errors" },
      steps: [{ name: "x", component_code: code("return 1") }],
    });
    await api.call("POST", `/v1/workflows/${wf.id}/run`, { body: { event: { order: 7 } } });
    await eventually(async () => {
      const list = await api.call("GET", `/v1/workflows/${handler.id}/executions`);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({ status: "succeeded", trigger: "source" });
      expect(list.body.data[0].steps[0].return_value).toEqual({
        step: "charge",
        message: "card declined for 7",
        order: 7,
        from: wf.id,
        channel: "$errors",
      });
    });

    // The handler fails: its $errors is stored, and the workflow listening to it does not run.
    await api.call("POST", `/v1/workflows/${wf.id}/run`, { body: { event: { order: 13 } } });
    await eventually(async () => {
      const events = await api.call("GET", `/v1/workflows/${handler.id}/event_summaries`, {
        query: { event_name: "$errors", expand: "event" },
      });
      expect(events.body.data).toHaveLength(1);
      expect(events.body.data[0].event.error.message).toBe("handler broke");
    });
    await new Promise((r) => setTimeout(r, 300));
    const none = await api.call("GET", `/v1/workflows/${third.id}/executions`);
    expect(none.body.data).toEqual([]);
  }, 20_000);

  it("finds a workflow's $errors by content: filter, time window, and a 422 naming a bad filter", async () => {
    const wf = await failing();
    for (const order of [21, 22, 23]) {
      const run = await api.call("POST", `/v1/workflows/${wf.id}/run`, { body: { event: { order } } });
      expect(run.status, JSON.stringify(run.body)).toBe(200);
    }
    const path = `/v1/workflows/${wf.id}/event_summaries`;
    await eventually(async () => {
      const all = await api.call("GET", path, { query: { event_name: "$errors" } });
      expect(all.body.data).toHaveLength(3);
    });
    const one = await api.call("GET", path, {
      query: { expand: "event", filter: JSON.stringify({ "event.original_event.order": 22 }) },
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data.map((e: { event: { original_event: unknown } }) => e.event.original_event)).toEqual([
      { order: 22 },
    ]);
    const text = await api.call("GET", path, {
      query: { filter: JSON.stringify({ "event.error.message": { $contains: "for 23" } }) },
    });
    expect(text.body.data).toHaveLength(1);
    const later = await api.call("GET", path, {
      query: { since: String(Math.ceil(Date.now() / 1000) + 60) },
    });
    expect(later.body.data).toEqual([]);
    const bad = await api.call("GET", path, {
      query: { filter: JSON.stringify({ "event.order": { $nope: 1 } }) },
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.error)).toContain("filter");
  }, 20_000);

  it("refuses a p_ source without event_name $errors, an unknown workflow, and its own $errors", async () => {
    const wf = await failing();
    const steps = [{ name: "a", component_code: code("return 1") }];
    const noChannel = await api.call("POST", "/v1/workflows", {
      body: { name: "x", trigger: { type: "source", source_id: wf.id }, steps },
    });
    expect(noChannel.status).toBe(422);
    expect(noChannel.body.error.details.problems).toEqual([
      expect.objectContaining({ code: "invalid_trigger", path: "trigger.event_name" }),
    ]);
    const unknown = await api.call("POST", "/v1/workflows", {
      body: {
        name: "x",
        trigger: { type: "source", source_id: "p_00000000000000000000000000", event_name: "$errors" },
        steps,
      },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details.problems).toEqual([
      expect.objectContaining({ code: "not_found", path: "trigger.source_id" }),
    ]);
    const self = await api.call("PUT", `/v1/workflows/${wf.id}`, {
      body: { trigger: { type: "source", source_id: wf.id, event_name: "$errors" } },
    });
    expect(self.status).toBe(422);
    expect(self.body.error.details.problems[0]).toMatchObject({ path: "trigger.source_id" });
    const notASource = await api.call("POST", "/v1/workflows", {
      body: { name: "x", trigger: { type: "source", source_id: "wh_1", event_name: "$errors" }, steps },
    });
    expect(notASource.body.error.details.problems[0]).toMatchObject({ path: "trigger.source_id" });
  });
});
