/**
 * Job records of one kind other than indexing (bulk import) in the service's SQLite file
 * (table `jobs`), for the embedded store: each job is one JSON record, with its kind, lock
 * and state beside it for the single-flight guard. One service instance owns the file, so a
 * live job recorded here is either this process's or one a crash cut off (marked failed
 * when the instance starts again). Indexing jobs keep their own table (`sqlite_job_store.ts`),
 * whose columns predate kinds.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inTransaction, type Migration } from "../sqlite/local_db.ts";
import {
  failedJob,
  INTERRUPTED_MESSAGE,
  JOB_HISTORY_LIMIT,
  type JobRecord,
  type JobStore,
  type StartDecision,
  type StoredJob,
} from "../jobs/job_store.ts";

/** The `jobs` table (migration 4). */
export const KIND_JOB_MIGRATIONS: Migration[] = [{
  version: 4,
  description: "jobs of other kinds (bulk import)",
  sql: `CREATE TABLE jobs (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     lock TEXT NOT NULL,
     state TEXT NOT NULL,
     record TEXT NOT NULL
   );
   CREATE INDEX jobs_by_kind_state ON jobs(kind, state, lock);`,
}];

interface Row {
  id: string;
  record: string;
}

/** Jobs of `kind` in SQLite; every call is one statement or one transaction. */
export class SqliteKindJobStore<J extends StoredJob> implements JobStore<J> {
  readonly #db: DatabaseSync;
  readonly #kind: string;
  readonly #statements: Record<string, StatementSync>;

  /** `db` must have been opened with `openLocalDatabase` (it holds the table). */
  constructor(db: DatabaseSync, kind: string) {
    this.#db = db;
    this.#kind = kind;
    this.#statements = {
      insert: db.prepare(
        "INSERT INTO jobs (id, kind, lock, state, record) VALUES (?, ?, ?, ?, ?)",
      ),
      update: db.prepare(
        `UPDATE jobs SET state = ?, record = ?
         WHERE id = ? AND kind = ? AND state IN ('queued', 'running')`,
      ),
      get: db.prepare("SELECT id, record FROM jobs WHERE id = ? AND kind = ?"),
      recent: db.prepare("SELECT id, record FROM jobs WHERE kind = ? ORDER BY seq DESC LIMIT ?"),
      prune: db.prepare(
        `DELETE FROM jobs WHERE kind = ? AND seq IN
           (SELECT seq FROM jobs WHERE kind = ? ORDER BY seq DESC LIMIT -1 OFFSET ?)`,
      ),
      live: db.prepare(
        "SELECT id, record FROM jobs WHERE kind = ? AND state IN ('queued', 'running')",
      ),
      liveLocked: db.prepare(
        `SELECT id, record FROM jobs
         WHERE kind = ? AND lock = ? AND state IN ('queued', 'running')`,
      ),
    };
  }

  tryStart(job: J, _owner: string, lock = ""): Promise<StartDecision> {
    return Promise.resolve(inTransaction(this.#db, (): StartDecision => {
      const running = this.#liveRow(lock === "" ? undefined : lock);
      if (running) return { started: false, runningJob: running.id };
      this.#statements.insert.run(job.id, this.#kind, lock, job.state, JSON.stringify(job));
      this.#statements.prune.run(this.#kind, this.#kind, JOB_HISTORY_LIMIT);
      return { started: true };
    }));
  }

  save(record: JobRecord<J>, _owner: string): Promise<boolean> {
    return Promise.resolve(this.#update(record.job));
  }

  get(id: string): Promise<J | undefined> {
    const row = this.#statements.get.get(id, this.#kind) as Row | undefined;
    return Promise.resolve(row ? JSON.parse(row.record) : undefined);
  }

  recent(limit: number): Promise<J[]> {
    const rows = this.#statements.recent.all(this.#kind, limit) as unknown as Row[];
    return Promise.resolve(rows.map((row) => JSON.parse(row.record)));
  }

  live(lock?: string): Promise<J | undefined> {
    const row = this.#liveRow(lock);
    return Promise.resolve(row ? JSON.parse(row.record) : undefined);
  }

  /** At start-up (`restartedOwner` given) every live job recorded here was cut off. */
  failLost(restartedOwner?: string): Promise<JobRecord<J>[]> {
    if (restartedOwner === undefined) return Promise.resolve([]);
    const now = new Date().toISOString();
    const rows = this.#statements.live.all(this.#kind) as unknown as Row[];
    const lost = rows.map((row) => ({ job: JSON.parse(row.record) as J, rebuilds: [] }));
    for (const { job } of lost) this.#update(failedJob(job, INTERRUPTED_MESSAGE, now));
    return Promise.resolve(lost);
  }

  #liveRow(lock: string | undefined): Row | undefined {
    return (lock === undefined
      ? this.#statements.live.get(this.#kind)
      : this.#statements.liveLocked.get(this.#kind, lock)) as Row | undefined;
  }

  /** Saves a live job; false if it is no longer live. */
  #update(job: J): boolean {
    const result = this.#statements.update.run(
      job.state,
      JSON.stringify(job),
      job.id,
      this.#kind,
    );
    return Number(result.changes) === 1;
  }
}
