/**
 * Indexing job history, persisted in the service's SQLite file (table `index_jobs`).
 *
 * A job row is written when the job is created and again as it makes progress, so the
 * history survives restarts and a job a crash interrupted can be told apart from one that
 * finished: {@link JobStore.failInterrupted} marks it failed at the next start.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** What a job indexes (API.md: `scope`). */
export interface JobScope {
  type: "workspace" | "collection" | "items";
  /** The workspace or collection URI. */
  uri: string;
  /** The listed item URIs; only for `type: "items"`. */
  items?: string[];
}

/** The state of a job; `queued` and `running` are the live ones. */
export type JobState = "queued" | "running" | "succeeded" | "failed";

/** One recorded failure; `item` is null for a failure of the job rather than of an item. */
export interface JobError {
  item: string | null;
  message: string;
}

/** A job as API.md shows it. */
export interface IndexJob {
  id: string;
  scope: JobScope;
  clear: boolean;
  state: JobState;
  /** ISO 8601; null while queued. */
  startedAt: string | null;
  /** ISO 8601; null until the job ends. */
  finishedAt: string | null;
  total: number;
  processed: number;
  indexed: number;
  deleted: number;
  failed: number;
  /** The first {@link MAX_JOB_ERRORS} failures; `failed` counts them all. */
  errors: JobError[];
}

/** How many errors a job keeps; later ones only count. */
export const MAX_JOB_ERRORS = 100;

/** How many jobs the history keeps; older ones are dropped as new ones are created. */
export const JOB_HISTORY_LIMIT = 1000;

/** The message recorded on jobs a crash or shutdown interrupted. */
export const INTERRUPTED_MESSAGE =
  "The service stopped while this job was running; start the job again.";

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
}

/** Reads and writes job rows; every call is one statement, so each is atomic. */
export class JobStore {
  readonly #statements: Record<string, StatementSync>;

  /** `db` must have been opened with `openLocalDatabase` (it holds the table). */
  constructor(db: DatabaseSync) {
    this.#statements = {
      insert: db.prepare(
        `INSERT INTO index_jobs (id, scope_type, scope_uri, scope_items, clear, state,
           started_at, finished_at, total, processed, indexed, deleted, failed, errors)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      update: db.prepare(
        `UPDATE index_jobs SET state = ?, started_at = ?, finished_at = ?, total = ?,
           processed = ?, indexed = ?, deleted = ?, failed = ?, errors = ? WHERE id = ?`,
      ),
      get: db.prepare("SELECT * FROM index_jobs WHERE id = ?"),
      recent: db.prepare("SELECT * FROM index_jobs ORDER BY seq DESC LIMIT ?"),
      prune: db.prepare(
        "DELETE FROM index_jobs WHERE seq <= (SELECT max(seq) FROM index_jobs) - ?",
      ),
      live: db.prepare("SELECT * FROM index_jobs WHERE state IN ('queued', 'running')"),
    };
  }

  /** Records a new job and drops the oldest beyond {@link JOB_HISTORY_LIMIT}. */
  insert(job: IndexJob): void {
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
  }

  /** Saves a job's state and progress (its scope never changes). */
  update(job: IndexJob): void {
    this.#statements.update.run(
      job.state,
      job.startedAt,
      job.finishedAt,
      job.total,
      job.processed,
      job.indexed,
      job.deleted,
      job.failed,
      JSON.stringify(job.errors),
      job.id,
    );
  }

  /** The job with this id, if the history holds it. */
  get(id: string): IndexJob | undefined {
    const row = this.#statements.get.get(id) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  }

  /** The most recent jobs, newest first. */
  recent(limit: number): IndexJob[] {
    return (this.#statements.recent.all(limit) as unknown as JobRow[]).map(toJob);
  }

  /**
   * Marks every job still `queued` or `running` as failed. Called once at start-up, before
   * any job of this process exists: such jobs were interrupted by a crash or a shutdown.
   * Returns the jobs it changed.
   */
  failInterrupted(now = new Date().toISOString()): IndexJob[] {
    const interrupted = (this.#statements.live.all() as unknown as JobRow[]).map(toJob);
    for (const job of interrupted) {
      job.state = "failed";
      job.finishedAt = now;
      if (job.errors.length < MAX_JOB_ERRORS) {
        job.errors.push({ item: null, message: INTERRUPTED_MESSAGE });
      }
      this.update(job);
    }
    return interrupted;
  }
}

function toJob(row: JobRow): IndexJob {
  const scope: JobScope = { type: row.scope_type, uri: row.scope_uri };
  if (row.scope_items !== null) scope.items = JSON.parse(row.scope_items);
  return {
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
  };
}
