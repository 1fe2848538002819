/**
 * `@hookline/store-sql`: the SQL implementation of the Hookline {@link Store} for PGlite (embedded,
 * in memory or on disk) and Postgres, with its forward-only migrations.
 *
 * @packageDocumentation
 */
export { type Store, StoreError } from "@hookline/store";
export {
  openPglite,
  type PgPoolClientOptions,
  pgliteClient,
  pgPoolClient,
  type SqlClient,
  type SqlListener,
  type SqlRow,
  type SqlStatement,
  withTransaction,
} from "./clients.js";
export { type DataDirHolder, type DataDirLock, DataDirLockedError, lockDataDir } from "./data-dir-lock.js";
export { MIGRATION_LOCK_KEY, MIGRATIONS, type Migration, migrate, splitStatements } from "./migrations.js";
export { openPgliteThread, type PgliteThread, type PgliteThreadOptions } from "./pglite-thread.js";
export {
  type AutovacuumOptions,
  createSqlStore,
  type NotifyOptions,
  type SqlStoreOptions,
} from "./sql-store.js";
export { type StatementObserver, timedClient } from "./timed-client.js";
