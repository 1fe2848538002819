// Issue 14, item 10: a stored webhook secret that this node cannot decrypt (another secrets key) is
// a configuration error shown on the webhook, not a transport error retried on the schedule.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, HTTP_SOURCE, type Receiver, startApi, startReceiver } from "./_harness.js";

describe("a webhook secret that cannot be decrypted at delivery", () => {
  let api: Api;
  let receiver: Receiver;
  beforeAll(async () => {
    api = await startApi("fetch");
    api.hookline.start();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  it("disables the webhook with disabled_reason secret_undecryptable; its deliveries wait paused", async () => {
    const whId = (await api.call("POST", "/v1/webhooks", { query: { url: receiver.url } })).body.data.id;
    const source = await api.call("POST", "/v1/sources", { body: { component_code: HTTP_SOURCE } });
    await api.call("POST", "/v1/subscriptions", {
      query: { emitter_id: source.body.data.id, listener_id: whId },
    });
    // The stored secret as another secrets key would have sealed it: it no longer authenticates.
    const { store } = api.hookline;
    const stored = await store.webhooks.get(api.workspaceId, whId);
    const secret = stored?.secrets[0];
    if (!secret) throw new Error("no stored secret");
    const tampered = `${secret.value.slice(0, -2)}${secret.value.endsWith("AA") ? "BB" : "AA"}`;
    await store.webhooks.update(api.workspaceId, whId, { secrets: [{ ...secret, value: tampered }] });

    const endpoint = new URL(source.body.data.endpoint_url as string).pathname;
    const hit = await api.raw(endpoint, { method: "POST", body: '{"total":1}' });
    expect(hit.status).toBe(200);

    await eventually(async () => {
      const webhook = await api.call("GET", `/v1/webhooks/${whId}`);
      expect(webhook.body.data).toMatchObject({ active: false, disabled_reason: "secret_undecryptable" });
    });
    let delivery: { status: string; attempts: number; last_error: string } | undefined;
    await eventually(async () => {
      const deliveries = await api.call("GET", `/v1/webhooks/${whId}/deliveries`);
      expect(deliveries.body.data).toHaveLength(1);
      [delivery] = deliveries.body.data;
      expect(delivery).toMatchObject({ status: "paused", attempts: 1 });
    });
    expect(delivery?.last_error).toMatch(/^secret_undecryptable: A stored secret could not be decrypted/);
    expect(receiver.requests).toHaveLength(0);
    // Paused, not retried on the schedule: nothing changes while the webhook waits.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await api.call("GET", `/v1/webhooks/${whId}/deliveries`);
    expect(again.body.data[0]).toMatchObject({ status: "paused", attempts: 1 });

    // Fixed (the secret as this node's key sealed it: the server restarted with the right
    // HOOKLINE_SECRETS_KEY) and enabled again: the waiting delivery is sent.
    await store.webhooks.update(api.workspaceId, whId, { secrets: [secret] });
    expect((await api.call("PATCH", `/v1/webhooks/${whId}`, { body: { active: true } })).status).toBe(200);
    await eventually(() => expect(receiver.requests).toHaveLength(1));
    const webhook = await api.call("GET", `/v1/webhooks/${whId}`);
    expect(webhook.body.data).toMatchObject({ active: true, disabled_reason: null });
  }, 30_000);
});
