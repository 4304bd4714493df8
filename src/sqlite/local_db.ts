/**
 * The service's own SQLite file in the data directory.
 *
 * It holds the embedded store's item graphs, the embedded store's index outbox, job history
 * (indexing, bulk import) and the embedded search index, so that an item write and its
 * outbox entry commit together. Each table's DDL lives beside the module that owns it, as
 * versioned migrations; `openMigratedDatabase` applies them.
 * WAL mode with `synchronous=FULL`: an acknowledged write survives SIGKILL and power loss.
 */
import { DatabaseSync } from "node:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { noteWriteSucceeded, storageFaultAfterRollback, storageFaultOf } from "./storage_faults.ts";
import { KEPT_LOG_BYTES } from "./wal_checkpoints.ts";
import { DomainError } from "../errors/domain_error.ts";
import { log } from "../log/logger.ts";

/** The file name inside the data directory. */
export const LOCAL_DB_FILE = "rdf-content-service.db";

/**
 * One step of the file's schema: the DDL of the tables one module owns, declared beside that
 * module. Versions run 1, 2, 3, … across all owners; a database records each one it has.
 */
export interface Migration {
  version: number;
  /** What the step adds, for errors and readers. */
  description: string;
  sql: string;
  /** Work SQL alone cannot do (e.g. rows rewritten by code), run after `sql` in its transaction. */
  run?: (db: DatabaseSync) => void;
}

/**
 * Opens the database at `dataDir` (`":memory:"` for tests) and applies the `migrations` it
 * lacks. The service's own list is src/local_database.ts's.
 */
export function openMigratedDatabase(
  dataDir: string,
  migrations: readonly Migration[],
): DatabaseSync {
  let path = ":memory:";
  if (dataDir !== ":memory:") {
    mkdirSync(dataDir, { recursive: true });
    path = join(dataDir, LOCAL_DB_FILE);
  }
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  // The log file shrinks back when it starts over, so space a burst took returns to the disk.
  db.exec(`PRAGMA journal_size_limit = ${KEPT_LOG_BYTES}`);
  // 64 MiB of page cache (SQLite's default is 2 MB): a write inserts into the quad tables'
  // four orders at scattered places, and with the default cache most of those pages are
  // read again for every group (measured: 5,000 items written 35% faster).
  db.exec("PRAGMA cache_size = -65536");
  migrate(db, migrations);
  return db;
}

/**
 * Brings `db` to the last of `migrations`: each step it lacks, in version order, in its own
 * transaction together with the row recording its version.
 */
function migrate(db: DatabaseSync, migrations: readonly Migration[]): void {
  const steps = [...migrations].sort((a, b) => a.version - b.version);
  steps.forEach((step, index) => {
    // Two owners claiming one version, or a gap, would apply steps out of their order.
    if (step.version !== index + 1) {
      throw new Error(`schema migration ${step.version} (${step.description}) is out of sequence`);
    }
  });
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = db.prepare("SELECT max(version) AS v FROM schema_version").get() as
    | { v: number | null }
    | undefined;
  const current = row?.v ?? 0;
  for (const step of steps.slice(current)) {
    inTransaction(db, () => {
      db.exec(step.sql);
      step.run?.(db);
      db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(step.version);
    });
  }
}

/**
 * Runs `work` in one IMMEDIATE transaction committed without waiting for the disk
 * (`synchronous=NORMAL` for this commit; the connection keeps FULL). The WAL frames reach
 * the disk with the next fsync of the WAL (the next FULL commit, a group commit's sync, a
 * checkpoint), so it survives SIGKILL at once and power loss from then on. For writes
 * that are made durable right after (group commit) or whose loss is harmless.
 */
export function inUnsyncedTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("PRAGMA synchronous = NORMAL");
  try {
    return inTransaction(db, work);
  } finally {
    db.exec("PRAGMA synchronous = FULL");
  }
}

/**
 * Runs `work` in one IMMEDIATE transaction: all of it commits, or none of it. A full or
 * read-only data directory is thrown as a StorageUnwritable (storage_faults.ts).
 */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  try {
    db.exec("BEGIN IMMEDIATE");
  } catch (error) {
    throw storageFaultAfterRollback(db, error) ?? error;
  }
  try {
    const result = work();
    db.exec("COMMIT");
    noteWriteSucceeded(db);
    return result;
  } catch (error) {
    // After some errors (SQLITE_FULL, SQLITE_IOERR) SQLite has rolled the transaction back
    // itself: a second ROLLBACK would fail, and its error would replace the one that matters.
    const rolledBackBySqlite = !db.isTransaction;
    if (!rolledBackBySqlite) {
      try {
        db.exec("ROLLBACK");
      } catch (rollbackError) {
        log("warn", "rollback failed", { error: String(rollbackError), cause: String(error) });
      }
    }
    if (error instanceof DomainError) throw error;
    throw (rolledBackBySqlite ? storageFaultAfterRollback(db, error) : storageFaultOf(db, error)) ??
      error;
  }
}
