/** Which webhooks receive an event: subscription channel matching, the same in every adapter. */
import { DEFAULT_CHANNEL } from "@hookline/core";

/**
 * The channel a subscription's `eventName` means: `null`/absent is `default`.
 *
 * @example
 * ```ts
 * channelOf(null); // "default"
 * ```
 */
export const channelOf = (eventName: string | null | undefined): string => eventName ?? DEFAULT_CHANNEL;

/** A subscription of an emitter to a webhook, as the outbox sees it. */
export interface DeliveryTarget {
  /** The subscription's channel (`null` is `default`). */
  eventName: string | null;
  /** The subscribed webhook. */
  webhookId: string;
  /** Whether the webhook is enabled (a disabled one gets `paused` deliveries). */
  active: boolean;
}

/**
 * The webhooks an event of `channel` goes to: those of `targets` (the emitter's webhook
 * subscriptions, oldest first) whose channel is `channel`, each once.
 *
 * @example
 * ```ts
 * targetsOf([{ eventName: null, webhookId: "wh_a", active: true }], "default"); // [that target]
 * ```
 */
export function targetsOf(targets: readonly DeliveryTarget[], channel: string): DeliveryTarget[] {
  const out: DeliveryTarget[] = [];
  const seen = new Set<string>();
  for (const target of targets) {
    if (channelOf(target.eventName) !== channel || seen.has(target.webhookId)) continue;
    seen.add(target.webhookId);
    out.push(target);
  }
  return out;
}
