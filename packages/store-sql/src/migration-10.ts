/**
 * Migration 10, in a file of its own (migrations.ts is near the size cap): keys and tenants over
 * the API, and idempotency keys. Listed in {@link MIGRATIONS} (migrations.ts).
 */
export const MIGRATION_10 = {
  id: 10,
  name: "key roles and last use, revoked workspaces, idempotency keys",
  // A key's role (`operator` keys manage workspaces and keys) and when it was last used (written at
  // most once a minute per key). A revoked workspace's keys are refused. Idempotency keys: the first
  // answer of a creating request per workspace and key, kept a day; `locked_until` lets a request
  // whose node died be taken over.
  sql: `
ALTER TABLE api_keys ADD COLUMN role text NOT NULL DEFAULT 'workspace';
ALTER TABLE api_keys ADD COLUMN last_used_at bigint;
ALTER TABLE workspaces ADD COLUMN revoked_at bigint;
CREATE TABLE idempotency_keys (
  workspace_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  fingerprint text NOT NULL,
  status integer,
  body text,
  locked_until bigint NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
`,
};
