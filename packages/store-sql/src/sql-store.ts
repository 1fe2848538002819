import { DEFAULT_CHANNEL, newId } from "@hookline/core";
import {
  type Account,
  type ApiKey,
  type AppendedEvent,
  type Attempt,
  type ClaimedDelivery,
  compareVersions,
  type Delivery,
  type DeliveryState,
  type DeliveryWithEvent,
  type DeployedComponent,
  type KvEntry,
  type LogLine,
  type Page,
  type SavedComponent,
  type Store,
  type StoredEvent,
  StoreError,
  type Subscription,
  type Timer,
  type Visibility,
  type Webhook,
  type WebhookSecret,
  type Workspace,
} from "@hookline/store";
import { channelFor, createNotifier, type NotifyOptions, type SqlNotifier } from "./_notify.js";
import { type SqlClient, type SqlRow, withTransaction } from "./clients.js";
import { migrate } from "./migrations.js";

export type { NotifyOptions } from "./_notify.js";

/** Options of {@link createSqlStore}. */
export interface SqlStoreOptions {
  /** The clock used for `createdAt`/`updatedAt` (defaults to `Date.now`). */
  now?: () => number;
  /** Skip running {@link migrate} (when the schema is migrated by hand or by another process). */
  skipMigrations?: boolean;
  /**
   * Change notifications over `LISTEN`/`NOTIFY` (see {@link NotifyOptions}): on by default, on the
   * channel `hookline_<schema>`. Writes that make deliveries due, and appends of events and log lines,
   * send a `NOTIFY` in their transaction; `store.notifications` (present when the client can
   * `listen`) passes them to subscribers, such as idle delivery workers and the SSE fan-out.
   * `false` sends and listens to nothing (workers then only poll).
   */
  notifications?: NotifyOptions | false;
}

/** The advisory lock key serializing claims that use `perWebhookLimit` (they count rows in flight). */
const CLAIM_LOCK_KEY = 7_461_203_319;

// ---- value conversion -------------------------------------------------------------------------

const isNull = (value: unknown): value is null | undefined => value === null || value === undefined;
const str = (value: unknown): string => String(value);
const num = (value: unknown): number => Number(value);
const optStr = (value: unknown): string | undefined => (isNull(value) ? undefined : String(value));
const optNum = (value: unknown): number | undefined => (isNull(value) ? undefined : Number(value));
const bool = (value: unknown): boolean => value === true || value === "t" || value === "true";
/** jsonb columns are selected as text and parsed here, so every read is a fresh copy. */
const fromJson = (value: unknown): unknown =>
  isNull(value) ? undefined : typeof value === "string" ? JSON.parse(value) : structuredClone(value);
/** The parameter of a jsonb column (`$n::jsonb`); undefined is stored as SQL NULL. */
const toJson = (value: unknown): string | null => {
  if (value === undefined) return null;
  return JSON.stringify(value) ?? null;
};

function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(max, Math.floor(limit)));
}

function parseCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const value = Number(cursor);
  if (!Number.isSafeInteger(value)) throw new StoreError("invalid", `Invalid cursor: ${cursor}`);
  return value;
}

const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}

/** Positional placeholders `($k, $k+1, ...)` for multi-row inserts, starting after `offset` params. */
function placeholders(rows: number, columns: number, casts: string[] = []): string {
  const groups: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    for (let c = 0; c < columns; c++) cells.push(`$${r * columns + c + 1}${casts[c] ?? ""}`);
    groups.push(`(${cells.join(", ")})`);
  }
  return groups.join(", ");
}

/** Rows per multi-row INSERT, below Postgres's 65535 parameters. */
const chunkRows = (columns: number): number => Math.max(1, Math.floor(60_000 / columns));

// ---- columns and row mappers --------------------------------------------------------------------

/** Select list of a table's columns (jsonb ones as text), optionally aliased with a prefix. */
function columns(alias: string, names: readonly string[], json: readonly string[], prefix = ""): string {
  return names
    .map((name) => {
      const ref = json.includes(name) ? `${alias}.${name}::text` : `${alias}.${name}`;
      return `${ref} AS ${prefix}${name}`;
    })
    .join(", ");
}

/** Picks the columns of one prefix out of a joined row. */
function unprefix(row: SqlRow, prefix: string): SqlRow {
  const out: SqlRow = {};
  for (const [key, value] of Object.entries(row))
    if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

const WORKSPACE = ["id", "name", "created_at"] as const;
const API_KEY = ["id", "workspace_id", "name", "hash", "hint", "created_at", "revoked_at"] as const;
const ACCOUNT = ["id", "workspace_id", "app", "name", "credentials", "created_at", "updated_at"] as const;
const SAVED = [
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
const DEPLOYED = [
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
const EVENT = [
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
const LOG = ["seq", "workspace_id", "component_id", "level", "message", "ts"] as const;
const WEBHOOK = [
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
const SUBSCRIPTION = ["id", "workspace_id", "emitter_id", "listener_id", "event_name", "created_at"] as const;
const TIMER = ["component_id", "workspace_id", "next_at", "lease_owner", "lease_expires_at"] as const;
const DELIVERY = [
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
] as const;
const ATTEMPT = [
  "id",
  "delivery_id",
  "workspace_id",
  "at",
  "status",
  "duration_ms",
  "response_excerpt",
  "error",
] as const;

const JSON_COLUMNS = ["description", "props", "meta", "body", "secrets"];
const cols = (names: readonly string[], alias = "t", prefix = ""): string =>
  columns(alias, names, JSON_COLUMNS, prefix);

const toWorkspace = (row: SqlRow): Workspace => ({
  id: str(row.id),
  name: str(row.name),
  createdAt: num(row.created_at),
});

function toApiKey(row: SqlRow): ApiKey {
  const key: ApiKey = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    name: str(row.name),
    hash: str(row.hash),
    hint: str(row.hint),
    createdAt: num(row.created_at),
  };
  const revokedAt = optNum(row.revoked_at);
  if (revokedAt !== undefined) key.revokedAt = revokedAt;
  return key;
}

const toAccount = (row: SqlRow): Account => ({
  id: str(row.id),
  workspaceId: str(row.workspace_id),
  app: str(row.app),
  name: str(row.name),
  credentials: str(row.credentials),
  createdAt: num(row.created_at),
  updatedAt: num(row.updated_at),
});

function toSaved(row: SqlRow): SavedComponent {
  const saved: SavedComponent = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    code: str(row.code),
    codeHash: str(row.code_hash),
    filename: str(row.filename),
    bundle: str(row.bundle),
    description: fromJson(row.description),
    published: str(row.published) as Visibility,
    createdAt: num(row.created_at),
  };
  const key = optStr(row.key);
  const version = optStr(row.version);
  if (key !== undefined) saved.key = key;
  if (version !== undefined) saved.version = version;
  return saved;
}

function toDeployed(row: SqlRow): DeployedComponent {
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
  const endpointId = optStr(row.endpoint_id);
  if (endpointId !== undefined) dc.endpointId = endpointId;
  if (!isNull(row.custom_response)) dc.customResponse = bool(row.custom_response);
  const meta = fromJson(row.meta);
  if (meta !== undefined) dc.meta = meta as Record<string, unknown>;
  return dc;
}

function toEvent(row: SqlRow): StoredEvent {
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
  const summary = optStr(row.summary);
  const eventId = optStr(row.event_id);
  if (summary !== undefined) event.summary = summary;
  if (eventId !== undefined) event.eventId = eventId;
  return event;
}

const toLog = (row: SqlRow): LogLine => ({
  seq: num(row.seq),
  workspaceId: str(row.workspace_id),
  componentId: str(row.component_id),
  level: str(row.level),
  message: str(row.message),
  ts: num(row.ts),
});

function toWebhook(row: SqlRow): Webhook {
  const hook: Webhook = {
    id: str(row.id),
    workspaceId: str(row.workspace_id),
    url: str(row.url),
    active: bool(row.active),
    secrets: (fromJson(row.secrets) ?? []) as WebhookSecret[],
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
  const name = optStr(row.name);
  const description = optStr(row.description);
  const disabledReason = optStr(row.disabled_reason);
  const failingSince = optNum(row.failing_since);
  if (name !== undefined) hook.name = name;
  if (description !== undefined) hook.description = description;
  if (disabledReason !== undefined) hook.disabledReason = disabledReason;
  if (failingSince !== undefined) hook.failingSince = failingSince;
  return hook;
}

const toSubscription = (row: SqlRow): Subscription => ({
  id: str(row.id),
  workspaceId: str(row.workspace_id),
  emitterId: str(row.emitter_id),
  listenerId: str(row.listener_id),
  eventName: optStr(row.event_name) ?? null,
  createdAt: num(row.created_at),
});

function toTimer(row: SqlRow): Timer {
  const timer: Timer = {
    componentId: str(row.component_id),
    workspaceId: str(row.workspace_id),
    nextAt: num(row.next_at),
  };
  const leaseOwner = optStr(row.lease_owner);
  const leaseExpiresAt = optNum(row.lease_expires_at);
  if (leaseOwner !== undefined) timer.leaseOwner = leaseOwner;
  if (leaseExpiresAt !== undefined) timer.leaseExpiresAt = leaseExpiresAt;
  return timer;
}

function toDelivery(row: SqlRow): Delivery {
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
  const leaseOwner = optStr(row.lease_owner);
  const leaseExpiresAt = optNum(row.lease_expires_at);
  const lastStatus = optNum(row.last_status);
  const lastError = optStr(row.last_error);
  if (leaseOwner !== undefined) delivery.leaseOwner = leaseOwner;
  if (leaseExpiresAt !== undefined) delivery.leaseExpiresAt = leaseExpiresAt;
  if (lastStatus !== undefined) delivery.lastStatus = lastStatus;
  if (lastError !== undefined) delivery.lastError = lastError;
  return delivery;
}

function toAttempt(row: SqlRow): Attempt {
  const attempt: Attempt = {
    id: str(row.id),
    deliveryId: str(row.delivery_id),
    workspaceId: str(row.workspace_id),
    at: num(row.at),
    durationMs: num(row.duration_ms),
  };
  const status = optNum(row.status);
  const responseExcerpt = optStr(row.response_excerpt);
  const error = optStr(row.error);
  if (status !== undefined) attempt.status = status;
  if (responseExcerpt !== undefined) attempt.responseExcerpt = responseExcerpt;
  if (error !== undefined) attempt.error = error;
  return attempt;
}

/** Counts the rows a `WITH x AS (... RETURNING 1) SELECT count(*) AS n FROM x` statement reports. */
const countOf = (rows: SqlRow[]): number => num(rows[0]?.n ?? 0);

// ---- the store --------------------------------------------------------------------------------

/**
 * Creates a {@link Store} over a SQL client (PGlite or Postgres), after applying any pending
 * migrations. Semantics match the memory store of `@hookline/store`: returned rows are copies,
 * optional fields are omitted when unset, multi-row writes are atomic, and delivery and timer claims
 * use `FOR UPDATE SKIP LOCKED` so that concurrent workers never receive the same row.
 *
 * `close()` only marks the store closed: the caller owns the client (PGlite instance or pool) and
 * closes it afterwards.
 *
 * @param client - The SQL client (see {@link pgliteClient} and {@link pgPoolClient}).
 * @param options - Optional clock; `skipMigrations` to not run {@link migrate}.
 * @example
 * ```ts
 * import { createSqlStore, openPglite, pgliteClient } from "@hookline/store-sql";
 *
 * const db = await openPglite();
 * const store = await createSqlStore(pgliteClient(db));
 * const ws = await store.workspaces.create({ name: "Acme" });
 * ```
 */
export async function createSqlStore(client: SqlClient, options: SqlStoreOptions = {}): Promise<Store> {
  if (!options.skipMigrations) await migrate(client);
  const clock = options.now ?? Date.now;
  let closed = false;
  let notifier: SqlNotifier | undefined;
  if (options.notifications !== false) {
    let channel = options.notifications?.channel;
    if (channel === undefined) {
      const { rows } = await client.query("SELECT current_schema() AS schema");
      channel = channelFor(str(rows[0]?.schema ?? "public"));
    }
    notifier = createNotifier(client, channel, options.notifications || {});
  }
  /** `pg_notify` of a "deliveries are due" notice, as a select-list item guarded by `condition`. */
  const notifyDueWhen = (condition: string, params: unknown[]): string => {
    if (!notifier) return "NULL";
    params.push(notifier.channel, notifier.duePayload());
    return `CASE WHEN ${condition} THEN pg_notify($${params.length - 1}, $${params.length}) END`;
  };

  const open = (): void => {
    if (closed) throw new StoreError("closed", "The store is closed");
  };

  /** Runs one statement; a unique violation becomes a `conflict` StoreError with `conflict`. */
  const run = async (
    text: string,
    params: unknown[] = [],
    conflict?: string,
    db: SqlClient = client,
  ): Promise<SqlRow[]> => {
    open();
    try {
      return (await db.query(text, params)).rows;
    } catch (error) {
      if (isUniqueViolation(error))
        throw new StoreError("conflict", conflict ?? "Unique constraint violated");
      throw error;
    }
  };
  const one = async (text: string, params: unknown[] = []): Promise<SqlRow | undefined> =>
    (await run(text, params))[0];
  const transaction = <T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> => {
    open();
    return withTransaction(client, fn);
  };

  /** The `UPDATE ... SET` builder of the patch methods. */
  const patcher = (params: unknown[]) => {
    const sets: string[] = [];
    return {
      sets,
      set(column: string, value: unknown, cast = ""): void {
        params.push(value);
        sets.push(`${column} = $${params.length}${cast}`);
      },
    };
  };

  const cancelDeliveriesSql = (reason: string, nowParam: string, where: string): string =>
    `UPDATE deliveries SET state = 'failed', last_error = '${reason}', lease_owner = NULL,
       lease_expires_at = NULL, updated_at = ${nowParam}
     WHERE state IN ('pending', 'delivering') AND ${where}`;

  const store: Store = {
    workspaces: {
      async create(input) {
        const id = input.id ?? newId("ws");
        const row: Workspace = { id, name: input.name, createdAt: clock() };
        await run(
          "INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)",
          [row.id, row.name, row.createdAt],
          `Workspace ${id} exists`,
        );
        return row;
      },
      async get(id) {
        const row = await one(`SELECT ${cols(WORKSPACE)} FROM workspaces t WHERE t.id = $1`, [id]);
        return row && toWorkspace(row);
      },
      async list() {
        return (await run(`SELECT ${cols(WORKSPACE)} FROM workspaces t ORDER BY t.ord`)).map(toWorkspace);
      },
    },

    apiKeys: {
      async create(input) {
        const row: ApiKey = {
          id: newId("key"),
          workspaceId: input.workspaceId,
          name: input.name,
          hash: input.hash,
          hint: input.hint,
          createdAt: clock(),
        };
        await run(
          `INSERT INTO api_keys (id, workspace_id, name, hash, hint, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [row.id, row.workspaceId, row.name, row.hash, row.hint, row.createdAt],
          "An API key with this hash exists",
        );
        return row;
      },
      async findByHash(hash) {
        const row = await one(
          `SELECT ${cols(API_KEY)} FROM api_keys t WHERE t.hash = $1 AND t.revoked_at IS NULL`,
          [hash],
        );
        return row && toApiKey(row);
      },
      async list(workspaceId) {
        const rows = await run(
          `SELECT ${cols(API_KEY)} FROM api_keys t WHERE t.workspace_id = $1 ORDER BY t.ord`,
          [workspaceId],
        );
        return rows.map(toApiKey);
      },
      async revoke(workspaceId, id) {
        const rows = await run(
          `UPDATE api_keys SET revoked_at = $3
           WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING id`,
          [workspaceId, id, clock()],
        );
        return rows.length > 0;
      },
    },

    accounts: {
      async create(input) {
        const now = clock();
        const row: Account = {
          id: newId("apn"),
          workspaceId: input.workspaceId,
          app: input.app,
          name: input.name,
          credentials: input.credentials,
          createdAt: now,
          updatedAt: now,
        };
        await run(
          `INSERT INTO accounts (id, workspace_id, app, name, credentials, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [row.id, row.workspaceId, row.app, row.name, row.credentials, now, now],
        );
        return row;
      },
      async get(workspaceId, id) {
        const row = await one(
          `SELECT ${cols(ACCOUNT)} FROM accounts t WHERE t.workspace_id = $1 AND t.id = $2`,
          [workspaceId, id],
        );
        return row && toAccount(row);
      },
      async list(workspaceId, filter = {}) {
        const params: unknown[] = [workspaceId];
        let where = "t.workspace_id = $1";
        if (filter.app !== undefined) {
          params.push(filter.app);
          where += " AND t.app = $2";
        }
        const rows = await run(
          `SELECT ${cols(ACCOUNT)} FROM accounts t WHERE ${where} ORDER BY t.ord`,
          params,
        );
        return rows.map(toAccount);
      },
      async update(workspaceId, id, patch) {
        const params: unknown[] = [workspaceId, id];
        const { sets, set } = patcher(params);
        if (patch.name !== undefined) set("name", patch.name);
        if (patch.credentials !== undefined) set("credentials", patch.credentials);
        set("updated_at", clock());
        const row = await one(
          `UPDATE accounts t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2
           RETURNING ${cols(ACCOUNT)}`,
          params,
        );
        return row && toAccount(row);
      },
      async delete(workspaceId, id) {
        const rows = await run("DELETE FROM accounts WHERE workspace_id = $1 AND id = $2 RETURNING id", [
          workspaceId,
          id,
        ]);
        return rows.length > 0;
      },
    },

    savedComponents: {
      async create(input) {
        const row: SavedComponent = {
          id: newId("sc"),
          workspaceId: input.workspaceId,
          code: input.code,
          codeHash: input.codeHash,
          filename: input.filename,
          bundle: input.bundle,
          description: structuredClone(input.description),
          published: input.published ?? "private",
          createdAt: clock(),
        };
        if (input.key !== undefined) row.key = input.key;
        if (input.version !== undefined) row.version = input.version;
        await run(
          `INSERT INTO saved_components
             (id, workspace_id, code, code_hash, filename, bundle, description, key, version, published, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11)`,
          [
            row.id,
            row.workspaceId,
            row.code,
            row.codeHash,
            row.filename,
            row.bundle,
            toJson(row.description),
            row.key ?? null,
            row.version ?? null,
            row.published,
            row.createdAt,
          ],
          `Component ${input.key}@${input.version} exists`,
        );
        return structuredClone(row);
      },
      async get(workspaceId, id) {
        const row = await one(
          `SELECT ${cols(SAVED)} FROM saved_components t WHERE t.workspace_id = $1 AND t.id = $2`,
          [workspaceId, id],
        );
        return row && toSaved(row);
      },
      async list(workspaceId) {
        const rows = await run(
          `SELECT ${cols(SAVED)} FROM saved_components t WHERE t.workspace_id = $1 ORDER BY t.ord`,
          [workspaceId],
        );
        return rows.map(toSaved);
      },
      async findByKey(workspaceId, key, version) {
        const params: unknown[] = [workspaceId, key];
        let where = "t.key = $2 AND (t.workspace_id = $1 OR t.published = 'public')";
        if (version !== undefined) {
          params.push(version);
          where += " AND t.version = $3";
        }
        const rows = (
          await run(`SELECT ${cols(SAVED)} FROM saved_components t WHERE ${where} ORDER BY t.ord`, params)
        ).map(toSaved);
        // Semver order is computed here, exactly as the memory store does: the newest version wins,
        // then the workspace's own, then the latest saved.
        let best: SavedComponent | undefined;
        for (const row of rows) {
          if (!best) {
            best = row;
            continue;
          }
          const cmp = compareVersions(row.version, best.version);
          const own = row.workspaceId === workspaceId;
          const bestOwn = best.workspaceId === workspaceId;
          if (cmp > 0 || (cmp === 0 && ((own && !bestOwn) || own === bestOwn))) best = row;
        }
        return best;
      },
    },

    deployedComponents: {
      async create(input) {
        const id = input.id ?? newId("dc");
        const now = clock();
        const row: DeployedComponent = {
          id,
          workspaceId: input.workspaceId,
          savedComponentId: input.savedComponentId,
          name: input.name,
          slug: input.slug,
          props: structuredClone(input.props),
          active: input.active,
          createdAt: now,
          updatedAt: now,
        };
        if (input.endpointId !== undefined) row.endpointId = input.endpointId;
        if (input.customResponse !== undefined) row.customResponse = input.customResponse;
        if (input.meta !== undefined) row.meta = structuredClone(input.meta);
        await run(
          `INSERT INTO deployed_components
             (id, workspace_id, saved_component_id, name, slug, props, active, endpoint_id, custom_response,
              meta, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10::jsonb, $11, $12)`,
          [
            row.id,
            row.workspaceId,
            row.savedComponentId,
            row.name,
            row.slug,
            toJson(row.props),
            row.active,
            row.endpointId ?? null,
            row.customResponse ?? null,
            toJson(row.meta),
            now,
            now,
          ],
          `Deployed component ${id}, slug ${input.slug} or endpoint ${input.endpointId} is taken`,
        );
        return structuredClone(row);
      },
      async get(workspaceId, id) {
        const row = await one(
          `SELECT ${cols(DEPLOYED)} FROM deployed_components t WHERE t.workspace_id = $1 AND t.id = $2`,
          [workspaceId, id],
        );
        return row && toDeployed(row);
      },
      async getBySlug(workspaceId, slug) {
        const row = await one(
          `SELECT ${cols(DEPLOYED)} FROM deployed_components t WHERE t.workspace_id = $1 AND t.slug = $2`,
          [workspaceId, slug],
        );
        return row && toDeployed(row);
      },
      async getByEndpoint(endpointId) {
        const row = await one(
          `SELECT ${cols(DEPLOYED)} FROM deployed_components t WHERE t.endpoint_id = $1`,
          [endpointId],
        );
        return row && toDeployed(row);
      },
      async list(workspaceId) {
        const rows = await run(
          `SELECT ${cols(DEPLOYED)} FROM deployed_components t WHERE t.workspace_id = $1 ORDER BY t.ord`,
          [workspaceId],
        );
        return rows.map(toDeployed);
      },
      async update(workspaceId, id, patch) {
        const params: unknown[] = [workspaceId, id];
        const { sets, set } = patcher(params);
        if (patch.savedComponentId !== undefined) set("saved_component_id", patch.savedComponentId);
        if (patch.name !== undefined) set("name", patch.name);
        if (patch.slug !== undefined) set("slug", patch.slug);
        if (patch.props !== undefined) set("props", toJson(patch.props), "::jsonb");
        if (patch.active !== undefined) set("active", patch.active);
        if (patch.customResponse !== undefined) set("custom_response", patch.customResponse);
        if (patch.endpointId !== undefined) set("endpoint_id", patch.endpointId);
        if (patch.meta !== undefined) set("meta", patch.meta === null ? null : toJson(patch.meta), "::jsonb");
        set("updated_at", clock());
        const rows = await run(
          `UPDATE deployed_components t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2
           RETURNING ${cols(DEPLOYED)}`,
          params,
          `Slug ${patch.slug} or endpoint ${patch.endpointId} is taken`,
        );
        const row = rows[0];
        return row && toDeployed(row);
      },
      async delete(workspaceId, id) {
        // One statement, so atomic: the component and everything it owns.
        const rows = await run(
          `WITH gone AS (
             DELETE FROM deployed_components WHERE workspace_id = $1 AND id = $2 RETURNING id
           ), kv_gone AS (
             DELETE FROM kv WHERE component_id IN (SELECT id FROM gone)
           ), dedupe_gone AS (
             DELETE FROM dedupe WHERE component_id IN (SELECT id FROM gone)
           ), timer_gone AS (
             DELETE FROM timers WHERE component_id IN (SELECT id FROM gone)
           ), logs_gone AS (
             DELETE FROM logs WHERE component_id IN (SELECT id FROM gone)
           ), subs_gone AS (
             DELETE FROM subscriptions
             WHERE emitter_id IN (SELECT id FROM gone) OR listener_id IN (SELECT id FROM gone)
           )
           SELECT count(*) AS n FROM gone`,
          [workspaceId, id],
        );
        return countOf(rows) > 0;
      },
    },

    dedupe: {
      async get(componentId) {
        const row = await one("SELECT state::text AS state FROM dedupe WHERE component_id = $1", [
          componentId,
        ]);
        return row && fromJson(row.state);
      },
      async set(componentId, state) {
        await run(
          `INSERT INTO dedupe (component_id, state) VALUES ($1, $2::jsonb)
           ON CONFLICT (component_id) DO UPDATE SET state = excluded.state`,
          [componentId, toJson(state)],
        );
      },
    },

    kv: {
      async get(componentId, key) {
        const row = await one("SELECT value::text AS value FROM kv WHERE component_id = $1 AND key = $2", [
          componentId,
          key,
        ]);
        return row && fromJson(row.value);
      },
      async set(componentId, key, value) {
        await run(
          `INSERT INTO kv (component_id, key, value) VALUES ($1, $2, $3::jsonb)
           ON CONFLICT (component_id, key) DO UPDATE SET value = excluded.value`,
          [componentId, key, toJson(value)],
        );
      },
      async delete(componentId, key) {
        const rows = await run("DELETE FROM kv WHERE component_id = $1 AND key = $2 RETURNING key", [
          componentId,
          key,
        ]);
        return rows.length > 0;
      },
      async list(componentId) {
        const rows = await run(
          "SELECT key, value::text AS value FROM kv WHERE component_id = $1 ORDER BY key",
          [componentId],
        );
        return rows.map((row): KvEntry => ({ key: str(row.key), value: fromJson(row.value) }));
      },
    },

    events: {
      async append(workspaceId, emitterId, inputs, appendOptions = {}) {
        open();
        if (inputs.length === 0) return [];
        const now = appendOptions.now ?? clock();
        return transaction(async (tx) => {
          // The matching webhooks, locked against a concurrent delete until this commits.
          const targets = await run(
            `SELECT s.event_name, w.id AS webhook_id
             FROM subscriptions s JOIN webhooks w ON w.id = s.listener_id
             WHERE s.workspace_id = $1 AND s.emitter_id = $2 AND w.workspace_id = $1 AND w.active
             ORDER BY s.ord
             FOR SHARE OF w`,
            [workspaceId, emitterId],
            undefined,
            tx,
          );
          const rows: StoredEvent[] = inputs.map((input) => {
            const row: StoredEvent = {
              id: newId("evt", now),
              seq: 0,
              workspaceId,
              emitterId,
              channel: input.channel,
              ts: input.ts,
              body: structuredClone(input.body),
              createdAt: now,
            };
            if (input.summary !== undefined) row.summary = input.summary;
            if (input.eventId !== undefined) row.eventId = input.eventId;
            return row;
          });
          const seqs = new Map<string, number>();
          const eventColumns = 9;
          const eventChunk = chunkRows(eventColumns);
          for (let start = 0; start < rows.length; start += eventChunk) {
            const chunk = rows.slice(start, start + eventChunk);
            const params: unknown[] = [];
            for (const row of chunk) {
              params.push(
                row.id,
                workspaceId,
                emitterId,
                row.channel,
                row.summary ?? null,
                row.eventId ?? null,
                row.ts,
                toJson(row.body),
                now,
              );
            }
            const inserted = await run(
              `INSERT INTO events (id, workspace_id, emitter_id, channel, summary, event_id, ts, body, created_at)
               VALUES ${placeholders(chunk.length, eventColumns, ["", "", "", "", "", "", "", "::jsonb", ""])}
               RETURNING id, seq`,
              params,
              undefined,
              tx,
            );
            for (const row of inserted) seqs.set(str(row.id), num(row.seq));
          }
          const deliveries: unknown[][] = [];
          const result: AppendedEvent[] = rows.map((row) => {
            row.seq = seqs.get(row.id) ?? 0;
            const deliveryIds: string[] = [];
            const seen = new Set<string>();
            for (const target of targets) {
              if ((optStr(target.event_name) ?? DEFAULT_CHANNEL) !== row.channel) continue;
              const webhookId = str(target.webhook_id);
              if (seen.has(webhookId)) continue;
              seen.add(webhookId);
              const id = newId("dlv", now);
              deliveryIds.push(id);
              deliveries.push([id, workspaceId, webhookId, row.id, emitterId, row.channel, now, now, now]);
            }
            return { ...structuredClone(row), deliveryIds };
          });
          const deliveryColumns = 9;
          const deliveryChunk = chunkRows(deliveryColumns);
          for (let start = 0; start < deliveries.length; start += deliveryChunk) {
            const chunk = deliveries.slice(start, start + deliveryChunk);
            await run(
              `INSERT INTO deliveries
                 (id, workspace_id, webhook_id, event_id, emitter_id, channel, state, next_attempt_at, created_at,
                  updated_at)
               SELECT v.id, v.workspace_id, v.webhook_id, v.event_id, v.emitter_id, v.channel, 'pending', v.next_attempt_at,
                      v.created_at, v.updated_at
               FROM (VALUES ${placeholders(chunk.length, deliveryColumns, ["", "", "", "", "", "", "::bigint", "::bigint", "::bigint"])})
                 AS v (id, workspace_id, webhook_id, event_id, emitter_id, channel, next_attempt_at, created_at, updated_at)`,
              chunk.flat(),
              undefined,
              tx,
            );
          }
          if (notifier && result.length > 0) {
            // Sent on commit, never for a rollback: listeners read committed rows.
            const payloads = notifier.eventPayloads(
              workspaceId,
              emitterId,
              result.map((row) => row.seq).sort((a, b) => a - b),
              deliveries.length > 0,
            );
            if (payloads.length > 0) {
              await run(
                `SELECT ${payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(", ")}`,
                [notifier.channel, ...payloads],
                undefined,
                tx,
              );
            }
          }
          return result;
        });
      },
      async list(workspaceId, emitterId, listOptions = {}) {
        const limit = clampLimit(listOptions.limit, 10, 100);
        const before = parseCursor(listOptions.before);
        const after = parseCursor(listOptions.after);
        const params: unknown[] = [workspaceId, emitterId];
        let where = "t.workspace_id = $1 AND t.emitter_id = $2";
        if (listOptions.channel !== undefined) {
          params.push(listOptions.channel);
          where += ` AND t.channel = $${params.length}`;
        }
        if (before !== undefined) {
          params.push(before);
          where += ` AND t.seq < $${params.length}`;
        }
        if (after !== undefined) {
          params.push(after);
          where += ` AND t.seq > $${params.length}`;
        }
        params.push(limit + 1);
        const rows = await run(
          `SELECT ${cols(EVENT)} FROM events t WHERE ${where} ORDER BY t.seq DESC LIMIT $${params.length}`,
          params,
        );
        const items = rows.slice(0, limit).map(toEvent);
        const page: Page<StoredEvent> = { items };
        const last = items[items.length - 1];
        if (rows.length > limit && last) page.nextCursor = String(last.seq);
        return page;
      },
      async get(workspaceId, id) {
        const row = await one(`SELECT ${cols(EVENT)} FROM events t WHERE t.workspace_id = $1 AND t.id = $2`, [
          workspaceId,
          id,
        ]);
        return row && toEvent(row);
      },
      async getById(id) {
        const row = await one(`SELECT ${cols(EVENT)} FROM events t WHERE t.id = $1`, [id]);
        return row && toEvent(row);
      },
      async delete(workspaceId, emitterId, ids) {
        if (ids !== undefined && ids.length === 0) {
          open();
          return 0;
        }
        const params: unknown[] = [workspaceId, emitterId, clock()];
        let where = "workspace_id = $1 AND emitter_id = $2";
        if (ids !== undefined) {
          const marks = ids.map((id) => {
            params.push(id);
            return `$${params.length}`;
          });
          where += ` AND id IN (${marks.join(", ")})`;
        }
        const rows = await run(
          `WITH gone AS (DELETE FROM events WHERE ${where} RETURNING id),
           cancelled AS (${cancelDeliveriesSql("event_deleted", "$3", "event_id IN (SELECT id FROM gone)")})
           SELECT count(*) AS n FROM gone`,
          params,
        );
        return countOf(rows);
      },
      async trim(emitterId, keep) {
        const rows = await run(
          `WITH gone AS (
             DELETE FROM events WHERE emitter_id = $1 AND seq <= (
               SELECT seq FROM events WHERE emitter_id = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1
             ) RETURNING id
           ), cancelled AS (${cancelDeliveriesSql("event_deleted", "$3", "event_id IN (SELECT id FROM gone)")})
           SELECT count(*) AS n FROM gone`,
          [emitterId, Math.max(0, Math.trunc(keep)), clock()],
        );
        return countOf(rows);
      },
    },

    logs: {
      async append(workspaceId, componentId, lines) {
        open();
        if (lines.length === 0) return [];
        const stored: LogLine[] = [];
        const columnsPerRow = 5;
        const size = chunkRows(columnsPerRow);
        const insert = async (db: SqlClient): Promise<void> => {
          for (let start = 0; start < lines.length; start += size) {
            const chunk = lines.slice(start, start + size);
            const params = chunk.flatMap((line) => [
              workspaceId,
              componentId,
              line.level,
              line.message,
              line.ts,
            ]);
            let text = `INSERT INTO logs (workspace_id, component_id, level, message, ts)
               VALUES ${placeholders(chunk.length, columnsPerRow)} RETURNING seq`;
            if (notifier && Buffer.byteLength(workspaceId + componentId) < 4_000) {
              // One statement: the lines and a notice of their seq range (sent on commit).
              const n = params.length;
              params.push(notifier.channel, notifier.origin, workspaceId, componentId);
              text = `WITH ins AS (${text}), note AS (
                  SELECT pg_notify($${n + 1}, json_build_object('o', $${n + 2}::text, 't', 'l',
                    'w', $${n + 3}::text, 'c', $${n + 4}::text,
                    'r', json_build_array(json_build_array(min(seq), max(seq))))::text) AS sent
                  FROM ins
                )
                SELECT seq, (SELECT count(*) FROM note) AS noted FROM ins`;
            }
            const rows = await run(text, params, undefined, db);
            // Sequence values are drawn in VALUES order.
            const seqs = rows.map((row) => num(row.seq)).sort((a, b) => a - b);
            chunk.forEach((line, i) => {
              stored.push({
                seq: seqs[i] ?? 0,
                workspaceId,
                componentId,
                level: line.level,
                message: line.message,
                ts: line.ts,
              });
            });
          }
        };
        if (lines.length <= size) await insert(client);
        else await transaction(insert);
        return stored;
      },
      async list(workspaceId, componentId, listOptions = {}) {
        const limit = clampLimit(listOptions.limit, 100, 1000);
        const after = parseCursor(listOptions.after);
        const params: unknown[] = [workspaceId, componentId];
        let where = "t.workspace_id = $1 AND t.component_id = $2";
        if (after !== undefined) {
          params.push(after);
          where += ` AND t.seq > $${params.length}`;
        }
        params.push(limit + 1);
        const rows = await run(
          `SELECT ${cols(LOG)} FROM logs t WHERE ${where} ORDER BY t.seq LIMIT $${params.length}`,
          params,
        );
        const items = rows.slice(0, limit).map(toLog);
        const page: Page<LogLine> = { items };
        const last = items[items.length - 1];
        if (rows.length > limit && last) page.nextCursor = String(last.seq);
        return page;
      },
      async trim(componentId, keep) {
        const rows = await run(
          `WITH gone AS (
             DELETE FROM logs WHERE component_id = $1 AND seq <= (
               SELECT seq FROM logs WHERE component_id = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1
             ) RETURNING 1
           ) SELECT count(*) AS n FROM gone`,
          [componentId, Math.max(0, Math.trunc(keep))],
        );
        return countOf(rows);
      },
    },

    webhooks: {
      async create(input) {
        const now = clock();
        const row: Webhook = {
          id: newId("wh"),
          workspaceId: input.workspaceId,
          url: input.url,
          active: input.active,
          secrets: structuredClone(input.secrets),
          createdAt: now,
          updatedAt: now,
        };
        if (input.name !== undefined) row.name = input.name;
        if (input.description !== undefined) row.description = input.description;
        await run(
          `INSERT INTO webhooks (id, workspace_id, url, name, description, active, secrets, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)`,
          [
            row.id,
            row.workspaceId,
            row.url,
            row.name ?? null,
            row.description ?? null,
            row.active,
            toJson(row.secrets),
            now,
            now,
          ],
        );
        return structuredClone(row);
      },
      async get(workspaceId, id) {
        const row = await one(
          `SELECT ${cols(WEBHOOK)} FROM webhooks t WHERE t.workspace_id = $1 AND t.id = $2`,
          [workspaceId, id],
        );
        return row && toWebhook(row);
      },
      async list(workspaceId) {
        const rows = await run(
          `SELECT ${cols(WEBHOOK)} FROM webhooks t WHERE t.workspace_id = $1 ORDER BY t.ord`,
          [workspaceId],
        );
        return rows.map(toWebhook);
      },
      async update(workspaceId, id, patch) {
        const params: unknown[] = [workspaceId, id];
        const { sets, set } = patcher(params);
        if (patch.url !== undefined) set("url", patch.url);
        if (patch.active !== undefined) set("active", patch.active);
        if (patch.secrets !== undefined) set("secrets", toJson(patch.secrets), "::jsonb");
        if (patch.name !== undefined) set("name", patch.name);
        if (patch.description !== undefined) set("description", patch.description);
        if (patch.disabledReason !== undefined) set("disabled_reason", patch.disabledReason);
        if (patch.failingSince !== undefined) set("failing_since", patch.failingSince, "::bigint");
        set("updated_at", clock());
        const row = await one(
          `UPDATE webhooks t SET ${sets.join(", ")} WHERE t.workspace_id = $1 AND t.id = $2
           RETURNING ${cols(WEBHOOK)}`,
          params,
        );
        return row && toWebhook(row);
      },
      async delete(workspaceId, id) {
        // One statement, so atomic: the webhook, its subscriptions, and its unfinished deliveries fail.
        const rows = await run(
          `WITH gone AS (
             DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2 RETURNING id
           ), subs_gone AS (
             DELETE FROM subscriptions WHERE listener_id IN (SELECT id FROM gone)
           ), cancelled AS (${cancelDeliveriesSql("webhook_deleted", "$3", "webhook_id IN (SELECT id FROM gone)")})
           SELECT count(*) AS n FROM gone`,
          [workspaceId, id, clock()],
        );
        return countOf(rows) > 0;
      },
    },

    subscriptions: {
      async create(input) {
        const row: Subscription = {
          id: newId("sub"),
          workspaceId: input.workspaceId,
          emitterId: input.emitterId,
          listenerId: input.listenerId,
          eventName: input.eventName ?? null,
          createdAt: clock(),
        };
        const inserted = await run(
          `INSERT INTO subscriptions (id, workspace_id, emitter_id, listener_id, event_name, created_at)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id`,
          [row.id, row.workspaceId, row.emitterId, row.listenerId, row.eventName, row.createdAt],
        );
        if (inserted.length > 0) return { ...row, created: true };
        const existing = await one(
          `SELECT ${cols(SUBSCRIPTION)} FROM subscriptions t
           WHERE t.workspace_id = $1 AND t.emitter_id = $2 AND t.listener_id = $3
             AND coalesce(t.event_name, 'default') = $4`,
          [row.workspaceId, row.emitterId, row.listenerId, row.eventName ?? DEFAULT_CHANNEL],
        );
        if (!existing) throw new StoreError("conflict", "The subscription changed concurrently; retry");
        return { ...toSubscription(existing), created: false };
      },
      async list(workspaceId, filter = {}) {
        const params: unknown[] = [workspaceId];
        let where = "t.workspace_id = $1";
        if (filter.emitterId !== undefined) {
          params.push(filter.emitterId);
          where += ` AND t.emitter_id = $${params.length}`;
        }
        if (filter.listenerId !== undefined) {
          params.push(filter.listenerId);
          where += ` AND t.listener_id = $${params.length}`;
        }
        const rows = await run(
          `SELECT ${cols(SUBSCRIPTION)} FROM subscriptions t WHERE ${where} ORDER BY t.ord`,
          params,
        );
        return rows.map(toSubscription);
      },
      async delete(workspaceId, match) {
        const params: unknown[] = [workspaceId, match.emitterId, match.listenerId];
        let where = "workspace_id = $1 AND emitter_id = $2 AND listener_id = $3";
        if (match.eventName !== undefined) {
          params.push(match.eventName ?? DEFAULT_CHANNEL);
          where += " AND coalesce(event_name, 'default') = $4";
        }
        const rows = await run(
          `WITH gone AS (DELETE FROM subscriptions WHERE ${where} RETURNING 1) SELECT count(*) AS n FROM gone`,
          params,
        );
        return countOf(rows);
      },
    },

    timers: {
      async upsert(input) {
        await run(
          `INSERT INTO timers (component_id, workspace_id, next_at) VALUES ($1, $2, $3)
           ON CONFLICT (component_id) DO UPDATE SET workspace_id = excluded.workspace_id,
             next_at = excluded.next_at, lease_owner = NULL, lease_expires_at = NULL`,
          [input.componentId, input.workspaceId, input.nextAt],
        );
        return { componentId: input.componentId, workspaceId: input.workspaceId, nextAt: input.nextAt };
      },
      async get(workspaceId, componentId) {
        const row = await one(
          `SELECT ${cols(TIMER)} FROM timers t WHERE t.workspace_id = $1 AND t.component_id = $2`,
          [workspaceId, componentId],
        );
        return row && toTimer(row);
      },
      async delete(componentId) {
        const rows = await run("DELETE FROM timers WHERE component_id = $1 RETURNING component_id", [
          componentId,
        ]);
        return rows.length > 0;
      },
      async claimDue(now, owner, leaseMs, limit) {
        const max = Math.max(0, Math.floor(limit));
        if (max === 0) {
          open();
          return [];
        }
        const rows = await run(
          `UPDATE timers t SET lease_owner = $2, lease_expires_at = $3
           FROM (
             SELECT component_id FROM timers
             WHERE next_at <= $1 AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
             ORDER BY next_at, ord
             LIMIT $4
             FOR UPDATE SKIP LOCKED
           ) due
           WHERE t.component_id = due.component_id
           RETURNING ${cols(TIMER)}, t.ord`,
          [now, owner, now + leaseMs, max],
        );
        return rows.sort((a, b) => num(a.next_at) - num(b.next_at) || num(a.ord) - num(b.ord)).map(toTimer);
      },
      async advance(componentId, owner, firedAt, nextAt) {
        const rows = await run(
          `UPDATE timers SET next_at = $4, lease_owner = NULL, lease_expires_at = NULL
           WHERE component_id = $1 AND lease_owner = $2 AND next_at = $3 RETURNING component_id`,
          [componentId, owner, firedAt, nextAt],
        );
        return rows.length > 0;
      },
    },

    deliveries: {
      async claim(claimOptions) {
        const { owner, now, leaseMs, limit, perWebhookLimit } = claimOptions;
        const max = Math.max(0, Math.floor(limit));
        if (max === 0) {
          open();
          return [];
        }
        return transaction(async (tx) => {
          if (perWebhookLimit !== undefined) {
            // Claims bounded per webhook count the rows in flight: serialize them so that two
            // claimers never both see room for the same slot.
            await run(`SELECT pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`, [], undefined, tx);
          }
          const claimed: ClaimedDelivery[] = [];
          for (;;) {
            const want = max - claimed.length;
            if (want <= 0) break;
            // params: $1 now, $2 want, $3 owner, $4 lease expiry, $5 per-webhook limit
            const params: unknown[] = [now, want, owner, now + leaseMs];
            let picked: string;
            if (perWebhookLimit === undefined) {
              picked = `
                SELECT d.id, d.event_id, d.webhook_id FROM deliveries d
                WHERE d.state = 'pending' AND d.next_attempt_at <= $1
                ORDER BY d.next_attempt_at, d.id
                LIMIT $2
                FOR UPDATE SKIP LOCKED`;
            } else {
              params.push(Math.floor(perWebhookLimit));
              // Set-based and bounded by the webhooks, not the backlog: walk the distinct webhooks that
              // have pending rows (a loose index scan of deliveries_pending_webhook), take each one's
              // earliest due rows up to its free slots (the limit minus its rows in flight under a live
              // lease), then the earliest of those overall.
              picked = `
                WITH RECURSIVE hooks AS (
                  (SELECT d.webhook_id FROM deliveries d WHERE d.state = 'pending'
                   ORDER BY d.webhook_id LIMIT 1)
                  UNION ALL
                  SELECT (SELECT d.webhook_id FROM deliveries d
                          WHERE d.state = 'pending' AND d.webhook_id > h.webhook_id
                          ORDER BY d.webhook_id LIMIT 1)
                  FROM hooks h WHERE h.webhook_id IS NOT NULL
                ), in_flight AS (
                  SELECT webhook_id, count(*) AS n FROM deliveries
                  WHERE state = 'delivering' AND lease_expires_at > $1
                  GROUP BY webhook_id
                ), allowed AS (
                  SELECT p.id, p.next_attempt_at
                  FROM hooks h
                  LEFT JOIN in_flight f ON f.webhook_id = h.webhook_id
                  CROSS JOIN LATERAL (
                    SELECT d.id, d.next_attempt_at FROM deliveries d
                    WHERE d.webhook_id = h.webhook_id AND d.state = 'pending' AND d.next_attempt_at <= $1
                    ORDER BY d.next_attempt_at, d.id
                    LIMIT least(greatest($5::bigint - coalesce(f.n, 0), 0), $2::bigint)
                  ) p
                  WHERE h.webhook_id IS NOT NULL
                  ORDER BY p.next_attempt_at, p.id
                  LIMIT $2
                )
                SELECT d.id, d.event_id, d.webhook_id FROM deliveries d
                WHERE d.id IN (SELECT id FROM allowed) AND d.state = 'pending'
                FOR UPDATE SKIP LOCKED`;
            }
            const rows = await run(
              `WITH picked AS (${picked}
               ), flagged AS (
                 SELECT p.id,
                   EXISTS (SELECT 1 FROM events e WHERE e.id = p.event_id) AS has_event,
                   EXISTS (SELECT 1 FROM webhooks w WHERE w.id = p.webhook_id) AS has_webhook
                 FROM picked p
               ), updated AS (
                 UPDATE deliveries d SET
                   state = CASE WHEN f.has_event AND f.has_webhook THEN 'delivering' ELSE 'failed' END,
                   attempts = CASE WHEN f.has_event AND f.has_webhook THEN d.attempts + 1 ELSE d.attempts END,
                   lease_owner = CASE WHEN f.has_event AND f.has_webhook THEN $3 ELSE d.lease_owner END,
                   lease_expires_at = CASE WHEN f.has_event AND f.has_webhook THEN $4::bigint
                     ELSE d.lease_expires_at END,
                   last_error = CASE WHEN f.has_event AND f.has_webhook THEN d.last_error
                     WHEN f.has_event THEN 'webhook_deleted' ELSE 'event_deleted' END,
                   updated_at = $1
                 FROM flagged f
                 WHERE d.id = f.id
                 RETURNING d.*
               )
               SELECT ${cols(DELIVERY, "u")}, ${cols(EVENT, "e", "e_")}, ${cols(WEBHOOK, "w", "w_")}
               FROM updated u
               LEFT JOIN events e ON e.id = u.event_id
               LEFT JOIN webhooks w ON w.id = u.webhook_id`,
              params,
              undefined,
              tx,
            );
            let orphans = 0;
            for (const row of rows) {
              if (row.state !== "delivering" || isNull(row.e_id) || isNull(row.w_id)) {
                orphans++;
                continue;
              }
              claimed.push({
                ...toDelivery(row),
                event: toEvent(unprefix(row, "e_")),
                webhook: toWebhook(unprefix(row, "w_")),
              });
            }
            // Orphans (event or webhook gone) were failed and do not count: look again for the rest.
            if (orphans === 0 || rows.length === 0) break;
          }
          return claimed.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || compareIds(a.id, b.id));
        });
      },
      async complete(id, owner, outcome) {
        const at = outcome.at ?? clock();
        const nextAttemptAt = outcome.state === "pending" ? (outcome.nextAttemptAt ?? at) : null;
        const params: unknown[] = [
          id,
          owner,
          outcome.state,
          nextAttemptAt,
          outcome.status ?? null,
          outcome.error ?? null,
          at,
        ];
        let text = `UPDATE deliveries SET state = $3, next_attempt_at = coalesce($4::bigint, next_attempt_at),
             last_status = $5, last_error = $6, lease_owner = NULL, lease_expires_at = NULL, updated_at = $7
           WHERE id = $1 AND state = 'delivering' AND lease_owner = $2 RETURNING id`;
        if (notifier && nextAttemptAt !== null && nextAttemptAt <= at) {
          // Released as due now (such as by a stopping worker): wake the other workers.
          text = `WITH done AS (${text}) SELECT id, ${notifyDueWhen("true", params)} AS noted FROM done`;
        }
        const rows = await run(text, params);
        return rows.length > 0;
      },
      async recordAttempt(input) {
        const row: Attempt = { id: newId("att", input.at), ...structuredClone(input) };
        await run(
          `INSERT INTO attempts (id, delivery_id, workspace_id, at, status, duration_ms, response_excerpt, error)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            row.id,
            row.deliveryId,
            row.workspaceId,
            row.at,
            row.status ?? null,
            row.durationMs,
            row.responseExcerpt ?? null,
            row.error ?? null,
          ],
        );
        return toAttempt({
          id: row.id,
          delivery_id: row.deliveryId,
          workspace_id: row.workspaceId,
          at: row.at,
          status: row.status,
          duration_ms: row.durationMs,
          response_excerpt: row.responseExcerpt,
          error: row.error,
        });
      },
      async listAttempts(workspaceId, deliveryId) {
        const rows = await run(
          `SELECT ${cols(ATTEMPT)} FROM attempts t WHERE t.workspace_id = $1 AND t.delivery_id = $2 ORDER BY t.ord`,
          [workspaceId, deliveryId],
        );
        return rows.map(toAttempt);
      },
      async sweep(now) {
        const params: unknown[] = [now];
        const rows = await run(
          `WITH swept AS (
             UPDATE deliveries SET state = 'pending', lease_owner = NULL, lease_expires_at = NULL, updated_at = $1
             WHERE state = 'delivering' AND coalesce(lease_expires_at, 0) <= $1 RETURNING 1
           ) SELECT n, ${notifyDueWhen("n > 0", params)} AS noted FROM (SELECT count(*) AS n FROM swept) c`,
          params,
        );
        return countOf(rows);
      },
      async get(workspaceId, id) {
        const row = await one(
          `SELECT ${cols(DELIVERY, "d")}, ${cols(EVENT, "e", "e_")}
           FROM deliveries d LEFT JOIN events e ON e.id = d.event_id
           WHERE d.workspace_id = $1 AND d.id = $2`,
          [workspaceId, id],
        );
        if (!row) return undefined;
        const delivery: DeliveryWithEvent = toDelivery(row);
        if (!isNull(row.e_id)) delivery.event = toEvent(unprefix(row, "e_"));
        return delivery;
      },
      async list(workspaceId, listOptions = {}) {
        const limit = clampLimit(listOptions.limit, 50, 100);
        const params: unknown[] = [workspaceId];
        let where = "t.workspace_id = $1";
        const filter = (column: string, value: unknown, op = "="): void => {
          params.push(value);
          where += ` AND t.${column} ${op} $${params.length}`;
        };
        if (listOptions.webhookId !== undefined) filter("webhook_id", listOptions.webhookId);
        if (listOptions.eventId !== undefined) filter("event_id", listOptions.eventId);
        if (listOptions.state !== undefined) filter("state", listOptions.state);
        if (listOptions.before !== undefined) filter("id", listOptions.before, "<");
        params.push(limit + 1);
        const rows = await run(
          `SELECT ${cols(DELIVERY)} FROM deliveries t WHERE ${where} ORDER BY t.id DESC LIMIT $${params.length}`,
          params,
        );
        const items = rows.slice(0, limit).map(toDelivery);
        const page: Page<Delivery> = { items };
        const last = items[items.length - 1];
        if (rows.length > limit && last) page.nextCursor = last.id;
        return page;
      },
      async retry(workspaceId, id, now) {
        const params: unknown[] = [workspaceId, id, now];
        const rows = await run(
          `WITH retried AS (
             UPDATE deliveries d SET state = 'pending', next_attempt_at = $3, updated_at = $3
             WHERE d.workspace_id = $1 AND d.id = $2 AND d.state <> 'delivering'
               AND EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)
               AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)
             RETURNING 1
           ) SELECT n, ${notifyDueWhen("n > 0", params)} AS noted FROM (SELECT count(*) AS n FROM retried) c`,
          params,
        );
        return countOf(rows) > 0;
      },
      async recover(workspaceId, webhookId, window, now) {
        const params: unknown[] = [workspaceId, webhookId, window.since, window.until ?? null, now];
        const rows = await run(
          `WITH recovered AS (
             UPDATE deliveries d SET state = 'pending', next_attempt_at = $5, updated_at = $5
             WHERE d.workspace_id = $1 AND d.webhook_id = $2 AND d.state = 'failed'
               AND d.created_at >= $3 AND ($4::bigint IS NULL OR d.created_at < $4::bigint)
               AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = $2 AND w.workspace_id = $1)
               AND EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)
             RETURNING 1
           ) SELECT n, ${notifyDueWhen("n > 0", params)} AS noted FROM (SELECT count(*) AS n FROM recovered) c`,
          params,
        );
        return countOf(rows);
      },
    },

    async close() {
      closed = true;
      await notifier?.close();
    },
  };
  // Subscribers get notices only when the client can LISTEN; writers send them either way.
  if (notifier && client.listen)
    store.notifications = { subscribe: (fn) => (notifier as SqlNotifier).subscribe(fn) };
  return store;
}
