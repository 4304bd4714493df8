/**
 * Indexing job records in the service's SQLite file (table `index_jobs`), for the embedded
 * store: one service instance owns the file, so the live job recorded there is either the
 * one this process runs or one a crash interrupted (marked failed at the next start).
 *
 * A job row is written when the job starts and again as it makes progress, so the history
 * survives restarts.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inTransaction, type Migration } from "../store/sqlite/local_db.ts";
import {
  failedJob,
  type IndexJob,
  INTERRUPTED_MESSAGE,
  JOB_HISTORY_LIMIT,
  type JobRecord,
  type JobScope,
  type JobState,
  type JobStore,
  type StartDecision,
} from "./job_store.ts";

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
  scope_type: JobScope["type"];
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

/** Job records in SQLite; every call is one statement or one transaction. */
export class SqliteJobStore implements JobStore {
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

  tryStart(job: IndexJob, _owner: string): Promise<StartDecision> {
    return Promise.resolve(inTransaction(this.#db, (): StartDecision => {
      const running = this.#statements.live.get() as JobRow | undefined;
      if (running) return { started: false, runningJob: running.id };
      this.#statements.insert.run(
        job.id,
        job.scope.type,
        job.scope.uri,
        job.scope.items ? JSON.stringify(job.scope.items) : null,
        job.clear ? 1 : 0,
        job.state,
        job.startedAt,
        job.finishedAt,
        job.total,
        job.processed,
        job.indexed,
        job.deleted,
        job.failed,
        JSON.stringify(job.errors),
      );
      this.#statements.prune.run(JOB_HISTORY_LIMIT);
      return { started: true };
    }));
  }

  save(record: JobRecord, _owner: string): Promise<boolean> {
    return Promise.resolve(this.#update(record));
  }

  get(id: string): Promise<IndexJob | undefined> {
    const row = this.#statements.get.get(id) as JobRow | undefined;
    return Promise.resolve(row ? toRecord(row).job : undefined);
  }

  recent(limit: number): Promise<IndexJob[]> {
    const rows = this.#statements.recent.all(limit) as unknown as JobRow[];
    return Promise.resolve(rows.map((row) => toRecord(row).job));
  }

  live(): Promise<IndexJob | undefined> {
    const row = this.#statements.live.get() as JobRow | undefined;
    return Promise.resolve(row ? toRecord(row).job : undefined);
  }

  /**
   * When the instance starts (`restartedOwner` given), every live job recorded here was cut
   * off: one instance owns the file, and no job of this process exists yet. Otherwise the
   * only live job is this process's own, alive.
   */
  failLost(restartedOwner?: string): Promise<JobRecord[]> {
    if (restartedOwner === undefined) return Promise.resolve([]);
    const now = new Date().toISOString();
    const lost = (this.#statements.live.all() as unknown as JobRow[]).map(toRecord);
    for (const record of lost) {
      this.#update({ job: failedJob(record.job, INTERRUPTED_MESSAGE, now), rebuilds: [] });
    }
    return Promise.resolve(lost);
  }

  /** Saves a live job's state, progress and rebuilds; false if it is no longer live. */
  #update({ job, rebuilds }: JobRecord): boolean {
    const result = this.#statements.update.run(
      job.state,
      job.startedAt,
      job.finishedAt,
      job.total,
      job.processed,
      job.indexed,
      job.deleted,
      job.failed,
      JSON.stringify(job.errors),
      JSON.stringify(rebuilds),
      job.id,
    );
    return Number(result.changes) === 1;
  }
}

function toRecord(row: JobRow): JobRecord {
  const scope: JobScope = { type: row.scope_type, uri: row.scope_uri };
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
    },
    rebuilds: JSON.parse(row.rebuilds),
  };
}
