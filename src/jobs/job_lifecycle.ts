/**
 * How a job of any kind runs, written once: its claim in the job store, the heartbeat that
 * renews it, the sweep that marks failed the jobs lost with their instance, recovery at
 * start-up, and shutdown. A kind (indexing, bulk import) brings only what its jobs do: a
 * work function, given the {@link RunningJob} to report progress on and to stop at.
 *
 * - Start: the store records the job as running, owned by this instance, unless a live job
 *   holds the same lock (`job_store.ts`); no job starts before the start-up sweep has run,
 *   nor once the lifecycle is closing.
 * - Heartbeat: every third of a lease the running job is saved, which renews its claim.
 *   Saves go one after the other, so a heartbeat never overwrites newer progress. A save
 *   the store refuses means the claim is lost (another instance marked the job failed): the
 *   job is told to stop. A save that fails is only logged; the next one renews the claim.
 * - Sweep: at start-up (jobs this instance ran before a restart, which were cut off) and,
 *   on a shared store, every sweep interval (jobs whose heartbeat ended). One sweep at a
 *   time: a tick that finds one still running skips. The kind cleans up after each lost
 *   job (`onLost`). A sweep never throws: one that cannot reach the store tries again next
 *   time.
 * - Close: no new job starts, the sweep timer stops, every running job is told to stop,
 *   and close resolves once they, the start-up sweep and any sweep in flight have ended.
 */
import { DomainError } from "../errors/domain_error.ts";
import { log } from "../log/logger.ts";
import { isLive, type JobRecord, type JobStore, type StoredJob } from "./job_store.ts";

/** What the wiring gives the runner of every kind of job (its options extend this). */
export interface JobRunnerOptions<J extends StoredJob, H> {
  /** Where the kind's jobs are recorded. */
  jobs: JobStore<J, H>;
  /** This instance's name in job records (the same across restarts on one data dir). */
  owner?: string;
  /** The heartbeat's lease (`service.cluster.leaseMs`). */
  leaseMs: number;
  /** How often to look for jobs whose instance died; unset, only once at start. */
  sweepIntervalMs?: number;
}

/** What a kind of job tells the lifecycle about itself. */
export interface JobKind<J extends StoredJob, H> {
  /** The kind's name in logs: "indexing job", "import". */
  name: string;
  /** Why a job stops when its claim is lost, and when the service shuts down. */
  stopReasons: { lost: string; shutdown: string };
  /** Cleans up after a job lost with its instance (already marked failed); may throw. */
  onLost?: (record: JobRecord<J, H>) => Promise<void>;
}

/** A job this instance runs: its live state, what it holds, and whether it must stop. */
export class RunningJob<J extends StoredJob, H> {
  /** The job as it stands; the work function updates it in place. */
  readonly job: J;
  /** What the job holds that whoever finds it lost must release (see `JobRecord`). */
  rebuilds: H[] = [];
  /** Set, with the reason, when the job must stop: its claim was lost, or shutdown. */
  stopped?: string;
  /** Settles when {@link stop} is first called: a wait for input can give up then. */
  readonly stopping: Promise<void>;
  /** Saves in order (see the module comment). */
  saving: Promise<boolean> = Promise.resolve(true);
  readonly #stop: () => void;

  constructor(job: J) {
    this.job = job;
    const stopping = Promise.withResolvers<void>();
    this.stopping = stopping.promise;
    this.#stop = stopping.resolve;
  }

  /** Tells the work function to stop; the first reason stays. */
  stop(reason: string): void {
    this.stopped ??= reason;
    this.#stop();
  }
}

/** What {@link JobLifecycle.start} decided: the job runs, or another one holds the lock. */
export type Started<J extends StoredJob, H, T> =
  | { started: true; running: RunningJob<J, H>; done: Promise<T> }
  | { started: false; runningJob: string };

/** Runs the jobs of one kind on this instance; see the module comment. */
export class JobLifecycle<J extends StoredJob, H = never> {
  /** Settles once the start-up sweep has run: reads wait for it too (no stale "running"). */
  readonly recovered: Promise<void>;
  readonly #options: JobRunnerOptions<J, H> & JobKind<J, H>;
  readonly #owner: string;
  readonly #running = new Map<string, { running: RunningJob<J, H>; done: Promise<unknown> }>();
  #closing = false;
  #sweepTimer?: ReturnType<typeof setInterval>;
  #sweeping?: Promise<void>;

  /** Sweeps at once for jobs this instance ran before a restart, then every interval. */
  constructor(runner: JobRunnerOptions<J, H>, kind: JobKind<J, H>) {
    const options = { ...runner, ...kind };
    this.#options = options;
    this.#owner = options.owner ?? crypto.randomUUID();
    this.recovered = this.#sweep(this.#owner);
    if (options.sweepIntervalMs !== undefined) {
      this.#sweepTimer = setInterval(() => void this.#sweep(), options.sweepIntervalMs);
    }
  }

  /** True once {@link close} was called. */
  get closing(): boolean {
    return this.#closing;
  }

  /** The jobs this instance runs, oldest first. */
  running(): RunningJob<J, H>[] {
    return [...this.#running.values()].map(({ running }) => running);
  }

  /** The job with this id, if this instance runs it. */
  find(id: string): RunningJob<J, H> | undefined {
    return this.#running.get(id)?.running;
  }

  /**
   * Records `job` as running (holding `lock`) and runs `work` on it with a heartbeat until
   * it settles. Throws unavailable `shutting-down` once closing; store failures propagate.
   */
  async start<T>(
    job: J,
    work: (running: RunningJob<J, H>) => Promise<T>,
    lock?: string,
  ): Promise<Started<J, H, T>> {
    if (this.#closing) {
      throw new DomainError("shutting-down", { detail: "The service is stopping." });
    }
    await this.recovered;
    const decision = await this.#options.jobs.tryStart(job, this.#owner, lock);
    if (!decision.started) return decision;
    const running = new RunningJob<J, H>(job);
    const heartbeat = setInterval(() => {
      // A heartbeat after the job's last save has nothing to renew.
      if (isLive(running.job)) void this.save(running);
    }, this.#options.leaseMs / 3);
    const entry = { running, done: Promise.resolve() as Promise<unknown> };
    this.#running.set(job.id, entry);
    // Called at once: the job's first synchronous steps happen before `start` returns.
    const done = settled(work, running).finally(() => {
      clearInterval(heartbeat);
      this.#running.delete(job.id);
    });
    entry.done = done;
    return { started: true, running, done };
  }

  /**
   * Saves the job (with `end` applied, for its last save: the job itself can show its end
   * after the store has it) and renews its claim, after every earlier save. False when the
   * store refused: the claim was lost and the job told to stop.
   */
  save(running: RunningJob<J, H>, end?: Partial<J>): Promise<boolean> {
    const { jobs, name } = this.#options;
    const owner = this.#owner;
    running.saving = running.saving.then(async () => {
      const job = { ...structuredClone(running.job), ...end };
      try {
        const saved = await jobs.save({ job, rebuilds: [...running.rebuilds] }, owner);
        if (!saved && isLive(running.job) && running.stopped === undefined) {
          log("error", `${name} lost its claim; stopping it`, { job: job.id });
          running.stop(this.#options.stopReasons.lost);
        }
        return saved;
      } catch (error) {
        // Progress is kept in memory too; the next save, a third of a lease later at most,
        // renews the claim.
        log("error", `could not save ${name} progress`, { job: job.id, error: messageOf(error) });
        return true;
      }
    });
    return running.saving;
  }

  /** Stops every running job (each fails at its next step) and waits for all to end. */
  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweepTimer);
    const entries = [...this.#running.values()];
    for (const { running } of entries) running.stop(this.#options.stopReasons.shutdown);
    await Promise.allSettled(entries.map(({ done }) => done));
    await this.recovered.catch(() => {});
    await this.#sweeping;
  }

  /** One sweep at a time: a call while one runs returns that one. */
  #sweep(restartedOwner?: string): Promise<void> {
    this.#sweeping ??= this.#sweepOnce(restartedOwner).finally(() => this.#sweeping = undefined);
    return this.#sweeping;
  }

  /** Marks failed the jobs lost with their instance and lets the kind clean up after each. */
  async #sweepOnce(restartedOwner?: string): Promise<void> {
    const { jobs, name, onLost } = this.#options;
    let lost: JobRecord<J, H>[];
    try {
      lost = await jobs.failLost(restartedOwner);
    } catch (error) {
      log("warn", `could not look for lost ${name}s`, { error: messageOf(error) });
      return;
    }
    for (const record of lost) {
      log("warn", `${name} lost with its instance; marked failed`, { job: record.job.id });
      try {
        await onLost?.(record);
      } catch (error) {
        log("error", `could not clean up after a lost ${name}`, {
          job: record.job.id,
          error: messageOf(error),
        });
      }
    }
  }
}

/** `work(running)`, a synchronous throw included, as a promise. */
async function settled<A, T>(work: (argument: A) => Promise<T>, argument: A): Promise<T> {
  return await work(argument);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
