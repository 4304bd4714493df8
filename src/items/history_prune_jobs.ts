/**
 * History pruning (issue 41): a job that removes the versions a collection's retention does
 * not keep (`config/history_retention.ts`: its own `history.retention`, else the service's),
 * never an item's newest version. For a deleted item that is its delete, so a read still
 * answers `410 item-deleted` with the history that is left.
 *
 * The pass goes through a collection's items with versions in URI order, a page at a time;
 * each page is one short write of the store's history (`ItemHistory.prune`), sized to take
 * about {@link STEP_TARGET_MS}, and the event loop is given back between two for as long as
 * the step took, so item writes are never held behind a whole collection. The total is
 * counted the same way, a page at a time. `processed` and `pruned` grow as it goes:
 * `GET /api/admin/history/prune/jobs/{id}` shows them (this instance's live view), and the
 * job lifecycle's heartbeat saves them for every other instance.
 *
 * The job record and its single-flight rule (one pruning job at a time in the deployment)
 * live in the job store like imports' (`src/jobs/job_store.ts`, run by
 * `src/jobs/job_lifecycle.ts`). It is started by the admin route, and every
 * `service.history.pruneIntervalMs` when that is set ({@link HistoryPruneRunner.schedule}):
 * nothing prunes behind a write, so a write's cost does not depend on its item's past.
 */
import type { Catalog, CollectionEntry } from "../catalog/catalog.ts";
import { checkedRetention, cutoffOf, type Retention } from "../config/history_retention.ts";
import { DomainError, isProblem } from "../errors/domain_error.ts";
import { failedJob, INTERRUPTED_MESSAGE, type StoredJob } from "../jobs/job_store.ts";
import { JobLifecycle, type JobRunnerOptions, type RunningJob } from "../jobs/job_lifecycle.ts";
import { log } from "../log/logger.ts";
import type { ItemHistory, PruneRule } from "../store/item_history.ts";

/**
 * How long one step should hold the store: a write waits at most about this long behind
 * one. The items per step follow from it, measured as the job goes (between
 * {@link MIN_PAGE_ITEMS} and {@link MAX_PAGE_ITEMS}), since a step's cost depends on how
 * many versions each item has to lose and on the disk.
 */
export const STEP_TARGET_MS = 20;
const FIRST_PAGE_ITEMS = 100;
const MIN_PAGE_ITEMS = 10;
const MAX_PAGE_ITEMS = 2_000;
/** Items counted per step (a count reads the key only: cheap). */
const COUNT_PAGE_ITEMS = 10_000;

/** One collection of a pruning job, and how far the job got with it. */
export interface PrunedCollection {
  collection: string;
  /** The retention applied, as configured (`all`: nothing to do, skipped). */
  retention: string;
  /** Items with versions when the job counted them. */
  items: number;
  /** Items gone through. */
  processed: number;
  /** Versions removed. */
  pruned: number;
}

/** A pruning job's record. */
export interface PruneJob extends StoredJob {
  /** The collection asked for; null: every collection. */
  collection: string | null;
  /** When retentions by duration are measured from: versions written before `cutoff` go. */
  startedAt: string | null;
  collections: PrunedCollection[];
  /**
   * Items with versions in the collections whose retention is not `all`: counted as the job
   * starts, plus those written since that the pass meets.
   */
  total: number;
  /** Items gone through so far. */
  processed: number;
  /** Versions removed so far. */
  pruned: number;
}

/** What the runner needs, besides what every kind's runner does. */
export interface PruneRunnerOptions extends JobRunnerOptions<PruneJob, never> {
  /** The store's history; undefined (or without `prune`): pruning is `history-unsupported`. */
  history?: ItemHistory;
  catalog: Catalog;
  /** `service.history.retention`. */
  defaultRetention: string;
}

/** Runs pruning jobs (one at a time, across instances) and keeps their records. */
export class HistoryPruneRunner {
  readonly #options: PruneRunnerOptions;
  readonly #lifecycle: JobLifecycle<PruneJob>;
  #timer?: ReturnType<typeof setInterval>;

  constructor(options: PruneRunnerOptions) {
    this.#options = options;
    this.#lifecycle = new JobLifecycle(options, {
      name: "history pruning job",
      stopReasons: {
        lost: "The job lost its claim in the store (no heartbeat within a lease); start it " +
          "again: what it removed stays removed.",
        shutdown: INTERRUPTED_MESSAGE,
      },
    });
  }

  /**
   * Records and starts a job over `collection` (every collection when undefined): 404 for
   * an unknown collection, 501 `history-unsupported` on a store that cannot prune, 409
   * `prune-running` while a pruning job runs anywhere. `done` settles with the finished job.
   */
  async start(collection?: string): Promise<{ job: PruneJob; done: Promise<PruneJob> }> {
    const history = this.#prunable();
    const entries = collection === undefined
      ? this.#options.catalog.collections()
      : [this.#options.catalog.collection(collection)];
    const job: PruneJob = {
      id: crypto.randomUUID(),
      collection: collection ?? null,
      state: "running",
      startedAt: new Date().toISOString(),
      finishedAt: null,
      errors: [],
      collections: entries.map((entry) => ({
        collection: entry.collection.uri,
        retention: this.#retentionText(entry),
        items: 0,
        processed: 0,
        pruned: 0,
      })),
      total: 0,
      processed: 0,
      pruned: 0,
    };
    const decision = await this.#lifecycle.start(job, (running) => this.#run(running, history));
    if (!decision.started) throw pruneRunning(decision.runningJob);
    return { job: structuredClone(job), done: decision.done };
  }

  /** A job by id: this instance's live view, else the record (any instance's). */
  async find(id: string): Promise<PruneJob | undefined> {
    await this.#lifecycle.recovered;
    const current = this.#lifecycle.find(id);
    return current ? structuredClone(current.job) : await this.#options.jobs.get(id);
  }

  /** The most recent jobs of every instance, newest first. */
  async recent(limit: number): Promise<PruneJob[]> {
    await this.#lifecycle.recovered;
    const jobs = await this.#options.jobs.recent(limit);
    return jobs.map((job) => structuredClone(this.#lifecycle.find(job.id)?.job ?? job));
  }

  /**
   * Starts a job over every collection every `intervalMs` (0: never), while the store can
   * prune. A turn is skipped while a job runs anywhere, and while every retention is `all`
   * (a job would have nothing to do). Never throws: a turn that fails is logged.
   */
  schedule(intervalMs: number): void {
    const history = this.#options.history;
    if (intervalMs <= 0 || !history?.prune || !history.countItems) return;
    this.#timer = setInterval(() => void this.#scheduledTurn(), intervalMs);
  }

  /** Stops the schedule and a running job (it fails; what it removed stays) and waits for it. */
  close(): Promise<void> {
    clearInterval(this.#timer);
    return this.#lifecycle.close();
  }

  async #scheduledTurn(): Promise<void> {
    if (this.#lifecycle.closing || this.#lifecycle.running().length > 0) return;
    const entries = this.#options.catalog.collections();
    if (entries.every((entry) => keepsAll(this.#retentionText(entry)))) return;
    try {
      const { job } = await this.start();
      log("info", "scheduled history pruning started", { job: job.id });
    } catch (error) {
      // Another instance's job, or a store that is down: the next turn tries again.
      if (!isProblem(error, "prune-running")) {
        log("warn", "could not start scheduled history pruning", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  async #run(running: RunningJob<PruneJob, never>, history: Prunable): Promise<PruneJob> {
    const { job } = running;
    const now = new Date(job.startedAt!);
    let failure: string | undefined;
    try {
      const pruned = job.collections.filter((entry) => !keepsAll(entry.retention));
      for (const entry of pruned) {
        let after: string | undefined;
        while (running.stopped === undefined) {
          const page = await history.countItems(entry.collection, {
            after,
            limit: COUNT_PAGE_ITEMS,
          });
          entry.items += page.items;
          job.total += page.items;
          if (page.items < COUNT_PAGE_ITEMS || page.last === undefined) break;
          after = page.last;
          await breather(0);
        }
      }
      let limit = FIRST_PAGE_ITEMS;
      for (const entry of pruned) {
        const rule = pruneRule(checkedRetention(entry.retention), now);
        let after: string | undefined;
        while (running.stopped === undefined) {
          const started = performance.now();
          const step = await history.prune(entry.collection, rule, { after, limit });
          const took = performance.now() - started;
          entry.processed += step.items;
          entry.pruned += step.removed;
          job.processed += step.items;
          job.pruned += step.removed;
          // Items first written after the count are met too: the total grows with them.
          const uncounted = entry.processed - entry.items;
          if (uncounted > 0) {
            entry.items += uncounted;
            job.total += uncounted;
          }
          if (step.items < limit || step.last === undefined) break;
          after = step.last;
          limit = nextLimit(limit, took);
          // As long again for everything else (writes, reads of the job): a pass takes at
          // most about half of the thread the store's writes run on.
          await breather(took);
        }
      }
      failure = running.stopped;
    } catch (error) {
      failure = running.stopped ?? (error instanceof Error ? error.message : String(error));
    }
    const finishedAt = new Date().toISOString();
    const ended = failure === undefined
      ? { ...job, state: "succeeded" as const, finishedAt }
      : failedJob(job, failure, finishedAt);
    Object.assign(job, ended);
    await this.#lifecycle.save(running);
    if (failure) log("warn", "history pruning failed", { job: job.id, error: failure });
    else log("info", "history pruned", { job: job.id, items: job.processed, pruned: job.pruned });
    return structuredClone(job);
  }

  /** The retention a collection's settings or the service's default give it, as written. */
  #retentionText(entry: CollectionEntry): string {
    return entry.collection.history?.retention ?? this.#options.defaultRetention;
  }

  /** The history's pruning, or 501 when the store has none. */
  #prunable(): Prunable {
    const history = this.#options.history;
    if (history?.prune && history.countItems) {
      return {
        prune: history.prune.bind(history),
        countItems: history.countItems.bind(history),
      };
    }
    throw new DomainError("history-unsupported", {
      detail: history
        ? "This store keeps item history but cannot prune it yet."
        : "This store keeps no item history, so there is nothing to prune.",
    });
  }
}

/** The two operations a pass needs, present. */
type Prunable = Required<Pick<ItemHistory, "prune" | "countItems">>;

/** 409: one pruning job at a time. */
function pruneRunning(runningJob: string): DomainError {
  return new DomainError("prune-running", {
    detail: `History pruning job ${runningJob} is running; one runs at a time.`,
    extensions: { runningJob },
  });
}

/** The items of the next step: as many as {@link STEP_TARGET_MS} allows at the last pace. */
function nextLimit(limit: number, tookMs: number): number {
  const scaled = Math.round(limit * STEP_TARGET_MS / Math.max(tookMs, 1));
  // At most doubling: one fast step (a page with nothing to remove) is no pace to trust.
  return Math.min(MAX_PAGE_ITEMS, Math.max(MIN_PAGE_ITEMS, Math.min(scaled, limit * 2)));
}

/** Whether a retention keeps every version (a prune has nothing to do). */
function keepsAll(retention: string): boolean {
  return checkedRetention(retention).keep === "all";
}

/** Gives the event loop back for `ms` (at least one turn of timers). */
function breather(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What the store is told to keep; `all` never reaches here. */
function pruneRule(retention: Retention, now: Date): PruneRule {
  if (retention.keep === "last") return { keepLast: retention.count };
  if (retention.keep === "within") return { keepSince: cutoffOf(retention.duration, now) };
  throw new Error("a retention of all prunes nothing");
}
