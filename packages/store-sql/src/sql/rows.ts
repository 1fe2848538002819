/**
 * Columns and row mappers of the SQL store: one place that knows how each table's columns become a
 * record (text decoded with `decodeText`, JSON columns parsed, optional fields omitted when NULL).
 */
import type { ComponentDescription } from "@hookline/core";
import type {
  Account,
  ApiKey,
  Attempt,
  Delivery,
  DeliveryRequest,
  DeliveryState,
  DeployedComponent,
  LogLine,
  SavedComponent,
  StoredEvent,
  Subscription,
  Timer,
  Visibility,
  Webhook,
  WebhookSecret,
  Workspace,
} from "@hookline/store";
import { decodeText, jsonText } from "@hookline/store/adapter";
import type { SqlRow } from "../clients.js";

const isNull = (value: unknown): value is null | undefined => value === null || value === undefined;
/** A text column. */
export const str = (value: unknown): string => decodeText(String(value));
const num = (value: unknown): number => Number(value);
/** A nullable text column. */
export const optStr = (value: unknown): string | undefined => (isNull(value) ? undefined : str(value));
const optNum = (value: unknown): number | undefined => (isNull(value) ? undefined : Number(value));
const bool = (value: unknown): boolean => value === true || value === "t" || value === "true";

/** A JSON column (kept as JSON text): parsed, so every read is a fresh copy. */
export const fromJson = (value: unknown): unknown =>
  isNull(value) ? undefined : typeof value === "string" ? JSON.parse(value) : structuredClone(value);

/** The parameter of a JSON column: its JSON text, SQL NULL for undefined (`invalid` naming `field`). */
export const toJson = (value: unknown, field: string): string | null => jsonText(value, field);

/** Select list of a table's columns, optionally aliased with a prefix (`e_id`, ...). */
export function cols(names: readonly string[], alias = "t", prefix = ""): string {
  return names.map((name) => `${alias}.${name} AS ${prefix}${name}`).join(", ");
}

/** Picks the columns of one prefix out of a joined row. */
export function unprefix(row: SqlRow, prefix: string): SqlRow {
  const out: SqlRow = {};
  for (const [key, value] of Object.entries(row))
    if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

/** Sets `key` on `record` when `value` is defined. */
function setIf<T, K extends keyof T>(record: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) record[key] = value;
}

export const WORKSPACE = ["id", "name", "created_at", "revoked_at"] as const;
export const API_KEY = [
  "id",
  "workspace_id",
  "name",
  "hash",
  "hint",
  "role",
  "created_at",
  "last_used_at",
  "revoked_at",
] as const;
export const ACCOUNT = [
  "id",
  "workspace_id",
  "app",
  "name",
  "credentials",
  "oauth",
  "status",
  "external_user_id",
  "expires_at",
  "created_at",
  "updated_at",
] as const;
export const SAVED = [
  "id",
  "workspace_id",
  "code",
  "code_hash",
  "filename",
  "bundle",
  "description",
  "key",
  "version",
  "published",
  "created_at",
] as const;
export const DEPLOYED = [
  "id",
  "workspace_id",
  "saved_component_id",
  "name",
  "slug",
  "props",
  "active",
  "endpoint_id",
  "custom_response",
  "meta",
  "created_at",
  "updated_at",
] as const;
export const EVENT = [
  "id",
  "seq",
  "workspace_id",
  "emitter_id",
  "channel",
  "summary",
  "event_id",
  "ts",
  "body",
  "created_at",
] as const;
export const LOG = ["seq", "workspace_id", "component_id", "level", "message", "ts"] as const;
export const WEBHOOK = [
  "id",
  "workspace_id",
  "url",
  "name",
  "description",
  "active",
  "secrets",
  "disabled_reason",
  "failing_since",
  "created_at",
  "updated_at",
] as const;
export const SUBSCRIPTION = [
  "id",
  "workspace_id",
  "emitter_id",
  "listener_id",
  "event_name",
  "filter",
  "created_at",
] as const;
export const TIMER = ["component_id", "workspace_id", "next_at", "lease_owner", "lease_expires_at"] as const;
export const DELIVERY = [
  "id",
  "workspace_id",
  "webhook_id",
  "event_id",
  "emitter_id",
  "channel",
  "state",
  "attempts",
  "next_attempt_at",
  "lease_owner",
  "lease_expires_at",
  "last_status",
  "last_error",
  "created_at",
  "updated_at",
  "request",
] as const;
export const ATTEMPT = [
  "id",
  "delivery_id",
  "workspace_id",
  "at",
  "status",
  "duration_ms",
  "response_excerpt",
  "error",
] as const;

export function toWorkspace(row: SqlRow): Workspace {
  const workspace: Workspace = { id: str(row.id), name: str(row.name), createdAt: num(row.created_at) };
  setIf(workspace, "revokedAt", optNum(row.revoked_at));
  return workspace;
}

export function toApiKey(row: SqlRow): ApiKey {
  const key: ApiKey = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    name: str(row.name),
    hash: str(row.hash),
    hint: str(row.hint),
    role: str(row.role) === "operator" ? "operator" : "workspace",
    createdAt: num(row.created_at),
  };
  setIf(key, "lastUsedAt", optNum(row.last_used_at));
  setIf(key, "revokedAt", optNum(row.revoked_at));
  return key;
}

export function toAccount(row: SqlRow): Account {
  const account: Account = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    app: str(row.app),
    name: str(row.name),
    credentials: str(row.credentials),
    oauth: bool(row.oauth),
    status: str(row.status) as Account["status"],
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
  setIf(account, "externalUserId", optStr(row.external_user_id));
  setIf(account, "expiresAt", optNum(row.expires_at));
  return account;
}

export function toSaved(row: SqlRow): SavedComponent {
  const saved: SavedComponent = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    code: str(row.code),
    codeHash: str(row.code_hash),
    filename: str(row.filename),
    bundle: str(row.bundle),
    // The store boundary: what was saved is a ComponentDescription.
    description: fromJson(row.description) as ComponentDescription,
    published: str(row.published) as Visibility,
    createdAt: num(row.created_at),
  };
  setIf(saved, "key", optStr(row.key));
  setIf(saved, "version", optStr(row.version));
  return saved;
}

export function toDeployed(row: SqlRow): DeployedComponent {
  const dc: DeployedComponent = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    savedComponentId: str(row.saved_component_id),
    name: str(row.name),
    slug: str(row.slug),
    props: (fromJson(row.props) ?? {}) as Record<string, unknown>,
    active: bool(row.active),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
  setIf(dc, "endpointId", optStr(row.endpoint_id));
  if (!isNull(row.custom_response)) dc.customResponse = bool(row.custom_response);
  setIf(dc, "meta", fromJson(row.meta) as Record<string, unknown> | undefined);
  return dc;
}

export function toEvent(row: SqlRow): StoredEvent {
  const event: StoredEvent = {
    id: str(row.id),
    seq: num(row.seq),
    workspaceId: str(row.workspace_id),
    emitterId: str(row.emitter_id),
    channel: str(row.channel),
    ts: num(row.ts),
    body: fromJson(row.body),
    createdAt: num(row.created_at),
  };
  setIf(event, "summary", optStr(row.summary));
  setIf(event, "eventId", optStr(row.event_id));
  return event;
}

/**
 * Makes `event.body` the parse of `text`, done on the first read (then kept): a claimed delivery
 * POSTs the text and most never read the body.
 */
export function lazyBody(event: StoredEvent, text: string): void {
  let parsed: { value: unknown } | undefined;
  Object.defineProperty(event, "body", {
    enumerable: true,
    configurable: true,
    get: () => {
      parsed ??= { value: JSON.parse(text) };
      return parsed.value;
    },
  });
}

export const toLog = (row: SqlRow): LogLine => ({
  seq: num(row.seq),
  workspaceId: str(row.workspace_id),
  componentId: str(row.component_id),
  level: str(row.level),
  message: str(row.message),
  ts: num(row.ts),
});

export function toWebhook(row: SqlRow): Webhook {
  const hook: Webhook = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    url: str(row.url),
    active: bool(row.active),
    secrets: (fromJson(row.secrets) ?? []) as WebhookSecret[],
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
  setIf(hook, "name", optStr(row.name));
  setIf(hook, "description", optStr(row.description));
  setIf(hook, "disabledReason", optStr(row.disabled_reason));
  setIf(hook, "failingSince", optNum(row.failing_since));
  return hook;
}

export function toSubscription(row: SqlRow): Subscription {
  const sub: Subscription = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    emitterId: str(row.emitter_id),
    listenerId: str(row.listener_id),
    eventName: optStr(row.event_name) ?? null,
    createdAt: num(row.created_at),
  };
  setIf(sub, "filter", fromJson(row.filter) as Record<string, unknown> | undefined);
  return sub;
}

export function toTimer(row: SqlRow): Timer {
  const timer: Timer = {
    componentId: str(row.component_id),
    workspaceId: str(row.workspace_id),
    nextAt: num(row.next_at),
  };
  setIf(timer, "leaseOwner", optStr(row.lease_owner));
  setIf(timer, "leaseExpiresAt", optNum(row.lease_expires_at));
  return timer;
}

export function toDelivery(row: SqlRow): Delivery {
  const delivery: Delivery = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    webhookId: str(row.webhook_id),
    eventId: str(row.event_id),
    emitterId: str(row.emitter_id),
    channel: str(row.channel),
    state: str(row.state) as DeliveryState,
    attempts: num(row.attempts),
    nextAttemptAt: num(row.next_attempt_at),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
  setIf(delivery, "leaseOwner", optStr(row.lease_owner));
  setIf(delivery, "leaseExpiresAt", optNum(row.lease_expires_at));
  setIf(delivery, "lastStatus", optNum(row.last_status));
  setIf(delivery, "lastError", optStr(row.last_error));
  setIf(delivery, "request", fromJson(row.request) as DeliveryRequest | undefined);
  return delivery;
}

export function toAttempt(row: SqlRow): Attempt {
  const attempt: Attempt = {
    id: str(row.id),
    deliveryId: str(row.delivery_id),
    workspaceId: str(row.workspace_id),
    at: num(row.at),
    durationMs: num(row.duration_ms),
  };
  setIf(attempt, "status", optNum(row.status));
  setIf(attempt, "responseExcerpt", optStr(row.response_excerpt));
  setIf(attempt, "error", optStr(row.error));
  return attempt;
}
