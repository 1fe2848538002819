/**
 * The workspace's own emitter: events about the workspace rather than a source, emitted with the
 * workspace's `ws_` id as emitter id, so that a webhook subscribes to them like to a source
 * (`POST /v1/subscriptions {emitter_id: "ws_...", listener_id: "wh_...", event_name?}`) and gets them
 * signed and retried. Channels: `account.connected`, `account.needs_reconnect`.
 */
import type { EngineContext } from "../context.js";

/** Stores one workspace event (and its deliveries); a failure is reported, never thrown. @internal */
export async function emitWorkspaceEvent(
  ctx: Pick<EngineContext, "store" | "clock" | "notify" | "wakeWorker">,
  workspaceId: string,
  channel: string,
  summary: string,
  body: Record<string, unknown>,
): Promise<void> {
  try {
    const [event] = await ctx.store.emits.commit({
      workspaceId,
      componentId: workspaceId,
      events: [{ channel, summary, ts: ctx.clock.now(), body }],
    });
    if (event) {
      ctx.notify("emit", { workspaceId, sourceId: workspaceId, event, deliveryIds: event.deliveryIds });
      if (event.deliveryIds.length > 0) ctx.wakeWorker();
    }
  } catch (error) {
    console.error(`[hookline] could not store the workspace event ${channel}:`, error);
  }
}
