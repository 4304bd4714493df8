/**
 * Indexing job records in the service's SQLite file (table `index_jobs`), for the embedded
 * store: one service instance owns the file, so the live job recorded there is either the
 * one this process runs or one a crash interrupted (marked failed at the next start).
 *
 * A job row is written when the job starts and again as it makes progress, so the history
 * survives restarts. The table's columns are an indexing job's fields (it predates job kinds,
 * which `sqlite_kind_job_store.ts` keeps as JSON); the store knows them as
 * {@link IndexJobColumns}, and the job's own type is indexing's (`src/indexing/index_job.ts`).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inTransaction, type Migration } from "../sqlite/local_db.ts";
import {
  failedJob,
  INTERRUPTED_MESSAGE,
  JOB_HISTORY_LIMIT,
  type JobRecord,
  type JobState,
  type JobStore,
  type StartDecision,
  type StoredJob,
} from "../jobs/job_store.ts";

/** The counters of a job the `index_jobs` table has a column for. */
type Counter = "total" | "processed" | "indexed" | "deleted" | "failed";

/** The fields of a job the `index_jobs` table has columns for (an indexing job's). */
export type IndexJobColumns = StoredJob & Record<Counter, number> & {
  scope: { type: "workspace" | "collection" | "items"; uri: string; items?: string[] };
  clear: boolean;
};

/** The `index_jobs` table (migrations 2 and 3). */
export const INDEX_JOB_MIGRATIONS: Migration[] = [
  {
    version: 2,
    description: "indexing job history",
    sql: `CREATE TABLE index_jobs (
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
  },
  {
    version: 3,
    description: "rebuild indices a job created and has not swapped in",
    sql: `ALTER TABLE index_jobs ADD COLUMN rebuilds TEXT NOT NULL DEFAULT '[]';`,
  },
];

interface JobRow {
  id: string;
  scope_type: IndexJobColumns["scope"]["type"];
  scope_uri: string;
  scope_items: string | null;
  clear: number;
  state: JobState;
  started_at: string | null;
  finished_at: string | null;
  total: number;
  processed: number;
  indexed: number;
  deleted: number;
  failed: number;
  errors: string;
  rebuilds: string;
}

/**
 * Job records in SQLite; every call is one statement or one transaction. `J` is the job type
 * with exactly the table's columns, `H` what a job holds (kept as JSON).
 */
export class SqliteJobStore<J extends IndexJobColumns, H> implements JobStore<J, H> {
  readonly #db: DatabaseSync;
  readonly #statements: Record<string, StatementSync>;

  /** `db` must have been opened with `openLocalDatabase` (it holds the table). */
  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#statements = {
      insert: db.prepare(
        `INSERT INTO index_jobs (id, scope_type, scope_uri, scope_items, clear, state,
           started_at, finished_at, total, processed, indexed, deleted, failed, errors)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      update: db.prepare(
        `UPDATE index_jobs SET state = ?, started_at = ?, finished_at = ?, total = ?,
           processed = ?, indexed = ?, deleted = ?, failed = ?, errors = ?, rebuilds = ?
         WHERE id = ? AND state IN ('queued', 'running')`,
      ),
      get: db.prepare("SELECT * FROM index_jobs WHERE id = ?"),
      recent: db.prepare("SELECT * FROM index_jobs ORDER BY seq DESC LIMIT ?"),
      prune: db.prepare(
        "DELETE FROM index_jobs WHERE seq <= (SELECT max(seq) FROM index_jobs) - ?",
      ),
      live: db.prepare("SELECT * FROM index_jobs WHERE state IN ('queued', 'running')"),
    };
  }

  tryStart(job: J, _owner: string): Promise<StartDecision> {
    return Promise.resolve(inTransaction(this.#db, (): StartDecision => {
      const running = this.#statements.live.get() as JobRow | undefined;
      if (running) return { started: false, runningJob: running.id };
      this.#statements.insert.run(
        job.id,
        job.scope.type,
        job.scope.uri,
        job.scope.items ? JSON.stringify(job.scope.items) : null,
        job.clear ? 1 : 0,
        ...progressColumns(job),
      );
      this.#statements.prune.run(JOB_HISTORY_LIMIT);
      return { started: true };
    }));
  }

  save(record: JobRecord<J, H>, _owner: string): Promise<boolean> {
    return Promise.resolve(this.#update(record));
  }

  get(id: string): Promise<J | undefined> {
    const row = this.#statements.get.get(id) as JobRow | undefined;
    return Promise.resolve(row ? toRecord<J, H>(row).job : undefined);
  }

  recent(limit: number): Promise<J[]> {
    const rows = this.#statements.recent.all(limit) as unknown as JobRow[];
    return Promise.resolve(rows.map((row) => toRecord<J, H>(row).job));
  }

  live(): Promise<J | undefined> {
    const row = this.#statements.live.get() as JobRow | undefined;
    return Promise.resolve(row ? toRecord<J, H>(row).job : undefined);
  }

  /**
   * When the instance starts (`restartedOwner` given), every live job recorded here was cut
   * off: one instance owns the file, and no job of this process exists yet. Otherwise the
   * only live job is this process's own, alive.
   */
  failLost(restartedOwner?: string): Promise<JobRecord<J, H>[]> {
    if (restartedOwner === undefined) return Promise.resolve([]);
    const now = new Date().toISOString();
    const lost = (this.#statements.live.all() as unknown as JobRow[]).map((row) =>
      toRecord<J, H>(row)
    );
    for (const record of lost) {
      this.#update({ job: failedJob(record.job, INTERRUPTED_MESSAGE, now), rebuilds: [] });
    }
    return Promise.resolve(lost);
  }

  /** Saves a live job's state, progress and rebuilds; false if it is no longer live. */
  #update({ job, rebuilds }: JobRecord<J, H>): boolean {
    const result = this.#statements.update.run(
      ...progressColumns(job),
      JSON.stringify(rebuilds),
      job.id,
    );
    return Number(result.changes) === 1;
  }
}

/** The columns a job's progress fills, in the order the insert and the update list them. */
function progressColumns(job: IndexJobColumns): (string | number | null)[] {
  return [
    job.state,
    job.startedAt,
    job.finishedAt,
    job.total,
    job.processed,
    job.indexed,
    job.deleted,
    job.failed,
    JSON.stringify(job.errors),
  ];
}

/** A row as the record it stores; `J` has exactly the columns (see the class). */
function toRecord<J extends IndexJobColumns, H>(row: JobRow): JobRecord<J, H> {
  const scope: IndexJobColumns["scope"] = { type: row.scope_type, uri: row.scope_uri };
  if (row.scope_items !== null) scope.items = JSON.parse(row.scope_items);
  return {
    job: {
      id: row.id,
      scope,
      clear: row.clear === 1,
      state: row.state,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      total: row.total,
      processed: row.processed,
      indexed: row.indexed,
      deleted: row.deleted,
      failed: row.failed,
      errors: JSON.parse(row.errors),
    } as J,
    rebuilds: JSON.parse(row.rebuilds),
  };
}
