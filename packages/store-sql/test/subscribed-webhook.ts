import type { Store, WebhookSecret } from "@hookline/store";

/**
 * A new workspace named `name` with one active webhook subscribed to the events of `emitterId`: what
 * a test needs before an emit makes deliveries.
 *
 * @example
 * ```ts
 * const { ws } = await subscribedWebhook(store, "dc_1");
 * await store.emits.commit({ workspaceId: ws.id, componentId: "dc_1", events });
 * ```
 */
export async function subscribedWebhook(
  store: Store,
  emitterId: string,
  name = "test",
  secrets: WebhookSecret[] = [],
) {
  const ws = await store.workspaces.create({ name });
  const webhook = await store.webhooks.create({
    workspaceId: ws.id,
    url: "http://127.0.0.1:9/hook",
    active: true,
    secrets,
  });
  await store.subscriptions.create({ workspaceId: ws.id, emitterId, listenerId: webhook.id });
  return { ws, webhook };
}
