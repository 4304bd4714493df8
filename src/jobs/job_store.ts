/**
 * Job records of every kind: the contract, and what every kind of job has.
 *
 * The records hold the single-flight lock too: a job starts only if no live job (queued or
 * running, with a heartbeat younger than the lease) is recorded, decided atomically by the
 * store, so that every service instance on the same store agrees on which job runs. The
 * instance running a job renews its heartbeat; a job whose heartbeat ends was lost with its
 * instance and is marked failed (by any instance, within one lease), and a job recorded as
 * its own by an instance that starts again (same data dir) is marked failed at once.
 *
 * Implementations: in the embedded store's file (one instance), `sqlite_job_store.ts` (the
 * indexing jobs' table, whose columns predate kinds) and `sqlite_kind_job_store.ts` (any
 * other kind, as JSON); `sparql_job_store.ts` (the SPARQL store's metadata graph: shared by
 * every instance).
 *
 * The contract serves every kind of job (indexing, bulk import): a job is anything with the
 * {@link StoredJob} fields, and a lock names what is single-flight. Indexing jobs use no lock
 * (one job at a time in the whole deployment); an import locks its collection. How a job is
 * run (lease, heartbeat, sweep, recovery, close) is `job_lifecycle.ts`; what a job is and
 * does is its kind's (`src/indexing/index_job.ts`, `src/bulk/import_jobs.ts`).
 */

/** The state of a job; `queued` and `running` are the live ones. */
export type JobState = "queued" | "running" | "succeeded" | "failed";

/** One recorded failure; `item` is null for a failure of the job rather than of an item. */
export interface JobError {
  item: string | null;
  message: string;
  /** The problem type's slug (docs/api.md), where the failure is a problem (bulk import). */
  type?: string;
  /** The 1-based line of the input the failure is at (bulk import). */
  line?: number;
  /**
   * How many failures this entry stands for: identical refusals (same type and message, no
   * item) are listed once, with their number (bulk import); absent means one.
   */
  count?: number;
}

/** What every kind of job has: the store reads and guards these. */
export interface StoredJob {
  id: string;
  state: JobState;
  /** ISO 8601; null while queued. */
  startedAt: string | null;
  /** ISO 8601; null until the job ends. */
  finishedAt: string | null;
  errors: JobError[];
}

/** How many errors a job keeps; later ones only count. */
export const MAX_JOB_ERRORS = 100;

/** How many jobs the history keeps; older ones are dropped as new ones are created. */
export const JOB_HISTORY_LIMIT = 1000;

/** The message recorded on jobs a crash or shutdown interrupted. */
export const INTERRUPTED_MESSAGE =
  "The service stopped while this job was running; start the job again.";

/** The message recorded on jobs whose instance stopped renewing their heartbeat. */
export function abandonedMessage(leaseMs: number): string {
  return `The instance running this job stopped answering (no heartbeat for ${leaseMs} ms); ` +
    "start the job again.";
}

/**
 * A job with what its store keeps beside it: `rebuilds`, what the job holds that whoever
 * finds it lost must release (for indexing, the rebuild indices it created and has not
 * swapped in yet; a kind that holds nothing has `never`). The name is the stored one.
 */
export interface JobRecord<J extends StoredJob, H = never> {
  job: J;
  rebuilds: H[];
}

/** What {@link JobStore.tryStart} decided. */
export type StartDecision = { started: true } | { started: false; runningJob: string };

/** Where job records live; see the module comment. */
export interface JobStore<J extends StoredJob, H = never> {
  /**
   * Records `job` as running, owned by `owner`, unless a live job of this store's kind with
   * the same `lock` exists (atomic). Without a lock, any live job of the kind blocks.
   */
  tryStart(job: J, owner: string, lock?: string): Promise<StartDecision>;
  /**
   * Saves a job's state and progress, renews its heartbeat, and keeps `rebuilds`. False when
   * the job is no longer this owner's live job (its heartbeat ended and it was marked failed,
   * or another instance took over): the caller must stop it.
   */
  save(record: JobRecord<J, H>, owner: string): Promise<boolean>;
  /** A job by id. */
  get(id: string): Promise<J | undefined>;
  /** The most recent jobs, newest first. */
  recent(limit: number): Promise<J[]>;
  /** The live job (holding `lock`, when given), if one runs anywhere. */
  live(lock?: string): Promise<J | undefined>;
  /**
   * Marks failed every live job whose heartbeat has ended, and the live jobs of
   * `restartedOwner` when an instance that starts again names itself (they were cut off);
   * returns those this call marked, with their rebuilds, for clean-up.
   */
  failLost(restartedOwner?: string): Promise<JobRecord<J, H>[]>;
}

/** A live job recorded as failed at `now` with `message` appended. */
export function failedJob<J extends StoredJob>(job: J, message: string, now: string): J {
  const failed = structuredClone(job);
  failed.state = "failed";
  failed.finishedAt = now;
  if (failed.errors.length < MAX_JOB_ERRORS) failed.errors.push({ item: null, message });
  return failed;
}

/** Whether a job is queued or running. */
export function isLive(job: StoredJob): boolean {
  return job.state === "queued" || job.state === "running";
}
