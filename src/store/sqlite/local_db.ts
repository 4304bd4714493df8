/**
 * The service's own SQLite file in the data directory.
 *
 * It holds the embedded store's item graphs, the embedded store's index outbox, job history
 * (indexing, bulk import) and the embedded search index, so that an item write and its
 * outbox entry commit together.
 * WAL mode with `synchronous=FULL`: an acknowledged write survives SIGKILL and power loss.
 */
import { DatabaseSync } from "node:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

/** The file name inside the data directory. */
export const LOCAL_DB_FILE = "rdf-content-service.db";

const MIGRATIONS: string[] = [
  // 1: items and their triples (terms in N3.js id form), the outbox.
  `CREATE TABLE items (
     id INTEGER PRIMARY KEY,
     collection TEXT NOT NULL,
     uri TEXT NOT NULL UNIQUE,
     hash TEXT NOT NULL,
     triple_count INTEGER NOT NULL,
     created TEXT NOT NULL,
     modified TEXT NOT NULL
   );
   CREATE INDEX items_by_collection ON items(collection, uri);
   CREATE TABLE triples (
     item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
     s TEXT NOT NULL,
     p TEXT NOT NULL,
     o TEXT NOT NULL
   );
   CREATE INDEX triples_by_item ON triples(item_id, s);
   CREATE TABLE index_outbox (
     id INTEGER PRIMARY KEY,
     collection TEXT NOT NULL,
     uri TEXT NOT NULL,
     enqueued TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0
   );`,
  // 2: indexing job history (src/jobs/job_store.ts).
  `CREATE TABLE index_jobs (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     scope_type TEXT NOT NULL,
     scope_uri TEXT NOT NULL,
     scope_items TEXT,
     clear INTEGER NOT NULL,
     state TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT,
     total INTEGER NOT NULL DEFAULT 0,
     processed INTEGER NOT NULL DEFAULT 0,
     indexed INTEGER NOT NULL DEFAULT 0,
     deleted INTEGER NOT NULL DEFAULT 0,
     failed INTEGER NOT NULL DEFAULT 0,
     errors TEXT NOT NULL DEFAULT '[]'
   );
   CREATE INDEX index_jobs_by_state ON index_jobs(state);`,
  // 3: rebuild indices a job created and has not swapped in (src/jobs/sqlite_job_store.ts).
  `ALTER TABLE index_jobs ADD COLUMN rebuilds TEXT NOT NULL DEFAULT '[]';`,
  // 4: jobs of other kinds (bulk import), each a JSON record (src/jobs/sqlite_kind_job_store.ts).
  `CREATE TABLE jobs (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     lock TEXT NOT NULL,
     state TEXT NOT NULL,
     record TEXT NOT NULL
   );
   CREATE INDEX jobs_by_kind_state ON jobs(kind, state, lock);`,
];

/** The schema version of a database this code has migrated. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Opens (and migrates) the local database at `dataDir`; `":memory:"` for tests. */
export function openLocalDatabase(dataDir: string): DatabaseSync {
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
  migrate(db);
  return db;
}

function migrate(db: DatabaseSync): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = db.prepare("SELECT max(version) AS v FROM schema_version").get() as
    | { v: number | null }
    | undefined;
  let version = row?.v ?? 0;
  while (version < MIGRATIONS.length) {
    inTransaction(db, () => {
      db.exec(MIGRATIONS[version]);
      db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(version + 1);
    });
    version++;
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

/** Runs `work` in one IMMEDIATE transaction: all of it commits, or none of it. */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
