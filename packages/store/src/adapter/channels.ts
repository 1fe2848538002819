/** Which webhooks receive an event: subscription channel matching, the same in every adapter. */
import {
  channelName,
  type FilterableEvent,
  type FilterNode,
  filterDocument,
  matchesFilter,
  parseEventFilter,
} from "@hookline/core";

/** A subscription of an emitter to a webhook, as the outbox sees it. */
export interface DeliveryTarget {
  /** The subscription's channel (`null` is `default`). */
  eventName: string | null;
  /** The subscribed webhook. */
  webhookId: string;
  /** Whether the webhook is enabled (a disabled one gets `paused` deliveries). */
  active: boolean;
  /** The subscription's filter: only matching events are delivered. */
  filter?: FilterNode;
}

/**
 * The webhooks an event of `channel` goes to: those of `targets` (the emitter's webhook
 * subscriptions, oldest first) whose channel is `channel` and, given the `event`, whose filter
 * matches it (see `matchesFilter` of `@hookline/core`), each once.
 *
 * @example
 * ```ts
 * targetsOf([{ eventName: null, webhookId: "wh_a", active: true }], "default"); // [that target]
 * ```
 */
export function targetsOf(
  targets: readonly DeliveryTarget[],
  channel: string,
  event?: FilterableEvent,
): DeliveryTarget[] {
  const out: DeliveryTarget[] = [];
  const seen = new Set<string>();
  let doc: Record<string, unknown> | undefined;
  for (const target of targets) {
    if (channelName(target.eventName) !== channel || seen.has(target.webhookId)) continue;
    if (target.filter && event) {
      doc ??= filterDocument(event);
      if (!matchesFilter(target.filter, doc)) continue;
    }
    seen.add(target.webhookId);
    out.push(target);
  }
  return out;
}

const parsed = new Map<string, FilterNode>();

/**
 * The parsed filter of a subscription (its stored JSON), cached by text: the outbox parses each
 * subscription's filter on every commit otherwise.
 *
 * @example
 * ```ts
 * subscriptionFilter({ "event.total": { $gt: 10 } }); // the parsed tree
 * ```
 */
export function subscriptionFilter(filter: Record<string, unknown> | undefined): FilterNode | undefined {
  if (filter === undefined) return undefined;
  const text = JSON.stringify(filter);
  let node = parsed.get(text);
  if (!node) {
    node = parseEventFilter(filter);
    if (parsed.size >= 1000) parsed.clear();
    parsed.set(text, node);
  }
  return node;
}
