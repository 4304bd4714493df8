/**
 * The service's SQLite file as this version of the code lays it out: every owner's schema
 * migrations (each declared beside the code that owns its tables) in one list, applied in
 * version order by src/sqlite/local_db.ts. Here, at the wiring level, because the owners sit
 * in several layers (store, indexing, search) and the store may not import the others.
 */
import { DatabaseSync } from "node:sqlite";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { LOCAL_DB_FILE, type Migration, openMigratedDatabase } from "./sqlite/local_db.ts";
import { EMBEDDED_STORE_MIGRATIONS } from "./store_embedded/embedded_triple_store.ts";
import { INDEX_JOB_MIGRATIONS } from "./job_stores/sqlite_job_store.ts";
import { KIND_JOB_MIGRATIONS } from "./job_stores/sqlite_kind_job_store.ts";
import { CATALOG_MIGRATIONS } from "./catalog/sqlite_catalog_store.ts";
import { EMBEDDED_SEARCH_MIGRATIONS } from "./search_embedded/search_migrations.ts";
import { WEBHOOK_STATE_MIGRATION } from "./webhooks/sqlite_webhook_state.ts";

/** Every migration of the file, in version order. */
export const LOCAL_MIGRATIONS: readonly Migration[] = [
  ...EMBEDDED_STORE_MIGRATIONS,
  ...INDEX_JOB_MIGRATIONS,
  ...KIND_JOB_MIGRATIONS,
  ...EMBEDDED_SEARCH_MIGRATIONS,
  ...CATALOG_MIGRATIONS,
  WEBHOOK_STATE_MIGRATION,
].sort((a, b) => a.version - b.version);

/** The schema version of a database this code has migrated. */
export const SCHEMA_VERSION = LOCAL_MIGRATIONS.length;

/** Opens (and migrates) the local database at `dataDir`; `":memory:"` for tests. */
export function openLocalDatabase(dataDir: string): DatabaseSync {
  if (dataDir !== ":memory:") createIncrementalVacuumFile(join(dataDir, LOCAL_DB_FILE));
  return openMigratedDatabase(dataDir, LOCAL_MIGRATIONS);
}

/**
 * Creates a new file in incremental auto-vacuum mode (the mode can only be chosen before the
 * first table, or with a VACUUM of the whole file): pages freed by dropping a search index's
 * tables after a rebuild can then be given back to the file system (`PRAGMA
 * incremental_vacuum`) instead of staying in the file. An existing file keeps its mode.
 *
 * The mode is written into the new file's header by creating (and dropping) a first table, not
 * by a VACUUM: Deno lets SQLite attach databases, which VACUUM does, only with every
 * permission, and the service runs with fewer.
 */
function createIncrementalVacuumFile(path: string): void {
  if (existsSync(path)) return;
  mkdirSync(join(path, ".."), { recursive: true });
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    db.exec("CREATE TABLE first_page (x); DROP TABLE first_page");
  } finally {
    db.close();
  }
}
