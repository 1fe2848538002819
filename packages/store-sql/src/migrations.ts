import { type SqlClient, withTransaction } from "./clients.js";
import { MIGRATION_10 } from "./migration-10.js";
import { MIGRATION_11 } from "./migration-11.js";

/** One forward-only schema migration. */
export interface Migration {
  /** Its number: migrations are applied in increasing `id` order, each once. */
  id: number;
  /** A short, descriptive name. */
  name: string;
  /**
   * The SQL: plain statements separated by `;` at the end of a line (no functions or `$$` bodies, so
   * that drivers without multi-statement support can run it statement by statement).
   */
  sql: string;
}

/**
 * The key of the advisory lock `migrate` holds while it applies migrations, so that concurrent
 * processes starting at once apply each migration exactly once.
 */
export const MIGRATION_LOCK_KEY = 7_461_203_318;

/**
 * Every migration of the SQL store, oldest first. Never edit an applied migration: add a new one.
 * Operators who migrate by hand run each `sql` in order and record it in `hookline_migrations`.
 *
 * @example
 * ```ts
 * for (const migration of MIGRATIONS) console.log(`-- ${migration.id} ${migration.name}\n${migration.sql}`);
 * ```
 */
export const MIGRATIONS: Migration[] = [
  {
    id: 1,
    name: "initial schema",
    sql: `
CREATE TABLE workspaces (
  id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  name text NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX workspaces_ord ON workspaces (ord);

CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  hash text COLLATE "C" NOT NULL UNIQUE,
  hint text NOT NULL,
  created_at bigint NOT NULL,
  revoked_at bigint
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id, ord);

CREATE TABLE accounts (
  id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  app text NOT NULL,
  name text NOT NULL,
  credentials text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX accounts_workspace ON accounts (workspace_id, ord);

CREATE TABLE saved_components (
  id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  code text NOT NULL,
  code_hash text NOT NULL,
  filename text NOT NULL,
  bundle text NOT NULL,
  description jsonb,
  key text COLLATE "C",
  version text COLLATE "C",
  published text NOT NULL CHECK (published IN ('private', 'public')),
  created_at bigint NOT NULL
);
CREATE INDEX saved_components_workspace ON saved_components (workspace_id, ord);
CREATE UNIQUE INDEX saved_components_key_version ON saved_components (workspace_id, key, version);
CREATE INDEX saved_components_key ON saved_components (key);

CREATE TABLE deployed_components (
  id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  saved_component_id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  slug text COLLATE "C" NOT NULL,
  props jsonb NOT NULL,
  active boolean NOT NULL,
  endpoint_id text COLLATE "C" UNIQUE,
  custom_response boolean,
  meta jsonb,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  UNIQUE (workspace_id, slug)
);
CREATE INDEX deployed_components_workspace ON deployed_components (workspace_id, ord);

CREATE TABLE dedupe (
  component_id text COLLATE "C" PRIMARY KEY,
  state jsonb
);

CREATE TABLE kv (
  component_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value jsonb,
  PRIMARY KEY (component_id, key)
);

CREATE TABLE events (
  seq bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  workspace_id text COLLATE "C" NOT NULL,
  emitter_id text COLLATE "C" NOT NULL,
  channel text NOT NULL,
  summary text,
  event_id text,
  ts bigint NOT NULL,
  body jsonb,
  created_at bigint NOT NULL
);
CREATE INDEX events_emitter ON events (emitter_id, seq);

CREATE TABLE logs (
  seq bigserial PRIMARY KEY,
  workspace_id text COLLATE "C" NOT NULL,
  component_id text COLLATE "C" NOT NULL,
  level text NOT NULL,
  message text NOT NULL,
  ts bigint NOT NULL
);
CREATE INDEX logs_component ON logs (component_id, seq);

CREATE TABLE webhooks (
  id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  url text NOT NULL,
  name text,
  description text,
  active boolean NOT NULL,
  secrets jsonb NOT NULL,
  disabled_reason text,
  failing_since bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX webhooks_workspace ON webhooks (workspace_id, ord);

CREATE TABLE subscriptions (
  id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  emitter_id text COLLATE "C" NOT NULL,
  listener_id text COLLATE "C" NOT NULL,
  event_name text,
  created_at bigint NOT NULL
);
CREATE UNIQUE INDEX subscriptions_channel ON subscriptions (workspace_id, emitter_id, listener_id, (coalesce(event_name, 'default')));
CREATE INDEX subscriptions_workspace ON subscriptions (workspace_id, ord);
CREATE INDEX subscriptions_emitter ON subscriptions (emitter_id);
CREATE INDEX subscriptions_listener ON subscriptions (listener_id);

CREATE TABLE timers (
  component_id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  next_at bigint NOT NULL,
  lease_owner text,
  lease_expires_at bigint
);
CREATE INDEX timers_due ON timers (next_at, ord);

CREATE TABLE deliveries (
  id text COLLATE "C" PRIMARY KEY,
  workspace_id text COLLATE "C" NOT NULL,
  webhook_id text COLLATE "C" NOT NULL,
  event_id text COLLATE "C" NOT NULL,
  emitter_id text COLLATE "C" NOT NULL,
  channel text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL,
  lease_owner text,
  lease_expires_at bigint,
  last_status integer,
  last_error text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE state = 'pending';
CREATE INDEX deliveries_in_flight ON deliveries (webhook_id, lease_expires_at) WHERE state = 'delivering';
CREATE INDEX deliveries_workspace ON deliveries (workspace_id, id);
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, created_at);
CREATE INDEX deliveries_event ON deliveries (event_id);

CREATE TABLE attempts (
  id text COLLATE "C" PRIMARY KEY,
  ord bigserial NOT NULL,
  delivery_id text COLLATE "C" NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  at bigint NOT NULL,
  status integer,
  duration_ms double precision NOT NULL,
  response_excerpt text,
  error text
);
CREATE INDEX attempts_delivery ON attempts (delivery_id, ord);
`,
  },
  {
    id: 2,
    name: "pending deliveries by webhook",
    // The per-webhook claim walks the webhooks that have pending rows and takes each one's earliest
    // due rows from this index, instead of ranking every due row.
    sql: `
CREATE INDEX deliveries_pending_webhook ON deliveries (webhook_id, next_attempt_at, id) WHERE state = 'pending';
`,
  },
  {
    id: 3,
    name: "lossless JSON text, paused deliveries, retention by bytes, settings",
    // JSON columns become the JSON text the store writes: jsonb refuses NUL characters and lone
    // surrogates (\u0000, \ud800) and reorders keys, text keeps exactly what was emitted. `bytes`
    // is what retention by bytes sums. `paused`: deliveries of a disabled webhook wait. `settings`
    // holds small values every node shares, such as the check value of the secrets key.
    sql: `
ALTER TABLE saved_components ALTER COLUMN description TYPE text USING description::text;
ALTER TABLE deployed_components ALTER COLUMN props TYPE text USING props::text;
ALTER TABLE deployed_components ALTER COLUMN meta TYPE text USING meta::text;
ALTER TABLE dedupe ALTER COLUMN state TYPE text USING state::text;
ALTER TABLE kv ALTER COLUMN value TYPE text USING value::text;
ALTER TABLE events ALTER COLUMN body TYPE text USING body::text;
ALTER TABLE webhooks ALTER COLUMN secrets TYPE text USING secrets::text;
ALTER TABLE events ADD COLUMN bytes integer GENERATED ALWAYS AS (coalesce(octet_length(body), 0)) STORED;
ALTER TABLE logs ADD COLUMN bytes integer GENERATED ALWAYS AS (octet_length(message)) STORED;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_state_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_state_check
  CHECK (state IN ('pending', 'paused', 'delivering', 'succeeded', 'failed'));
CREATE INDEX deliveries_paused ON deliveries (webhook_id) WHERE state = 'paused';
CREATE TABLE settings (
  key text COLLATE "C" PRIMARY KEY,
  value text NOT NULL
);
`,
  },
  {
    id: 4,
    name: "workflows, executions, environment variables, workflow requests",
    // A delivery with a request (JSON text) is a workflow's $.send.http: webhook_id and emitter_id
    // hold the workflow, event_id the execution, channel the step; no event or webhook row exists.
    // Workflows keep their trigger and steps as JSON text. An execution is one row whose step
    // records are an array of JSON texts (steps[i]), so that starting an execution is one INSERT
    // and recording a step one UPDATE of one element, on one row (PGlite's cost is per statement);
    // its other JSON values (event, context, error) are JSON text too. The foreign key says an
    // execution's workflow is in its workspace (cheaper than a guard in the INSERT) and deletes
    // executions with their workflow.
    sql: `
ALTER TABLE deliveries ADD COLUMN request text;
CREATE TABLE workflows (
  id text COLLATE "C" PRIMARY KEY,
  workspace_id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  trigger text NOT NULL,
  steps text NOT NULL,
  active boolean NOT NULL,
  endpoint_id text COLLATE "C" UNIQUE,
  source_id text COLLATE "C",
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  UNIQUE (id, workspace_id)
);
CREATE INDEX workflows_workspace ON workflows (workspace_id, id);
CREATE INDEX workflows_source ON workflows (source_id) WHERE active;
CREATE TABLE executions (
  id text COLLATE "C" PRIMARY KEY,
  workspace_id text COLLATE "C" NOT NULL,
  workflow_id text COLLATE "C" NOT NULL,
  status text NOT NULL,
  trigger text NOT NULL,
  event text,
  context text,
  steps text[] NOT NULL,
  exit_reason text,
  error text,
  started_at bigint,
  finished_at bigint,
  lease_owner text,
  lease_expires_at bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  FOREIGN KEY (workflow_id, workspace_id) REFERENCES workflows (id, workspace_id) ON DELETE CASCADE
);
CREATE INDEX executions_workflow ON executions (workflow_id, id);
CREATE INDEX executions_queued ON executions (id) WHERE status = 'queued';
CREATE INDEX executions_running ON executions (lease_expires_at) WHERE status = 'running';
CREATE TABLE env_vars (
  workspace_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  value text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (workspace_id, name)
);
`,
  },
  {
    id: 5,
    name: "event search, subscription filters, delivery metrics",
    // body stays the lossless JSON text; body_json is its jsonb twin for filters (NULL when the text
    // holds an escape jsonb refuses, NUL or a lone surrogate: such rows are checked in the
    // application, found through events_body_unindexed). The GIN index answers equality
    // (containment) filters; the others read body_json.
    // attempts_at serves the metrics of a webhook over a window.
    sql: `
ALTER TABLE events ADD COLUMN body_json jsonb
  GENERATED ALWAYS AS (CASE WHEN body ~ '\\\\u(0000|[dD][89abcdefABCDEF])' THEN NULL ELSE body::jsonb END) STORED;
CREATE INDEX events_body_json ON events USING gin (body_json jsonb_path_ops);
CREATE INDEX events_body_unindexed ON events (emitter_id, seq) WHERE body_json IS NULL AND body IS NOT NULL;
ALTER TABLE subscriptions ADD COLUMN filter text;
CREATE INDEX attempts_workspace_at ON attempts (workspace_id, at);
`,
  },
  {
    id: 6,
    name: "durable workflow runs: due times, resume data, flow tokens, workflow settings and limits",
    // run_at: a queued, delayed or suspended execution is claimable once run_at <= now (NULL: now);
    // executions_due serves the claim (the old executions_queued index covered queued rows only).
    // resume_hash and cancel_hash are the SHA-256 hex hashes of a paused run's single-use tokens
    // (the tokens themselves are never stored); resume_data holds a resume request's body until the
    // run takes it up. workflows.settings is the JSON text of a workflow's run settings (retry...).
    // max_running, throttle_limit, throttle_interval_ms and queue_size are a workflow's limits, which
    // the claim enforces (executions_workflow_status counts its rows).
    sql: `
ALTER TABLE executions ADD COLUMN run_at bigint;
ALTER TABLE executions ADD COLUMN resume_data text;
ALTER TABLE executions ADD COLUMN resume_hash text;
ALTER TABLE executions ADD COLUMN cancel_hash text;
DROP INDEX executions_queued;
CREATE INDEX executions_due ON executions (coalesce(run_at, 0), id) WHERE status IN ('queued', 'delayed', 'suspended');
ALTER TABLE workflows ADD COLUMN settings text;
ALTER TABLE workflows ADD COLUMN max_running integer;
ALTER TABLE workflows ADD COLUMN throttle_limit integer;
ALTER TABLE workflows ADD COLUMN throttle_interval_ms bigint;
ALTER TABLE workflows ADD COLUMN queue_size integer;
CREATE INDEX executions_workflow_status ON executions (workflow_id, status);
CREATE INDEX workflows_limited ON workflows (id) WHERE max_running IS NOT NULL OR throttle_limit IS NOT NULL;
`,
  },
  {
    id: 7,
    name: "data stores",
    // Named key-value stores of a workspace (data_store props). Values are lossless JSON text;
    // expires_at (epoch ms, NULL: never) hides a record from reads once past.
    sql: `
CREATE TABLE data_stores (
  id text COLLATE "C" PRIMARY KEY,
  workspace_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE UNIQUE INDEX data_stores_name ON data_stores (workspace_id, name);
CREATE TABLE data_store_records (
  store_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  expires_at bigint,
  updated_at bigint NOT NULL,
  PRIMARY KEY (store_id, key)
);
CREATE INDEX data_store_records_expiry ON data_store_records (store_id, expires_at) WHERE expires_at IS NOT NULL;
`,
  },
  {
    id: 8,
    name: "replay jobs",
    // One row per replay (rpl_...): its window and filter, and its progress (the seq cursor the next
    // batch resumes after, counts of events examined and deliveries made).
    // The GIN index of migration 5 goes: with the scan budget (a page examines at most 10,000 events
    // of the window), pages answer as fast without it, and every emit paid for it (docs/benchmarks.md).
    sql: `
DROP INDEX IF EXISTS events_body_json;
CREATE TABLE replays (
  id text COLLATE "C" PRIMARY KEY,
  workspace_id text COLLATE "C" NOT NULL,
  subscription_id text COLLATE "C" NOT NULL,
  webhook_id text COLLATE "C" NOT NULL,
  emitter_id text COLLATE "C" NOT NULL,
  since bigint,
  until bigint,
  filter text,
  status text NOT NULL,
  scanned bigint NOT NULL DEFAULT 0,
  enqueued bigint NOT NULL DEFAULT 0,
  cursor text,
  error text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX replays_subscription ON replays (workspace_id, subscription_id, id);
`,
  },
  {
    id: 9,
    name: "managed auth: OAuth accounts and their refresh lease, OAuth clients, auth tickets",
    // Accounts connected through OAuth: status (needs_reconnect once a refresh is refused), the end
    // user who owns one (Connect), the access token's expiry, and the refresh lease (one refresh at a
    // time across nodes). OAuth clients: one per app and workspace, the secret sealed by the engine.
    // Auth tickets: short-lived secrets (OAuth states, connect results, connect tokens) by the hash of
    // what their holder presents; expired ones are deleted as new ones are made.
    sql: `
ALTER TABLE accounts ADD COLUMN oauth boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN status text NOT NULL DEFAULT 'active';
ALTER TABLE accounts ADD COLUMN external_user_id text COLLATE "C";
ALTER TABLE accounts ADD COLUMN expires_at bigint;
ALTER TABLE accounts ADD COLUMN refresh_owner text;
ALTER TABLE accounts ADD COLUMN refresh_until bigint;
CREATE INDEX accounts_external_user ON accounts (workspace_id, external_user_id, ord) WHERE external_user_id IS NOT NULL;
CREATE INDEX accounts_expiring ON accounts (expires_at) WHERE oauth AND status = 'active' AND expires_at IS NOT NULL;
CREATE TABLE oauth_clients (
  workspace_id text COLLATE "C" NOT NULL,
  app text COLLATE "C" NOT NULL,
  config text NOT NULL,
  client_secret text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (workspace_id, app)
);
CREATE TABLE auth_tickets (
  kind text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  workspace_id text COLLATE "C" NOT NULL,
  data text NOT NULL,
  expires_at bigint NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (kind, key)
);
CREATE INDEX auth_tickets_expiry ON auth_tickets (expires_at);
`,
  },
  MIGRATION_10,
  MIGRATION_11,
];

/** Splits a migration into its statements (see {@link Migration.sql}). */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}

/**
 * Applies the pending {@link MIGRATIONS} in one transaction, holding the advisory lock
 * {@link MIGRATION_LOCK_KEY} so that concurrent callers wait instead of failing, and records each
 * in the `hookline_migrations` table. Returns the ids it applied (empty when up to date).
 *
 * @param client - Where to migrate (tables are created in the connection's `search_path`).
 * @param migrations - The migrations to apply (the package's own by default).
 * @example
 * ```ts
 * const db = await openPglite("./data");
 * const applied = await migrate(pgliteClient(db));
 * ```
 */
export async function migrate(client: SqlClient, migrations: Migration[] = MIGRATIONS): Promise<number[]> {
  return withTransaction(client, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS hookline_migrations (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at bigint NOT NULL
      )`,
    );
    const { rows } = await tx.query("SELECT id FROM hookline_migrations");
    const done = new Set(rows.map((row) => Number(row.id)));
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.id - b.id)) {
      if (done.has(migration.id)) continue;
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query("INSERT INTO hookline_migrations (id, name, applied_at) VALUES ($1, $2, $3)", [
        migration.id,
        migration.name,
        Date.now(),
      ]);
      applied.push(migration.id);
    }
    return applied;
  });
}
