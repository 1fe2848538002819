/** Webhooks, subscriptions and the records of deliveries. */

/** A signing secret of a webhook. */
export interface WebhookSecret {
  /** The `whsec_` secret, encrypted by the caller. */
  value: string;
  /** When it was created. */
  createdAt: number;
  /** When it stops being used (during a rotation). */
  expiresAt?: number;
}

/** A webhook: a URL events are POSTed to. */
export interface Webhook {
  /** `wh_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The target URL. */
  url: string;
  /** Display name. */
  name?: string;
  /** Description. */
  description?: string;
  /**
   * Whether it receives deliveries. A disabled webhook still gets one delivery per event (`paused`),
   * sent once it is enabled again.
   */
  active: boolean;
  /** Signing secrets (two during a rotation). */
  secrets: WebhookSecret[];
  /** Why it was disabled automatically (such as `gone` on a 410). */
  disabledReason?: string;
  /** Since when every attempt has failed. */
  failingSince?: number;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** Input of {@link WebhookStore.create}. */
export interface CreateWebhookInput {
  /** Owning workspace. */
  workspaceId: string;
  /** The target URL. */
  url: string;
  /** Display name. */
  name?: string;
  /** Description. */
  description?: string;
  /** Whether it receives deliveries. */
  active: boolean;
  /** Signing secrets. */
  secrets: WebhookSecret[];
}

/** Fields of a webhook that {@link WebhookStore.update} changes (`null` clears an optional field). */
export interface WebhookPatch {
  /** New URL. */
  url?: string;
  /** New name. */
  name?: string | null;
  /** New description. */
  description?: string | null;
  /** Enable or disable. */
  active?: boolean;
  /** New secrets (replace the old ones). */
  secrets?: WebhookSecret[];
  /** Why it was disabled. */
  disabledReason?: string | null;
  /** Since when every attempt has failed. */
  failingSince?: number | null;
}

/** Webhook records. */
export interface WebhookStore {
  /** Stores a webhook. */
  create(input: CreateWebhookInput): Promise<Webhook>;
  /** The webhook, or undefined. */
  get(workspaceId: string, id: string): Promise<Webhook | undefined>;
  /** The workspace's webhooks, oldest first. */
  list(workspaceId: string): Promise<Webhook[]>;
  /**
   * Updates a webhook; undefined when not found. Changing `active` moves its waiting deliveries in
   * the same step: disabling pauses its `pending` ones (`paused`: kept, never claimed; rows in flight
   * finish their attempt); enabling makes its `paused` ones `pending` and due now (and announces
   * them, see {@link StoreNotice}).
   */
  update(workspaceId: string, id: string, patch: WebhookPatch): Promise<Webhook | undefined>;
  /**
   * Deletes a webhook and its subscriptions; its pending, paused and in-flight deliveries become
   * `failed` with `lastError` `webhook_deleted`. False when not found.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** A subscription: a listener (webhook or component) receives an emitter's channel. */
export interface Subscription {
  /** `sub_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The emitter: a deployed component (`dc_`) or a workflow (`p_`). */
  emitterId: string;
  /** The listener: a webhook (`wh_`) or a deployed component. */
  listenerId: string;
  /** The channel; null means `default`. */
  eventName: string | null;
  /**
   * Only events matching this filter (the JSON a user gave, see `parseEventFilter` of
   * `@hookline/core`) become deliveries; absent: every event of the channel.
   */
  filter?: Record<string, unknown>;
  /** Creation time. */
  createdAt: number;
}

/** Input of {@link SubscriptionStore.create}. */
export interface CreateSubscriptionInput {
  /** Owning workspace. */
  workspaceId: string;
  /** The emitter. */
  emitterId: string;
  /** The listener. */
  listenerId: string;
  /** The channel; absent or null means `default`. */
  eventName?: string | null;
  /** The filter (validated by the caller with `parseEventFilter`). */
  filter?: Record<string, unknown>;
}

/** Subscription records. */
export interface SubscriptionStore {
  /**
   * Creates a subscription, or returns the existing one for the same emitter, listener and channel
   * (`null` and `"default"` are the same channel), with `created` telling which.
   */
  create(input: CreateSubscriptionInput): Promise<Subscription & { created: boolean }>;
  /** The workspace's subscriptions, optionally of one emitter and/or listener, oldest first. */
  list(workspaceId: string, filter?: { emitterId?: string; listenerId?: string }): Promise<Subscription[]>;
  /**
   * Deletes the subscriptions between an emitter and a listener: of one channel when `eventName` is
   * given (null meaning `default`), of all channels otherwise. Returns the number deleted.
   */
  delete(
    workspaceId: string,
    match: { emitterId: string; listenerId: string; eventName?: string | null },
  ): Promise<number>;
}
