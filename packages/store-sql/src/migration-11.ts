/**
 * Migration 11, in a file of its own (migrations.ts is near the size cap): the version of each
 * component's db, so that a node keeps a source's db entries and reads them again only once they
 * changed (`KvStore.snapshot`). Listed in {@link MIGRATIONS} (migrations.ts).
 */
export const MIGRATION_11 = {
  id: 11,
  name: "component db versions",
  // One row per component whose db ever changed: every change (`kv.write`, `set`, `delete`) adds
  // one to its version in the statement that changes the rows.
  sql: `
CREATE TABLE kv_versions (
  component_id text COLLATE "C" PRIMARY KEY,
  version bigint NOT NULL
);
`,
};
