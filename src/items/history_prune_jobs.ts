/**
 * History pruning (issue 41): a job that removes the versions a collection's retention does
 * not keep (`config/history_retention.ts`: its own `history.retention`, else the service's),
 * never an item's newest version. For a deleted item that is its delete, so a read still
 * answers `410 item-deleted` with the history that is left.
 *
 * The pass goes through a collection's items with versions in URI order, a page at a time
 * ({@link PRUNE_PAGE_ITEMS}); each page is one short write of the store's history
 * (`ItemHistory.prune`), and the event loop is given back between two, so item writes are
 * never held behind a whole collection. `processed` and `pruned` grow as it goes:
 * `GET /api/admin/history/prune/jobs/{id}` shows them (this instance's live view), and the
 * job lifecycle's heartbeat saves them for every other instance.
 *
 * The job record and its single-flight rule (one pruning job at a time in the deployment)
 * live in the job store like imports' (`src/jobs/job_store.ts`, run by
 * `src/jobs/job_lifecycle.ts`). It is started by the admin route only: nothing prunes behind
 * a write, so a write's cost does not depend on its item's past.
 */
import type { Catalog, CollectionEntry } from "../catalog/catalog.ts";
import { checkedRetention, cutoffOf, type Retention } from "../config/history_retention.ts";
import { DomainError } from "../errors/domain_error.ts";
import { failedJob, INTERRUPTED_MESSAGE, type StoredJob } from "../jobs/job_store.ts";
import { JobLifecycle, type JobRunnerOptions, type RunningJob } from "../jobs/job_lifecycle.ts";
import { log } from "../log/logger.ts";
import type { ItemHistory, PruneRule } from "../store/item_history.ts";

/**
 * Items per step. 500 items of 10 versions is 5,000 rows deleted in one transaction: a few
 * tens of milliseconds that a write waits at most (bench/RESULTS.md, history).
 */
export const PRUNE_PAGE_ITEMS = 500;

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
  /** Items with versions in the collections whose retention is not `all`. */
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
  /** Items per step ({@link PRUNE_PAGE_ITEMS}). */
  pageItems?: number;
}

/** Runs pruning jobs (one at a time, across instances) and keeps their records. */
export class HistoryPruneRunner {
  readonly #options: PruneRunnerOptions;
  readonly #lifecycle: JobLifecycle<PruneJob>;

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

  /** Stops a running job (it fails; what it removed stays removed) and waits for it. */
  close(): Promise<void> {
    return this.#lifecycle.close();
  }

  async #run(running: RunningJob<PruneJob, never>, history: Prunable): Promise<PruneJob> {
    const { job } = running;
    const now = new Date(job.startedAt!);
    const pageItems = this.#options.pageItems ?? PRUNE_PAGE_ITEMS;
    let failure: string | undefined;
    try {
      const pruned = job.collections.filter((entry) => entry.retention !== "all");
      for (const entry of pruned) {
        entry.items = await history.countItems(entry.collection);
        job.total += entry.items;
      }
      for (const entry of pruned) {
        const rule = pruneRule(checkedRetention(entry.retention), now);
        let after: string | undefined;
        while (running.stopped === undefined) {
          const step = await history.prune(entry.collection, rule, { after, limit: pageItems });
          entry.processed += step.items;
          entry.pruned += step.removed;
          job.processed += step.items;
          job.pruned += step.removed;
          if (step.items < pageItems || step.last === undefined) break;
          after = step.last;
          // Item writes (and reads of the job's progress) go between two steps.
          await new Promise((resolve) => setTimeout(resolve, 0));
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

/** What the store is told to keep; `all` never reaches here. */
function pruneRule(retention: Retention, now: Date): PruneRule {
  if (retention.keep === "last") return { keepLast: retention.count };
  if (retention.keep === "within") return { keepSince: cutoffOf(retention.duration, now) };
  throw new Error("a retention of all prunes nothing");
}
