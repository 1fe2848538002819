/**
 * The Store interface: every record Hookline persists, and the delivery Queue.
 *
 * All methods are async. Every method that reads or writes a record belonging to a workspace takes
 * the `workspaceId` and never sees another workspace's rows. Times are epoch milliseconds.
 */

/** The machine-readable reason of a {@link StoreError}. */
export type StoreErrorCode = "not_found" | "conflict" | "invalid" | "closed";

/**
 * An error thrown by a {@link Store}, with a machine-readable {@link StoreErrorCode}.
 *
 * @example
 * ```ts
 * try {
 *   await store.deployedComponents.create({ ...input, slug: "taken" });
 * } catch (error) {
 *   if (error instanceof StoreError && error.code === "conflict") console.log("slug in use");
 * }
 * ```
 */
export class StoreError extends Error {
  /** Why the operation failed. */
  readonly code: StoreErrorCode;

  /**
   * @param code - Why the operation failed.
   * @param message - A human-readable description.
   */
  constructor(code: StoreErrorCode, message: string) {
    super(message);
    this.name = "StoreError";
    this.code = code;
  }
}

/** A page of results and the cursor of the next page (absent on the last page). */
export interface Page<T> {
  /** The rows of this page. */
  items: T[];
  /** Pass as `before` (or `after` for oldest-first lists) to fetch the next page. */
  nextCursor?: string;
}

// ---------------------------------------------------------------------------------------------
// Workspaces and API keys
// ---------------------------------------------------------------------------------------------

/** A workspace: the unit of isolation. */
export interface Workspace {
  /** `ws_` id. */
  id: string;
  /** Display name. */
  name: string;
  /** Creation time. */
  createdAt: number;
}

/** Input of {@link WorkspaceStore.create}. */
export interface CreateWorkspaceInput {
  /** Use this id instead of a new `ws_` id (throws `conflict` if taken). */
  id?: string;
  /** Display name. */
  name: string;
}

/** Workspace records. */
export interface WorkspaceStore {
  /** Creates a workspace; throws a `conflict` {@link StoreError} when `id` is taken. */
  create(input: CreateWorkspaceInput): Promise<Workspace>;
  /** The workspace, or undefined. */
  get(id: string): Promise<Workspace | undefined>;
  /** All workspaces, oldest first. */
  list(): Promise<Workspace[]>;
}

/** An API key. Only the hash of the secret is stored. */
export interface ApiKey {
  /** `key_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** Display name. */
  name: string;
  /** Hash of the secret (how a presented key is found). */
  hash: string;
  /** A short, displayable part of the secret, such as its last four characters. */
  hint: string;
  /** Creation time. */
  createdAt: number;
  /** When the key was revoked; revoked keys are not found by {@link ApiKeyStore.findByHash}. */
  revokedAt?: number;
}

/** Input of {@link ApiKeyStore.create}. */
export interface CreateApiKeyInput {
  /** Owning workspace. */
  workspaceId: string;
  /** Display name. */
  name: string;
  /** Hash of the secret. */
  hash: string;
  /** A short, displayable part of the secret. */
  hint: string;
}

/** API key records. */
export interface ApiKeyStore {
  /** Stores a key; throws `conflict` when the hash is already stored. */
  create(input: CreateApiKeyInput): Promise<ApiKey>;
  /** Resolves a presented key by its hash (any workspace); revoked keys are not found. */
  findByHash(hash: string): Promise<ApiKey | undefined>;
  /** The workspace's keys (revoked ones included, with `revokedAt`), oldest first. */
  list(workspaceId: string): Promise<ApiKey[]>;
  /** Revokes a key; false when not found in the workspace or already revoked. */
  revoke(workspaceId: string, id: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Connected accounts
// ---------------------------------------------------------------------------------------------

/** A connected account (credentials of an app), used by `app` props. */
export interface Account {
  /** `apn_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The app slug, such as `github`. */
  app: string;
  /** Display name. */
  name: string;
  /** The credentials, already encrypted by the caller. */
  credentials: string;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** Input of {@link AccountStore.create}. */
export interface CreateAccountInput {
  /** Owning workspace. */
  workspaceId: string;
  /** The app slug. */
  app: string;
  /** Display name. */
  name: string;
  /** The credentials, already encrypted. */
  credentials: string;
}

/** Fields of an account that {@link AccountStore.update} changes. */
export interface AccountPatch {
  /** New display name. */
  name?: string;
  /** New (encrypted) credentials, such as after an OAuth refresh. */
  credentials?: string;
}

/** Connected account records. */
export interface AccountStore {
  /** Stores an account. */
  create(input: CreateAccountInput): Promise<Account>;
  /** The account, or undefined. */
  get(workspaceId: string, id: string): Promise<Account | undefined>;
  /** The workspace's accounts, optionally of one app, oldest first. */
  list(workspaceId: string, options?: { app?: string }): Promise<Account[]>;
  /** Updates an account; undefined when not found. */
  update(workspaceId: string, id: string, patch: AccountPatch): Promise<Account | undefined>;
  /** Deletes an account; false when not found. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Components
// ---------------------------------------------------------------------------------------------

/** Who may find a saved component by key. */
export type Visibility = "private" | "public";

/** A saved (validated and bundled) component. */
export interface SavedComponent {
  /** `sc_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The source as uploaded. */
  code: string;
  /** Hash of `code`. */
  codeHash: string;
  /** The uploaded file name. */
  filename: string;
  /** The bundled code the runtime loads. */
  bundle: string;
  /** The component description (props, name, version, ...) extracted at save time. */
  description: unknown;
  /** The component key, such as `github-new-issue`. */
  key?: string;
  /** The component version (semver). */
  version?: string;
  /** Whether other workspaces can find it by key. */
  published: Visibility;
  /** Creation time. */
  createdAt: number;
}

/** Input of {@link SavedComponentStore.create}. */
export interface CreateSavedComponentInput {
  /** Owning workspace. */
  workspaceId: string;
  /** The source. */
  code: string;
  /** Hash of `code`. */
  codeHash: string;
  /** The file name. */
  filename: string;
  /** The bundled code. */
  bundle: string;
  /** The component description. */
  description: unknown;
  /** The component key. */
  key?: string;
  /** The component version. */
  version?: string;
  /** Visibility; `private` by default. */
  published?: Visibility;
}

/** Saved component records. */
export interface SavedComponentStore {
  /** Stores a saved component; throws `conflict` when the workspace has the same key and version. */
  create(input: CreateSavedComponentInput): Promise<SavedComponent>;
  /** The saved component, or undefined. */
  get(workspaceId: string, id: string): Promise<SavedComponent | undefined>;
  /** The workspace's saved components, oldest first. */
  list(workspaceId: string): Promise<SavedComponent[]>;
  /**
   * Finds a component by key among the workspace's own and every workspace's public ones: the given
   * version, or the newest (semver) when `version` is absent. The workspace's own wins a tie.
   */
  findByKey(workspaceId: string, key: string, version?: string): Promise<SavedComponent | undefined>;
}

/** A deployed component: a saved component with props, running. */
export interface DeployedComponent {
  /** `dc_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The saved component it runs. */
  savedComponentId: string;
  /** Display name. */
  name: string;
  /** URL-safe name, unique per workspace. */
  slug: string;
  /** Prop values (secret ones already encrypted). */
  props: Record<string, unknown>;
  /** Whether triggers run it. */
  active: boolean;
  /** `en_` id of its HTTP endpoint, when it has one (unique across the store). */
  endpointId?: string;
  /** Whether its HTTP endpoint responds with `$respond` instead of a fixed 200. */
  customResponse?: boolean;
  /** Free-form extra data owned by the engine. */
  meta?: Record<string, unknown>;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** Input of {@link DeployedComponentStore.create}. */
export interface CreateDeployedComponentInput {
  /** Use this id instead of a new `dc_` id. */
  id?: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The saved component it runs. */
  savedComponentId: string;
  /** Display name. */
  name: string;
  /** URL-safe name, unique per workspace. */
  slug: string;
  /** Prop values. */
  props: Record<string, unknown>;
  /** Whether triggers run it. */
  active: boolean;
  /** `en_` id of its HTTP endpoint. */
  endpointId?: string;
  /** Whether its HTTP endpoint responds with `$respond`. */
  customResponse?: boolean;
  /** Free-form extra data. */
  meta?: Record<string, unknown>;
}

/** Fields of a deployed component that {@link DeployedComponentStore.update} changes (`null` clears). */
export interface DeployedComponentPatch {
  /** New saved component (an update of the code). */
  savedComponentId?: string;
  /** New display name. */
  name?: string;
  /** New slug (throws `conflict` when taken). */
  slug?: string;
  /** New prop values (replace the old ones). */
  props?: Record<string, unknown>;
  /** Activate or deactivate. */
  active?: boolean;
  /** New endpoint id, or null to remove it. */
  endpointId?: string | null;
  /** New custom response flag. */
  customResponse?: boolean;
  /** New extra data, or null to remove it. */
  meta?: Record<string, unknown> | null;
}

/** Deployed component records. */
export interface DeployedComponentStore {
  /** Stores a deployed component; throws `conflict` on a duplicate slug (per workspace) or endpoint. */
  create(input: CreateDeployedComponentInput): Promise<DeployedComponent>;
  /** The deployed component, or undefined. */
  get(workspaceId: string, id: string): Promise<DeployedComponent | undefined>;
  /** The deployed component with this slug in the workspace, or undefined. */
  getBySlug(workspaceId: string, slug: string): Promise<DeployedComponent | undefined>;
  /** The deployed component owning this endpoint, in any workspace (ingress has no key). */
  getByEndpoint(endpointId: string): Promise<DeployedComponent | undefined>;
  /** The workspace's deployed components, oldest first. */
  list(workspaceId: string): Promise<DeployedComponent[]>;
  /** Updates a deployed component; undefined when not found; throws `conflict` on a taken slug. */
  update(
    workspaceId: string,
    id: string,
    patch: DeployedComponentPatch,
  ): Promise<DeployedComponent | undefined>;
  /**
   * Deletes a deployed component and, in the same step, its db keys, dedupe state, timer, logs and
   * the subscriptions where it is the emitter or the listener. False when not found.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** Dedupe state of deployed components (opaque to the store). */
export interface DedupeStore {
  /** The component's dedupe state, or undefined. */
  get(componentId: string): Promise<unknown>;
  /** Replaces the component's dedupe state. */
  set(componentId: string, state: unknown): Promise<void>;
}

/** One key of a component's db. */
export interface KvEntry {
  /** The key. */
  key: string;
  /** The value (JSON-compatible). */
  value: unknown;
}

/** The component `db` service: a key-value map per deployed component. */
export interface KvStore {
  /** The value, or undefined. */
  get(componentId: string, key: string): Promise<unknown>;
  /** Sets a value (JSON-compatible). */
  set(componentId: string, key: string, value: unknown): Promise<void>;
  /** Deletes a key; false when absent. */
  delete(componentId: string, key: string): Promise<boolean>;
  /** All entries of the component, sorted by key. */
  list(componentId: string): Promise<KvEntry[]>;
}

// ---------------------------------------------------------------------------------------------
// Events and logs
// ---------------------------------------------------------------------------------------------

/** An event to store, as passed to {@link EventStore.append}. */
export interface EventInput {
  /** The channel (the emit's `name`), `default` when none. */
  channel: string;
  /** A short summary. */
  summary?: string;
  /** The dedupe id, as a string. */
  eventId?: string;
  /** The event time. */
  ts: number;
  /** The emitted event, unchanged. */
  body: unknown;
}

/** A stored event. */
export interface StoredEvent {
  /** `evt_` id (the `webhook-id` of its deliveries). */
  id: string;
  /** Store-wide, monotonically increasing sequence number (the order of appends). */
  seq: number;
  /** Owning workspace. */
  workspaceId: string;
  /** The deployed component that emitted it. */
  emitterId: string;
  /** The channel. */
  channel: string;
  /** A short summary. */
  summary?: string;
  /** The dedupe id. */
  eventId?: string;
  /** The event time. */
  ts: number;
  /** The emitted event. */
  body: unknown;
  /** When it was stored. */
  createdAt: number;
}

/** A stored event and the deliveries the outbox created for it. */
export interface AppendedEvent extends StoredEvent {
  /** `dlv_` ids, one per matching subscription. */
  deliveryIds: string[];
}

/** Options of {@link EventStore.list}. */
export interface ListEventsOptions {
  /** Page size: 10 by default, at most 100. */
  limit?: number;
  /** Only events older than this cursor (a `nextCursor`). */
  before?: string;
  /** Only events newer than this cursor. */
  after?: string;
  /** Only events of this channel. */
  channel?: string;
}

/** Events (the emit log) and the transactional outbox. */
export interface EventStore {
  /**
   * The outbox: in one atomic step stores the events (in order) and, for each, one pending delivery
   * per subscription of the workspace whose emitter is `emitterId`, whose channel (`eventName`,
   * null meaning `default`) is the event's, and whose listener is an active webhook of the workspace.
   */
  append(
    workspaceId: string,
    emitterId: string,
    events: EventInput[],
    options?: { now?: number },
  ): Promise<AppendedEvent[]>;
  /** The emitter's events, newest first; `nextCursor` pages to older ones. */
  list(workspaceId: string, emitterId: string, options?: ListEventsOptions): Promise<Page<StoredEvent>>;
  /** The event, or undefined. */
  get(workspaceId: string, id: string): Promise<StoredEvent | undefined>;
  /** The event in any workspace, for delivery workers. */
  getById(id: string): Promise<StoredEvent | undefined>;
  /**
   * Deletes the emitter's events (all when `ids` is absent); their pending deliveries fail with
   * `event_deleted`. Returns the number deleted.
   */
  delete(workspaceId: string, emitterId: string, ids?: string[]): Promise<number>;
  /** Keeps the newest `keep` events of the emitter, deleting the rest as {@link EventStore.delete} does. */
  trim(emitterId: string, keep: number): Promise<number>;
}

/** A log line to store. */
export interface LogInput {
  /** Level, such as `info` or `error`. */
  level: string;
  /** The text. */
  message: string;
  /** When it was logged. */
  ts: number;
}

/** A stored log line of a deployed component. */
export interface LogLine extends LogInput {
  /** Store-wide, monotonically increasing sequence number. */
  seq: number;
  /** Owning workspace. */
  workspaceId: string;
  /** The deployed component. */
  componentId: string;
}

/** Component logs. */
export interface LogStore {
  /** Stores log lines in order. */
  append(workspaceId: string, componentId: string, lines: LogInput[]): Promise<LogLine[]>;
  /** Log lines oldest first; pass `nextCursor` as `after` for the next page. `limit` defaults to 100. */
  list(
    workspaceId: string,
    componentId: string,
    options?: { limit?: number; after?: string },
  ): Promise<Page<LogLine>>;
  /** Keeps the newest `keep` lines of the component; returns the number deleted. */
  trim(componentId: string, keep: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Webhooks and subscriptions
// ---------------------------------------------------------------------------------------------

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
  /** Whether it receives deliveries. */
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
  /** Updates a webhook; undefined when not found. */
  update(workspaceId: string, id: string, patch: WebhookPatch): Promise<Webhook | undefined>;
  /**
   * Deletes a webhook and its subscriptions; its pending and in-flight deliveries become `failed`
   * with `lastError` `webhook_deleted`. False when not found.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** A subscription: a listener (webhook or component) receives an emitter's channel. */
export interface Subscription {
  /** `sub_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The emitting deployed component. */
  emitterId: string;
  /** The listener: a webhook (`wh_`) or a deployed component. */
  listenerId: string;
  /** The channel; null means `default`. */
  eventName: string | null;
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

// ---------------------------------------------------------------------------------------------
// Timers
// ---------------------------------------------------------------------------------------------

/** The next tick of a deployed component's timer. */
export interface Timer {
  /** The deployed component (one timer per component). */
  componentId: string;
  /** Owning workspace. */
  workspaceId: string;
  /** When it is due. */
  nextAt: number;
  /** The node that claimed the current tick. */
  leaseOwner?: string;
  /** When that claim expires. */
  leaseExpiresAt?: number;
}

/** Input of {@link TimerStore.upsert}. */
export interface UpsertTimerInput {
  /** The deployed component. */
  componentId: string;
  /** Owning workspace. */
  workspaceId: string;
  /** When it is due. */
  nextAt: number;
}

/** Component timers; each tick is claimed by exactly one caller. */
export interface TimerStore {
  /** Creates or reschedules a component's timer (and drops any lease). */
  upsert(input: UpsertTimerInput): Promise<Timer>;
  /** The component's timer, or undefined. */
  get(workspaceId: string, componentId: string): Promise<Timer | undefined>;
  /** Deletes the component's timer; false when absent. */
  delete(componentId: string): Promise<boolean>;
  /**
   * Returns up to `limit` due timers (`nextAt <= now`, not leased or lease expired), earliest first,
   * leasing them to `owner` for `leaseMs` so that a concurrent claim does not return them.
   */
  claimDue(now: number, owner: string, leaseMs: number, limit: number): Promise<Timer[]>;
  /**
   * Compare-and-set: moves a claimed timer from `firedAt` (the claimed `nextAt`) to `nextAt` and
   * releases the lease. False when the timer changed, is gone, or another owner holds it.
   */
  advance(componentId: string, owner: string, firedAt: number, nextAt: number): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Deliveries (the Queue)
// ---------------------------------------------------------------------------------------------

/** The state of a delivery. */
export type DeliveryState = "pending" | "delivering" | "succeeded" | "failed";

/** One delivery of one event to one webhook. */
export interface Delivery {
  /** `dlv_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The target webhook. */
  webhookId: string;
  /** The `evt_` id of the event. */
  eventId: string;
  /** The emitting deployed component. */
  emitterId: string;
  /** The event's channel. */
  channel: string;
  /** Where it is in its life. */
  state: DeliveryState;
  /** How many attempts were started (incremented by each claim). */
  attempts: number;
  /** When it is due (for pending rows). */
  nextAttemptAt: number;
  /** The worker holding it (while delivering). */
  leaseOwner?: string;
  /** When that worker's lease expires. */
  leaseExpiresAt?: number;
  /** HTTP status of the last attempt. */
  lastStatus?: number;
  /** Error of the last attempt. */
  lastError?: string;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** A delivery with its event (absent when the event was deleted). */
export interface DeliveryWithEvent extends Delivery {
  /** The event to POST. */
  event?: StoredEvent;
}

/** A claimed delivery: what a worker needs to POST it. */
export interface ClaimedDelivery extends Delivery {
  /** The event to POST. */
  event: StoredEvent;
  /** The target webhook. */
  webhook: Webhook;
}

/** Options of {@link DeliveryStore.claim}. */
export interface ClaimOptions {
  /** The claiming worker. */
  owner: string;
  /** The current time. */
  now: number;
  /** How long the claim lasts. */
  leaseMs: number;
  /** At most this many rows. */
  limit: number;
  /** At most this many rows of one webhook delivering at once (across all workers). */
  perWebhookLimit?: number;
}

/** Outcome passed to {@link DeliveryStore.complete}. */
export interface CompleteOptions {
  /** `succeeded`, `failed` (final) or `pending` (retry at `nextAttemptAt`). */
  state: "succeeded" | "failed" | "pending";
  /** When to retry (for `pending`; defaults to `at`). */
  nextAttemptAt?: number;
  /** HTTP status of the attempt. */
  status?: number;
  /** Error of the attempt. */
  error?: string;
  /** The current time (defaults to the store clock). */
  at?: number;
}

/** One recorded HTTP attempt of a delivery. */
export interface Attempt {
  /** `att_` id. */
  id: string;
  /** The delivery. */
  deliveryId: string;
  /** Owning workspace. */
  workspaceId: string;
  /** When the attempt started. */
  at: number;
  /** HTTP status, when a response came. */
  status?: number;
  /** How long it took. */
  durationMs: number;
  /** The start of the response body. */
  responseExcerpt?: string;
  /** The error, when it failed. */
  error?: string;
}

/** Input of {@link DeliveryStore.recordAttempt}. */
export type RecordAttemptInput = Omit<Attempt, "id">;

/** Options of {@link DeliveryStore.list}. */
export interface ListDeliveriesOptions {
  /** Only deliveries to this webhook. */
  webhookId?: string;
  /** Only deliveries of this event. */
  eventId?: string;
  /** Only deliveries in this state. */
  state?: DeliveryState;
  /** Page size: 50 by default, at most 100. */
  limit?: number;
  /** Only deliveries older than this cursor (a `nextCursor`). */
  before?: string;
}

/** The delivery queue. */
export interface DeliveryStore {
  /**
   * Leases up to `limit` due pending rows (`nextAttemptAt <= now`, earliest first) to `owner`: they
   * become `delivering` and their `attempts` grows by one. A row is never returned to two
   * concurrent claimers.
   */
  claim(options: ClaimOptions): Promise<ClaimedDelivery[]>;
  /** Finishes (or reschedules) a claimed row; false when `owner` no longer holds its lease. */
  complete(id: string, owner: string, outcome: CompleteOptions): Promise<boolean>;
  /** Records one attempt. */
  recordAttempt(input: RecordAttemptInput): Promise<Attempt>;
  /** The attempts of a delivery, oldest first. */
  listAttempts(workspaceId: string, deliveryId: string): Promise<Attempt[]>;
  /** Returns rows whose lease expired (`leaseExpiresAt <= now`) to `pending`; returns the count. */
  sweep(now: number): Promise<number>;
  /** The delivery with its event, or undefined. */
  get(workspaceId: string, id: string): Promise<DeliveryWithEvent | undefined>;
  /** The workspace's deliveries, newest first. */
  list(workspaceId: string, options?: ListDeliveriesOptions): Promise<Page<Delivery>>;
  /**
   * Makes a delivery due now: a `failed` or `succeeded` one becomes `pending`, a pending one is
   * moved to `now`. False when not found, in flight, or its event or webhook is gone.
   */
  retry(workspaceId: string, id: string, now: number): Promise<boolean>;
  /**
   * Makes the webhook's `failed` deliveries created in `[since, until)` pending at `now`; returns
   * the count.
   */
  recover(
    workspaceId: string,
    webhookId: string,
    window: { since: number; until?: number },
    now: number,
  ): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Notifications
// ---------------------------------------------------------------------------------------------

/**
 * A change announced by {@link StoreNotifications}: a hint that something may be worth reading now,
 * never the data itself (read the rows from the store). Notices can be lost (a dropped connection),
 * so whoever relies on them still polls.
 */
export type StoreNotice =
  | {
      /** Deliveries became due now: appended by the outbox, retried, recovered, released or swept. */
      kind: "deliveries";
      /** Whether this store instance made the change (false: another instance, such as another node). */
      local: boolean;
    }
  | {
      /** Events were appended. */
      kind: "events";
      /** Whether this store instance appended them. */
      local: boolean;
      /** Owning workspace. */
      workspaceId: string;
      /** The deployed component that emitted them. */
      emitterId: string;
      /** Their `seq` numbers, ascending. */
      seqs: number[];
    }
  | {
      /** Log lines were appended. */
      kind: "logs";
      /** Whether this store instance appended them. */
      local: boolean;
      /** Owning workspace. */
      workspaceId: string;
      /** The deployed component. */
      componentId: string;
      /**
       * Their `seq` numbers, ascending. An implementation may announce a range that also covers a
       * few lines of the same component written concurrently elsewhere.
       */
      seqs: number[];
    }
  | {
      /**
       * Notices may have been missed (such as while a lost LISTEN connection was re-established):
       * poll now.
       */
      kind: "resync";
      /** Always false. */
      local: false;
    };

/**
 * Change notifications of a store, across every process sharing it when the implementation can (the
 * SQL store uses Postgres `LISTEN`/`NOTIFY`; the memory store announces its own changes in-process).
 * Optional on {@link Store}: a consumer without it polls.
 *
 * @example
 * ```ts
 * const unsubscribe = store.notifications?.subscribe((notice) => {
 *   if (notice.kind === "deliveries") worker.wake();
 * });
 * // later
 * unsubscribe?.();
 * ```
 */
export interface StoreNotifications {
  /**
   * Calls `listener` with every notice from now on (listener errors are ignored); returns the function
   * that unsubscribes it. The first subscription may open a connection; the last unsubscribe closes it.
   */
  subscribe(listener: (notice: StoreNotice) => void): () => void;
}

// ---------------------------------------------------------------------------------------------
// The Store
// ---------------------------------------------------------------------------------------------

/** Everything Hookline persists. Implementations: the memory store, PGlite and Postgres. */
export interface Store {
  /** Workspaces. */
  workspaces: WorkspaceStore;
  /** API keys. */
  apiKeys: ApiKeyStore;
  /** Connected accounts. */
  accounts: AccountStore;
  /** Saved components. */
  savedComponents: SavedComponentStore;
  /** Deployed components. */
  deployedComponents: DeployedComponentStore;
  /** Dedupe state. */
  dedupe: DedupeStore;
  /** The component db service. */
  kv: KvStore;
  /** Events and the outbox. */
  events: EventStore;
  /** Component logs. */
  logs: LogStore;
  /** Webhooks. */
  webhooks: WebhookStore;
  /** Subscriptions. */
  subscriptions: SubscriptionStore;
  /** Timers. */
  timers: TimerStore;
  /** The delivery queue. */
  deliveries: DeliveryStore;
  /** Change notifications, when the implementation has them (see {@link StoreNotifications}). */
  notifications?: StoreNotifications;
  /** Releases resources; the store must not be used afterwards. */
  close(): Promise<void>;
}
