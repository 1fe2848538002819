/**
 * Row builders: the record a create makes from its input, the same in every adapter (ids, defaults,
 * optional fields omitted when unset, deep values copied). An adapter stores what they return and
 * hands back a copy.
 */
import { newId } from "@hookline/core";
import type {
  Account,
  ApiKey,
  Attempt,
  CreateAccountInput,
  CreateApiKeyInput,
  CreateDeployedComponentInput,
  CreateSavedComponentInput,
  CreateSubscriptionInput,
  CreateWebhookInput,
  CreateWorkspaceInput,
  DataStore,
  Delivery,
  DeployedComponent,
  EmitCommitInput,
  RecordAttemptInput,
  Replay,
  ReplayInput,
  SavedComponent,
  StoredEvent,
  Subscription,
  Webhook,
  Workspace,
} from "../types/index.js";

/** Copies `value` when defined (optional fields stay absent). */
function setIf<T, K extends keyof T>(row: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) row[key] = value;
}

/**
 * The workspace `create` stores.
 *
 * @example
 * ```ts
 * newWorkspace({ name: "Acme" }, Date.now()).id; // "ws_..."
 * ```
 */
export function newWorkspace(input: CreateWorkspaceInput, now: number): Workspace {
  return { id: input.id ?? newId("ws"), name: input.name, createdAt: now };
}

/**
 * The API key `create` stores.
 *
 * @example
 * ```ts
 * newApiKey({ workspaceId, name: "ci", hash, hint: "abcd" }, Date.now());
 * ```
 */
export function newApiKey(input: CreateApiKeyInput, now: number): ApiKey {
  const { workspaceId, name, hash, hint } = input;
  return { id: newId("key"), workspaceId, name, hash, hint, role: input.role ?? "workspace", createdAt: now };
}

/**
 * The account `create` stores.
 *
 * @example
 * ```ts
 * newAccount({ workspaceId, app: "github", name: "me", credentials: sealed }, Date.now());
 * ```
 */
export function newAccount(input: CreateAccountInput, now: number): Account {
  const { workspaceId, app, name, credentials } = input;
  const account: Account = {
    id: newId("apn"),
    workspaceId,
    app,
    name,
    credentials,
    oauth: input.oauth ?? false,
    status: input.status ?? "active",
    createdAt: now,
    updatedAt: now,
  };
  if (input.externalUserId !== undefined) account.externalUserId = input.externalUserId;
  if (input.expiresAt !== undefined) account.expiresAt = input.expiresAt;
  return account;
}

/**
 * The saved component `create` stores (`private` unless said otherwise).
 *
 * @example
 * ```ts
 * newSavedComponent({ workspaceId, code, codeHash, filename, bundle, description }, Date.now());
 * ```
 */
export function newSavedComponent(input: CreateSavedComponentInput, now: number): SavedComponent {
  const row: SavedComponent = {
    id: newId("sc"),
    workspaceId: input.workspaceId,
    code: input.code,
    codeHash: input.codeHash,
    filename: input.filename,
    bundle: input.bundle,
    description: structuredClone(input.description),
    published: input.published ?? "private",
    createdAt: now,
  };
  setIf(row, "key", input.key);
  setIf(row, "version", input.version);
  return row;
}

/**
 * The deployed component `create` stores.
 *
 * @example
 * ```ts
 * newDeployedComponent({ workspaceId, savedComponentId, name, slug, props: {}, active: true }, Date.now());
 * ```
 */
export function newDeployedComponent(input: CreateDeployedComponentInput, now: number): DeployedComponent {
  const row: DeployedComponent = {
    id: input.id ?? newId("dc"),
    workspaceId: input.workspaceId,
    savedComponentId: input.savedComponentId,
    name: input.name,
    slug: input.slug,
    props: structuredClone(input.props),
    active: input.active,
    createdAt: now,
    updatedAt: now,
  };
  setIf(row, "endpointId", input.endpointId);
  setIf(row, "customResponse", input.customResponse);
  if (input.meta !== undefined) row.meta = structuredClone(input.meta);
  return row;
}

/**
 * The webhook `create` stores.
 *
 * @example
 * ```ts
 * newWebhook({ workspaceId, url: "https://example.com", active: true, secrets: [] }, Date.now());
 * ```
 */
export function newWebhook(input: CreateWebhookInput, now: number): Webhook {
  const row: Webhook = {
    id: newId("wh"),
    workspaceId: input.workspaceId,
    url: input.url,
    active: input.active,
    secrets: structuredClone(input.secrets),
    createdAt: now,
    updatedAt: now,
  };
  setIf(row, "name", input.name);
  setIf(row, "description", input.description);
  return row;
}

/**
 * The subscription `create` stores when none exists for its emitter, listener and channel.
 *
 * @example
 * ```ts
 * newSubscription({ workspaceId, emitterId: "dc_...", listenerId: "wh_..." }, Date.now()).eventName; // null
 * ```
 */
export function newSubscription(input: CreateSubscriptionInput, now: number): Subscription {
  const { workspaceId, emitterId, listenerId } = input;
  const row: Subscription = {
    id: newId("sub"),
    workspaceId,
    emitterId,
    listenerId,
    eventName: input.eventName ?? null,
    createdAt: now,
  };
  if (input.filter !== undefined) row.filter = input.filter;
  return row;
}

/**
 * The events a commit stores, in order, with `seq` 0 (the adapter assigns it).
 *
 * @example
 * ```ts
 * newEvents({ workspaceId, componentId, events: [{ channel: "default", ts: 1, body: {} }] }, Date.now());
 * ```
 */
export function newEvents(input: EmitCommitInput, now: number): StoredEvent[] {
  return input.events.map((event) => {
    const row: StoredEvent = {
      id: newId("evt", now),
      seq: 0,
      workspaceId: input.workspaceId,
      emitterId: input.componentId,
      channel: event.channel,
      ts: event.ts,
      body: event.body,
      createdAt: now,
    };
    setIf(row, "summary", event.summary);
    setIf(row, "eventId", event.eventId);
    return row;
  });
}

/**
 * The delivery the outbox writes for `event` to a webhook: `pending` and due at `now`, or `paused`
 * when the webhook is disabled.
 *
 * @example
 * ```ts
 * newDelivery(event, { webhookId: "wh_...", active: true }, Date.now()).state; // "pending"
 * ```
 */
export function newDelivery(
  event: StoredEvent,
  target: { webhookId: string; active: boolean },
  now: number,
): Delivery {
  return {
    id: newId("dlv", now),
    workspaceId: event.workspaceId,
    webhookId: target.webhookId,
    eventId: event.id,
    emitterId: event.emitterId,
    channel: event.channel,
    state: target.active ? "pending" : "paused",
    attempts: 0,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The attempt `recordAttempt` stores.
 *
 * @example
 * ```ts
 * newAttempt({ deliveryId, workspaceId, at: Date.now(), durationMs: 12, status: 200 }).id; // "att_..."
 * ```
 */
export function newAttempt(input: RecordAttemptInput): Attempt {
  const row: Attempt = {
    id: newId("att", input.at),
    deliveryId: input.deliveryId,
    workspaceId: input.workspaceId,
    at: input.at,
    durationMs: input.durationMs,
  };
  setIf(row, "status", input.status);
  setIf(row, "responseExcerpt", input.responseExcerpt);
  setIf(row, "error", input.error);
  return row;
}

/**
 * The data store `create` stores (its id time-ordered).
 *
 * @example
 * ```ts
 * newDataStore({ workspaceId, name: "customers" }, Date.now()).id; // "ds_..."
 * ```
 */
export function newDataStore(input: { workspaceId: string; name: string }, now: number): DataStore {
  return {
    id: newId("ds", now),
    workspaceId: input.workspaceId,
    name: input.name,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The replay `create` stores: `running`, nothing scanned yet (its id time-ordered).
 *
 * @example
 * ```ts
 * newReplay({ workspaceId, subscriptionId, webhookId, emitterId, since: 0 }, Date.now()).status; // "running"
 * ```
 */
export function newReplay(input: ReplayInput, now: number): Replay {
  const { workspaceId, subscriptionId, webhookId, emitterId } = input;
  const row: Replay = {
    id: newId("rpl", now),
    workspaceId,
    subscriptionId,
    webhookId,
    emitterId,
    status: "running",
    scanned: 0,
    enqueued: 0,
    cursor: null,
    createdAt: now,
    updatedAt: now,
  };
  setIf(row, "since", input.since);
  setIf(row, "until", input.until);
  if (input.filter !== undefined) row.filter = structuredClone(input.filter);
  return row;
}
