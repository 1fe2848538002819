/**
 * Webhooks (`wh_...`) and subscriptions (`sub_...`): where emitted events go. Webhook secrets
 * (`whsec_...`) are encrypted at rest; a rotation keeps the previous secret valid for 24 hours, and
 * deliveries are signed with every valid secret meanwhile.
 */

import { isIP } from "node:net";
import {
  type EventFilterInput,
  HooklineError,
  jsonEqual,
  type Problem,
  parseEventFilter,
} from "@hookline/core";
import {
  createGuardedLookup,
  createUrlChecker,
  generateWebhookSecret,
  type SsrfGuardOptions,
} from "@hookline/delivery";
import type {
  Attempt,
  Delivery,
  DeliveryMetrics,
  DeliveryState,
  Page,
  Replay,
  Store,
  Subscription,
  Webhook,
} from "@hookline/store";
import type { Clock } from "./clock.js";
import { createReplayApi, type ReplayOptions, type ReplayResult } from "./replay.js";
import type { SecretBox } from "./secrets.js";

/** How long a rotated-out secret stays valid. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A webhook as the engine returns it (no secrets). */
export interface WebhookView {
  id: string;
  workspaceId: string;
  url: string;
  name?: string;
  description?: string;
  active: boolean;
  /** Why the webhook was disabled: `gone` (the receiver answered 410) or `failing` (5 days of failures). */
  disabledReason?: string;
  createdAt: number;
  updatedAt: number;
}

/** A webhook just created or changed, with what its owner should know about it. */
export interface WebhookResult extends WebhookView {
  /**
   * Set when deliveries to the URL will be refused: it resolves to a loopback, private or
   * reserved address that the SSRF guard blocks (`{ code: "ssrf_blocked", path: "url", message }`,
   * the message saying how to allow it). The same shape as a component's warnings.
   */
  warnings?: Problem[];
}

/** Fields of a webhook a user sets. */
export interface WebhookInput {
  url: string;
  name?: string;
  description?: string;
  active?: boolean;
}

/** A delivery with its attempts. */
export interface DeliveryView extends Delivery {
  attemptsLog: Attempt[];
}

/** The webhooks API of the engine. */
export interface WebhooksApi {
  /**
   * Creates a webhook with a fresh `whsec_` secret. `url` must be http(s) with a host (422
   * `invalid_url`). A URL the SSRF guard refuses is kept, with a warning in `warnings`.
   */
  create(workspaceId: string, input: WebhookInput): Promise<WebhookResult>;
  /** A webhook (404 `not_found` when absent). */
  get(workspaceId: string, id: string): Promise<WebhookView>;
  /** The workspace's webhooks. */
  list(workspaceId: string): Promise<WebhookView[]>;
  /**
   * Changes url, name, description or active. Disabling keeps its deliveries waiting (`paused`);
   * re-activating clears `disabledReason` and sends them. A URL the SSRF guard refuses is kept, with
   * a warning in `warnings`.
   */
  update(workspaceId: string, id: string, patch: Partial<WebhookInput>): Promise<WebhookResult>;
  /** Deletes a webhook, its subscriptions, and stops its pending deliveries. */
  delete(workspaceId: string, id: string): Promise<void>;
  /** The current signing secret. */
  secret(workspaceId: string, id: string): Promise<string>;
  /** A new secret; the previous one keeps verifying (and signing) for 24 hours. */
  rotateSecret(workspaceId: string, id: string): Promise<string>;
  /** Deliveries of this webhook, newest first, optionally by state, each with its attempts. */
  deliveries(
    workspaceId: string,
    id: string,
    options?: { state?: DeliveryState; limit?: number; before?: string },
  ): Promise<Page<DeliveryView>>;
  /** Sends one delivery again now. */
  retryDelivery(workspaceId: string, id: string, deliveryId: string): Promise<void>;
  /** Sends again every delivery that failed in `[since, until]`; returns how many. */
  recover(workspaceId: string, id: string, window: { since: number; until?: number }): Promise<number>;
  /**
   * Drops the webhook's waiting deliveries (`paused` and `pending`, not those in flight) for good;
   * returns how many. The events stay.
   */
  purgeDeliveries(workspaceId: string, id: string): Promise<number>;
  /**
   * The webhook's delivery health over `[since, until)` (epoch ms; the last 24 hours by default),
   * from its attempt log: attempts, successes, counts by status class, latency percentiles.
   */
  metrics(
    workspaceId: string,
    id: string,
    window?: { since?: number; until?: number },
  ): Promise<DeliveryMetrics & { since: number; until: number }>;
}

/** The subscriptions API of the engine. */
export interface SubscriptionsApi {
  /**
   * Subscribes a listener (a webhook, or a source with a `$.interface.apphook` prop, whose `run`
   * then gets each event) to an emitter (a source), optionally to one channel and with a filter.
   * Creating an existing subscription (with the same filter) returns it. Unknown emitter or
   * listener: 404 `not_found`; a source listener without an apphook prop: 422 `invalid_listener`;
   * one that would hear its own events (itself, or a loop of sources): 422 `subscription_cycle`.
   */
  create(
    workspaceId: string,
    input: {
      emitterId: string;
      listenerId: string;
      eventName?: string | null;
      /**
       * Only events matching this filter (an object or its JSON text; docs/rest-api.md#filters)
       * become deliveries; invalid: 422 `validation_failed` naming each problem's path. The same
       * emitter, listener and channel with another filter: 409 `conflict`.
       */
      filter?: EventFilterInput | string;
    },
  ): Promise<Subscription & { created: boolean }>;
  /** Subscriptions, optionally filtered. */
  list(workspaceId: string, filter?: { emitterId?: string; listenerId?: string }): Promise<Subscription[]>;
  /** Deletes the matching subscriptions; returns how many. */
  delete(
    workspaceId: string,
    match: { emitterId: string; listenerId: string; eventName?: string | null },
  ): Promise<number>;
  /** Deletes one subscription by id (404 when absent). */
  deleteById(workspaceId: string, id: string): Promise<void>;
  /**
   * Starts a replay (`rpl_...`): the subscription's stored events (of its channel, matching its
   * filter and `options.filter`, stored in `[since, until)`) sent to its webhook again, as new
   * deliveries with the events' ids, oldest first. This call runs the first batch (at most `limit`
   * events, at most `REPLAY_SCAN` examined); {@link SubscriptionsApi.resumeReplay} runs the next
   * ones until the replay's `status` is `done`. Progress is recorded with the replay.
   */
  replay(workspaceId: string, id: string, options?: ReplayOptions): Promise<ReplayResult>;
  /**
   * Runs the next batch of a `running` replay from its recorded cursor (after a restart too); a
   * replay no longer running is returned as it is. Two calls at once: one of them is `conflict`.
   */
  resumeReplay(
    workspaceId: string,
    id: string,
    replayId: string,
    options?: { limit?: number },
  ): Promise<ReplayResult>;
  /** The subscription's replays, newest first. */
  replays(workspaceId: string, id: string): Promise<Replay[]>;
  /** One replay of the subscription (404 when absent). */
  getReplay(workspaceId: string, id: string, replayId: string): Promise<Replay>;
}

/** Checks a webhook URL: http or https, with a host. */
export function checkWebhookUrl(url: unknown): string {
  if (typeof url !== "string" || url === "") throw new HooklineError("invalid_url", "url is required");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HooklineError("invalid_url", `url is not a valid URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new HooklineError("invalid_url", `url must be http or https, got ${parsed.protocol}`);
  }
  if (!parsed.hostname) throw new HooklineError("invalid_url", "url must have a host");
  return parsed.href;
}

/** How long creating a webhook waits for its host name to resolve before giving up on warning. */
const LOOKUP_WAIT_MS = 2_000;

/**
 * Returns a check that says why the SSRF guard with `guard` would refuse deliveries to a URL (a
 * literal address, or a host name resolving to one), with how to allow it; undefined when it is
 * allowed or its host does not resolve (in time). @internal
 */
export function createUrlWarner(guard: SsrfGuardOptions): (url: string) => Promise<string | undefined> {
  const check = createUrlChecker(guard);
  const lookup = createGuardedLookup(guard);
  const advice =
    "Deliveries to it will fail with ssrf_blocked. To allow it, start the server with --allow-private-urls " +
    "(or --dev, which allows loopback), or add the address or host to the allow-list (--allow-url, or " +
    "allowPrivateUrls / allowList in createHookline).";
  return async (url) => {
    let hostname: string;
    try {
      hostname = check(url).hostname;
    } catch (error) {
      return `${url} is refused by the SSRF guard: ${(error as Error).message}. ${advice}`;
    }
    if (isIP(hostname.replace(/^\[|\]$/g, ""))) return undefined;
    const refused = await new Promise<string | undefined>((resolve) => {
      setTimeout(() => resolve(undefined), LOOKUP_WAIT_MS).unref();
      lookup(hostname, { all: true }, (error) => {
        resolve((error as { code?: string } | null)?.code === "ssrf_blocked" ? error?.message : undefined);
      });
    });
    return refused ? `${url} is refused by the SSRF guard: ${refused}. ${advice}` : undefined;
  };
}

function view(w: Webhook): WebhookView {
  const out: WebhookView = {
    id: w.id,
    workspaceId: w.workspaceId,
    url: w.url,
    active: w.active,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
  if (w.name !== undefined) out.name = w.name;
  if (w.description !== undefined) out.description = w.description;
  if (w.disabledReason !== undefined) out.disabledReason = w.disabledReason;
  return out;
}

/** A subscription's filter as stored: the parsed JSON object, validated (422 naming its path). @internal */
export function subscriptionFilterOf(
  filter: EventFilterInput | string | undefined,
): EventFilterInput | undefined {
  if (filter === undefined) return undefined;
  const value = typeof filter === "string" ? (parseJsonFilter(filter) as EventFilterInput) : filter;
  parseEventFilter(value);
  return value;
}

/** JSON text of a filter, parsed (malformed: 422 naming `filter`). */
function parseJsonFilter(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    parseEventFilter(text); // Throws the 422 that names the parameter.
    return undefined;
  }
}

/** Builds the webhooks and subscriptions APIs over the store. @internal */
export function createWebhooksApi(
  store: Store,
  box: SecretBox,
  clock: Clock,
  onRetry: () => void,
  warnUrl: (url: string) => Promise<string | undefined> = async () => undefined,
): { webhooks: WebhooksApi; subscriptions: SubscriptionsApi } {
  const replayApi = createReplayApi(store, clock, onRetry);
  const withWarnings = async (w: Webhook, checked: boolean): Promise<WebhookResult> => {
    const warning = checked ? await warnUrl(w.url) : undefined;
    return warning
      ? { ...view(w), warnings: [{ code: "ssrf_blocked", path: "url", message: warning }] }
      : view(w);
  };

  async function webhookOrThrow(workspaceId: string, id: string): Promise<Webhook> {
    const w = await store.webhooks.get(workspaceId, id);
    if (!w) throw new HooklineError("not_found", `No webhook ${id} in this workspace`);
    return w;
  }

  const webhooks: WebhooksApi = {
    async create(workspaceId, input) {
      const url = checkWebhookUrl(input.url);
      const created = await store.webhooks.create({
        workspaceId,
        url,
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        active: input.active ?? true,
        secrets: [{ value: box.seal(generateWebhookSecret()), createdAt: clock.now() }],
      });
      return withWarnings(created, true);
    },
    async get(workspaceId, id) {
      return view(await webhookOrThrow(workspaceId, id));
    },
    async list(workspaceId) {
      return (await store.webhooks.list(workspaceId)).map(view);
    },
    async update(workspaceId, id, patch) {
      await webhookOrThrow(workspaceId, id);
      const changes: Parameters<Store["webhooks"]["update"]>[2] = {};
      if (patch.url !== undefined) changes.url = checkWebhookUrl(patch.url);
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.description !== undefined) changes.description = patch.description;
      if (patch.active !== undefined) {
        changes.active = patch.active;
        if (patch.active) {
          changes.disabledReason = null;
          changes.failingSince = null;
        }
      }
      const updated = await store.webhooks.update(workspaceId, id, changes);
      if (!updated) throw new HooklineError("not_found", `No webhook ${id} in this workspace`);
      // Enabled: the deliveries that waited paused are due now (the store announced them too).
      if (patch.active) onRetry();
      return withWarnings(updated, changes.url !== undefined || patch.active === true);
    },
    async delete(workspaceId, id) {
      if (!(await store.webhooks.delete(workspaceId, id))) {
        throw new HooklineError("not_found", `No webhook ${id} in this workspace`);
      }
    },
    async secret(workspaceId, id) {
      const w = await webhookOrThrow(workspaceId, id);
      const current = w.secrets.find((s) => s.expiresAt === undefined) ?? w.secrets[w.secrets.length - 1];
      if (!current) throw new HooklineError("internal_error", `Webhook ${id} has no secret`);
      return box.open(current.value);
    },
    async rotateSecret(workspaceId, id) {
      const w = await webhookOrThrow(workspaceId, id);
      const now = clock.now();
      const secret = generateWebhookSecret();
      const kept = w.secrets
        .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
        .map((s) => (s.expiresAt === undefined ? { ...s, expiresAt: now + SECRET_ROTATION_OVERLAP_MS } : s));
      await store.webhooks.update(workspaceId, id, {
        secrets: [...kept, { value: box.seal(secret), createdAt: now }],
      });
      return secret;
    },
    async deliveries(workspaceId, id, options = {}) {
      await webhookOrThrow(workspaceId, id);
      const page = await store.deliveries.list(workspaceId, { webhookId: id, ...options });
      const items = await Promise.all(
        page.items.map(async (d) => ({
          ...d,
          attemptsLog: await store.deliveries.listAttempts(workspaceId, d.id),
        })),
      );
      return page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor };
    },
    async retryDelivery(workspaceId, id, deliveryId) {
      await webhookOrThrow(workspaceId, id);
      const delivery = await store.deliveries.get(workspaceId, deliveryId);
      if (!delivery || delivery.webhookId !== id) {
        throw new HooklineError("not_found", `No delivery ${deliveryId} for webhook ${id}`);
      }
      if (!(await store.deliveries.retry(workspaceId, deliveryId, clock.now()))) {
        throw new HooklineError("conflict", `Delivery ${deliveryId} is in flight or its event is gone`);
      }
      onRetry();
    },
    async recover(workspaceId, id, window) {
      await webhookOrThrow(workspaceId, id);
      if (!Number.isFinite(window.since)) throw new HooklineError("bad_request", "since must be a time");
      const count = await store.deliveries.recover(workspaceId, id, window, clock.now());
      if (count > 0) onRetry();
      return count;
    },
    async purgeDeliveries(workspaceId, id) {
      await webhookOrThrow(workspaceId, id);
      return store.deliveries.purge(workspaceId, id);
    },
    metrics: (workspaceId, id, window = {}) => replayApi.metrics(workspaceId, id, window),
  };

  const subscriptions: SubscriptionsApi = {
    async create(workspaceId, input) {
      // An emitter is a source (`dc_`), a workflow (`p_`: `$.send.emit`, and `$errors`), or the
      // workspace itself (`ws_`: its own events, such as `account.needs_reconnect`).
      const emitter =
        input.emitterId === workspaceId
          ? { id: workspaceId }
          : input.emitterId.startsWith("p_")
            ? await store.workflows?.get(workspaceId, input.emitterId)
            : await store.deployedComponents.get(workspaceId, input.emitterId);
      if (!emitter) {
        throw new HooklineError("not_found", `No emitter ${input.emitterId} in this workspace`);
      }
      if (!(await store.webhooks.get(workspaceId, input.listenerId))) {
        throw new HooklineError("not_found", `No listener ${input.listenerId} in this workspace`);
      }
      const filter = subscriptionFilterOf(input.filter);
      const sub = await store.subscriptions.create({
        workspaceId,
        emitterId: input.emitterId,
        listenerId: input.listenerId,
        eventName: input.eventName ?? null,
        ...(filter ? { filter } : {}),
      });
      if (!sub.created && !jsonEqual(sub.filter ?? null, filter ?? null)) {
        throw new HooklineError(
          "conflict",
          `${input.listenerId} is already subscribed to this channel of ${input.emitterId} (${sub.id}) with another filter; delete it first`,
          { subscription_id: sub.id },
        );
      }
      return sub;
    },
    list: (workspaceId, filter) => store.subscriptions.list(workspaceId, filter),
    delete: (workspaceId, match) => store.subscriptions.delete(workspaceId, match),
    async deleteById(workspaceId, id) {
      const found = (await store.subscriptions.list(workspaceId)).find((s) => s.id === id);
      if (!found) throw new HooklineError("not_found", `No subscription ${id} in this workspace`);
      await store.subscriptions.delete(workspaceId, {
        emitterId: found.emitterId,
        listenerId: found.listenerId,
        eventName: found.eventName,
      });
    },
    replay: (workspaceId, id, options) => replayApi.replay(workspaceId, id, options),
    resumeReplay: (workspaceId, id, replayId, options) =>
      replayApi.resume(workspaceId, id, replayId, options),
    replays: (workspaceId, id) => replayApi.list(workspaceId, id),
    getReplay: (workspaceId, id, replayId) => replayApi.get(workspaceId, id, replayId),
  };

  return { webhooks, subscriptions };
}
