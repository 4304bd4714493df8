/**
 * Indexing jobs (docs/api.md "Indexing"): one at a time across every instance on the same store,
 * with progress and persisted history.
 *
 * A job brings collection indices in step with the store. Without `clear` it upserts every
 * item, then removes documents whose items no longer exist. With `clear` it fills a new
 * index behind the collection's alias and swaps it in only when complete, so searches keep
 * answering from the old index meanwhile and a failed rebuild leaves it serving.
 *
 * One at a time: the job store (`job_store.ts`) starts a job only if no live job is
 * recorded, atomically, so a start on any instance while a job runs anywhere is 409. The
 * claim, its heartbeat, the sweep for jobs lost with their instance and shutdown are the
 * job lifecycle's (`src/jobs/job_lifecycle.ts`); a job stops at its next batch when told to.
 * What is indexing's own: after a sweep marks a job lost, this runner drops the rebuild
 * indices it left and re-queues what it may have left stale.
 *
 * Jobs and the outbox workers of every instance write documents. A job reads an item, then
 * writes its document; if the item changed in between and a worker applied that change
 * first, the job's write is stale. Every such item was written after the job started, or
 * is gone since the job listed it. So once its own writes are done (and a rebuild
 * committed), the job re-queues into the store's index outbox every item modified since it
 * started (less {@link CLOCK_ALLOWANCE_MS} on a shared store, for clocks and writes in
 * flight) and every item it listed that is gone; the outbox workers, which read the current
 * state, then bring them in step. Writes after the job also reach the rebuilt index that
 * way, if another instance missed the rebuild when it wrote.
 */
import type { Catalog } from "../catalog/catalog.ts";
import { DomainError } from "../errors/domain_error.ts";
import { log } from "../log/logger.ts";
import type { IndexTarget, SearchEngine } from "../search/search_engine.ts";
import type { ItemRecord, TripleStore } from "../store/triple_store.ts";
import type { IndexOutbox } from "../store/index_outbox.ts";
import type { RebuildTarget } from "../search/search_engine.ts";
import type { CollectionResolver, IndexedCollection } from "./index_item.ts";
import { type BatchOutcome, type IndexBatch, indexBatchWith } from "./index_batch.ts";
import { isLive, type JobRecord, type JobStore, MAX_JOB_ERRORS } from "../jobs/job_store.ts";
import { JobLifecycle, type JobRunnerOptions, type RunningJob } from "../jobs/job_lifecycle.ts";
import type { IndexJob, JobRebuild, JobScope } from "./index_job.ts";

/**
 * How far the clocks of instances may differ, plus how long a write may be on its way to
 * the store after it took its `modified` time: items modified this long before a job
 * started are re-queued too. For stores shared by several instances; an embedded store has
 * one clock and writes that take their time inside their transaction, so it needs none.
 */
export const CLOCK_ALLOWANCE_MS = 60_000;

/**
 * Test seam: called before each batch of a job is read and written (the previous batch may
 * still be pending); throwing fails the job there.
 */
export interface IndexJobHooks {
  beforeBatch?: (job: IndexJob, batch: number) => void | Promise<void>;
}

/**
 * Batches a job keeps pending. Two let the engine index one batch while it receives the next
 * (measured: about 30% faster into a single-shard OpenSearch index than one), and keep two
 * workers busy when batches run in a pool.
 */
const WRITES_IN_FLIGHT = 2;

/** Options of {@link IndexJobRunner}, besides what every kind's runner has. */
export interface IndexJobRunnerOptions extends JobRunnerOptions<IndexJob, JobRebuild> {
  store: TripleStore;
  engine: SearchEngine;
  catalog: Catalog;
  resolve: CollectionResolver;
  /**
   * Where a job re-queues what it may have indexed stale (see the module comment): the
   * store's index outbox, so writes made during a job end up in the final index.
   */
  outbox?: IndexOutbox;
  /** Items read and written per batch (`service.search.indexing.batchSize`). */
  batchSize: number;
  /** See {@link CLOCK_ALLOWANCE_MS} (its value by default). */
  clockAllowanceMs?: number;
  /**
   * Where batches run (`index_batch_pool.ts`): by default on this thread, read from `store`
   * and written to `engine`.
   */
  indexBatch?: IndexBatch;
}

/** Options of one job. */
export interface StartOptions {
  /** Rebuild each collection's index from nothing (not for `items` jobs). */
  clear?: boolean;
}

/** One collection of a job, with the listed items for an `items` job. */
interface JobPart {
  collection: IndexedCollection;
  items?: string[];
}

/** The job this instance runs. */
type RunningIndexJob = RunningJob<IndexJob, JobRebuild>;

/** Why a running job stops (recorded among its errors). */
const STOP_REASONS = {
  lost: "This instance lost the job's claim (its heartbeat was not renewed in time).",
  shutdown: "The service is shutting down.",
};

/** Runs indexing jobs one at a time and keeps their history. */
export class IndexJobRunner {
  /** Test seam; see {@link IndexJobHooks}. */
  readonly hooks: IndexJobHooks = {};
  readonly #jobs: JobStore<IndexJob, JobRebuild>;
  readonly #store: TripleStore;
  readonly #engine: SearchEngine;
  readonly #catalog: Catalog;
  readonly #resolve: CollectionResolver;
  readonly #outbox?: IndexOutbox;
  readonly #batchSize: number;
  readonly #clockAllowanceMs: number;
  readonly #indexBatch: IndexBatch;
  readonly #lifecycle: JobLifecycle<IndexJob, JobRebuild>;
  /**
   * The job whose end is being recorded: until the store answers, this instance cannot tell
   * whether the store already says "ended", so it answers from the store, as every other
   * instance does.
   */
  #ending?: RunningIndexJob;
  /** Starts on this instance, one after the other: the second sees the first's job. */
  #starts: Promise<unknown> = Promise.resolve();
  /** Settles when the job this instance runs (or ran last) has ended. */
  #done: Promise<void> = Promise.resolve();

  /** Marks jobs lost with their instance as failed, now and then every sweep interval. */
  constructor(options: IndexJobRunnerOptions) {
    this.#jobs = options.jobs;
    this.#store = options.store;
    this.#engine = options.engine;
    this.#catalog = options.catalog;
    this.#resolve = options.resolve;
    this.#outbox = options.outbox;
    this.#batchSize = options.batchSize;
    this.#clockAllowanceMs = options.clockAllowanceMs ?? CLOCK_ALLOWANCE_MS;
    this.#indexBatch = options.indexBatch ?? indexBatchWith(options.store, options.engine);
    this.#lifecycle = new JobLifecycle(options, {
      name: "indexing job",
      stopReasons: STOP_REASONS,
      onLost: (record) => this.#cleanUpLost(record),
    });
  }

  /** The job this instance runs (one at a time). */
  get #current(): RunningIndexJob | undefined {
    return this.#lifecycle.running()[0];
  }

  /**
   * The first sweep (jobs this instance ran before a restart): starts and reads wait for it,
   * so no answer shows such a job as still running.
   */
  get #recovered(): Promise<void> {
    return this.#lifecycle.recovered;
  }

  /** True from the start of a job on this instance to its end. */
  isRunning(): boolean {
    return this.#current !== undefined;
  }

  /** True while a job runs on any instance sharing the store. */
  async isRunningAnywhere(): Promise<boolean> {
    await this.#recovered;
    const current = this.#current;
    // A job that has recorded its end is over, though its last steps may still run here.
    if (current && current !== this.#ending && isLive(current.job)) return true;
    return await this.#jobs.live() !== undefined;
  }

  /**
   * Starts a job and returns it as it starts. Throws not-found for an unknown workspace or
   * collection and conflict `indexing-running` (with `runningJob`) while another job runs on
   * any instance.
   */
  start(scope: JobScope, options: StartOptions = {}): Promise<IndexJob> {
    const started = this.#starts.then(async () => {
      const parts = this.#parts(scope);
      if (this.#current) throw runningProblem(this.#current.job.id);
      return await this.#startRecorded(scope, options, parts);
    });
    this.#starts = started.catch(() => {});
    return started;
  }

  async #startRecorded(scope: JobScope, options: StartOptions, parts: JobPart[]) {
    const job: IndexJob = {
      id: crypto.randomUUID(),
      scope: scope.type === "items" ? { ...scope, items: [...scope.items ?? []] } : {
        type: scope.type,
        uri: scope.uri,
      },
      clear: scope.type !== "items" && options.clear === true,
      state: "queued",
      startedAt: null,
      finishedAt: null,
      total: 0,
      processed: 0,
      indexed: 0,
      deleted: 0,
      failed: 0,
      errors: [],
    };
    let asStarted = job;
    const decision = await this.#lifecycle.start(job, (current) => {
      const run = this.#run(current, parts);
      asStarted = structuredClone(job); // as its first step leaves it
      return run.catch((error) =>
        log("error", "indexing job crashed", { job: job.id, error: String(error) })
      );
    });
    if (!decision.started) throw runningProblem(decision.runningJob);
    this.#done = decision.done;
    return asStarted;
  }

  /** The job once it has finished (at once if it already has); undefined if unknown. */
  async wait(id: string): Promise<IndexJob | undefined> {
    await this.#recovered;
    if (this.#current?.job.id === id) await this.#done;
    return await this.#jobs.get(id);
  }

  /** The live state of the job this instance runs, if it has this id. */
  get(id: string): IndexJob | undefined {
    const current = this.#current;
    if (current?.job.id === id && current !== this.#ending) return structuredClone(current.job);
    return undefined;
  }

  /** A job by id, from any instance: the live state of this instance's, else the record. */
  async find(id: string): Promise<IndexJob | undefined> {
    await this.#recovered;
    return this.get(id) ?? await this.#jobs.get(id);
  }

  /** The most recent jobs of every instance, newest first. */
  async recent(limit = 50): Promise<IndexJob[]> {
    await this.#recovered;
    const jobs = await this.#jobs.recent(limit);
    const current = this.#current;
    const running = current === this.#ending ? undefined : current?.job;
    return jobs.map((job) => job.id === running?.id ? structuredClone(running) : job);
  }

  /**
   * Stops the running job at its next batch (it fails, any rebuild is aborted) and waits,
   * for a sweep in flight too.
   */
  close(): Promise<void> {
    return this.#lifecycle.close();
  }

  /**
   * After a sweep marked a job lost with its instance (see the module comment): drops its
   * rebuilds and re-queues its collections' changed and orphaned items.
   */
  async #cleanUpLost({ job, rebuilds }: JobRecord<IndexJob, JobRebuild>): Promise<void> {
    for (const rebuild of rebuilds) {
      const target: RebuildTarget = {
        ref: this.#resolve(rebuild.collection).ref,
        physicalName: rebuild.physicalName,
      };
      await this.#engine.abortRebuild(target).catch((error) =>
        log("warn", "could not drop a lost job's rebuild index", {
          index: rebuild.physicalName,
          error: messageOf(error),
        })
      );
    }
    if (!this.#outbox || job.startedAt === null) return;
    const since = Date.parse(job.startedAt) - this.#clockAllowanceMs;
    for (const part of this.#partsOrNone(job.scope)) {
      // The lost job's list of items is gone with it: documents without an item are found
      // by comparing the index with the store.
      const current = await this.#requeueChanged(part, new Set(), since);
      const orphans: string[] = [];
      for await (const uri of this.#engine.listDocumentUris(part.collection.ref)) {
        if (!current.has(uri)) orphans.push(uri);
      }
      await this.#outbox.enqueue(part.collection.uri, orphans);
    }
  }

  /** The parts of a recorded job's scope that are still configured. */
  #partsOrNone(scope: JobScope): JobPart[] {
    try {
      return this.#parts(scope);
    } catch {
      return [];
    }
  }

  #parts(scope: JobScope): JobPart[] {
    switch (scope.type) {
      case "workspace":
        return this.#catalog.workspace(scope.uri).collections.map((collection) => ({
          collection: this.#resolve(collection.uri),
        }));
      case "collection":
        return [{ collection: this.#resolve(scope.uri) }];
      case "items":
        return [{ collection: this.#resolve(scope.uri), items: [...new Set(scope.items ?? [])] }];
    }
  }

  async #run(current: RunningIndexJob, parts: JobPart[]): Promise<void> {
    const job = current.job;
    job.state = "running";
    job.startedAt = new Date().toISOString();
    const since = Date.parse(job.startedAt) - this.#clockAllowanceMs;
    await this.#save(current);
    let failed = false;
    try {
      job.total = await this.#count(parts);
      await this.#save(current);
      const batches = { count: 0 };
      for (const part of parts) {
        const seen = new Set<string>();
        try {
          await this.#indexPart(current, part, batches, seen);
        } catch (error) {
          failed = true;
          const prefix = parts.length > 1 ? `${part.collection.uri}: ` : "";
          this.#recordError(job, null, `${prefix}${messageOf(error)}`);
        }
        try {
          await this.#requeueChanged(part, seen, since);
        } catch (error) {
          failed = true;
          this.#recordError(
            job,
            null,
            `Could not requeue items written meanwhile: ${messageOf(error)}`,
          );
        }
        if (failed && current.stopped !== undefined) break;
      }
    } catch (error) {
      failed = true;
      this.#recordError(job, null, messageOf(error));
    }
    job.total = Math.max(job.total, job.processed);
    // The end is recorded first and shown here after; while it is being recorded this
    // instance answers from the store, like every other instance (see `ending`).
    const end: Partial<IndexJob> = {
      state: failed ? "failed" : "succeeded",
      finishedAt: new Date().toISOString(),
    };
    this.#ending = current;
    await this.#save(current, end);
    Object.assign(job, end);
    log(failed ? "warn" : "info", "indexing job finished", {
      job: job.id,
      state: job.state,
      processed: job.processed,
      indexed: job.indexed,
      deleted: job.deleted,
      failed: job.failed,
    });
  }

  /**
   * Re-queues, through the outbox, the items of a part the job may have indexed stale (see
   * the module comment): for a collection, those modified since `since` and those in `seen`
   * that are gone; for an `items` job, its items. Returns the collection's current items.
   */
  async #requeueChanged(part: JobPart, seen: Set<string>, since: number): Promise<Set<string>> {
    const current = new Set<string>();
    if (!this.#outbox) return current;
    if (part.items) {
      await this.#outbox.enqueue(part.collection.uri, part.items);
      return current;
    }
    const again: string[] = [];
    for await (const record of this.#store.listItems(part.collection.uri)) {
      current.add(record.uri);
      if (Date.parse(record.modified) >= since) again.push(record.uri);
    }
    for (const uri of seen) if (!current.has(uri)) again.push(uri);
    await this.#outbox.enqueue(part.collection.uri, again);
    return current;
  }

  async #count(parts: JobPart[]): Promise<number> {
    let total = 0;
    for (const part of parts) {
      if (part.items) {
        total += part.items.length;
      } else {
        for await (const _ of this.#store.listItems(part.collection.uri)) total++;
      }
    }
    return total;
  }

  async #indexPart(
    current: RunningIndexJob,
    part: JobPart,
    batches: { count: number },
    seen: Set<string>,
  ): Promise<void> {
    const { job } = current;
    const ref = part.collection.ref;
    if (part.items) {
      await this.#engine.ensureIndex(ref);
      const source = inBatches(part.items, this.#batchSize);
      await this.#indexBatches(current, part.collection, ref, source, batches);
      await this.#engine.refresh(ref);
      return;
    }
    const source = inBatches(
      this.#store.listItems(part.collection.uri),
      this.#batchSize,
      (record) => seen.add(record.uri),
    );
    if (!job.clear) {
      await this.#engine.ensureIndex(ref);
      await this.#indexBatches(current, part.collection, ref, source, batches);
      await this.#removeStale(current, part.collection, seen);
      await this.#engine.refresh(ref);
      return;
    }
    const rebuild = await this.#engine.beginRebuild(ref);
    const owned: JobRebuild = {
      collection: part.collection.uri,
      physicalName: rebuild.physicalName,
    };
    // Recorded, so that whoever finds the job lost can drop the index.
    current.rebuilds.push(owned);
    await this.#save(current);
    const forget = () => {
      current.rebuilds = current.rebuilds.filter((r) => r !== owned);
    };
    try {
      await this.#indexBatches(current, part.collection, rebuild, source, batches);
      await this.#engine.commitRebuild(rebuild);
      forget();
    } catch (error) {
      forget();
      await this.#engine.abortRebuild(rebuild).catch((abortError) =>
        log("error", "could not drop a failed rebuild; the next rebuild drops it", {
          index: rebuild.physicalName,
          error: messageOf(abortError),
        })
      );
      throw error;
    }
  }

  /**
   * Indexes batch after batch, with at most {@link WRITES_IN_FLIGHT} pending, so that the
   * store, the engine (and the workers, when batches run in a pool) work at the same time.
   * The hook runs before each batch is sent.
   */
  async #indexBatches(
    current: RunningIndexJob,
    collection: IndexedCollection,
    target: IndexTarget,
    source: AsyncIterable<(string | ItemRecord)[]>,
    batches: { count: number },
  ): Promise<void> {
    const { job } = current;
    const writing: Promise<void>[] = [];
    try {
      for await (const items of source) {
        // Told to stop: the claim was lost, or the service is shutting down.
        if (current.stopped !== undefined) throw new Error(current.stopped);
        // On the embedded backends a batch never waits for I/O: without this turn of the
        // event loop a job would hold it, and every request would wait, until the job ends.
        await yieldToEventLoop();
        const uris = items.map((item) => typeof item === "string" ? item : item.uri);
        while (writing.length >= WRITES_IN_FLIGHT) await writing.shift();
        await this.hooks.beforeBatch?.(structuredClone(job), batches.count++);
        const write = this.#indexBatch(collection, target, uris)
          .then((outcome) => this.#recordBatch(current, uris.length, outcome));
        // Handled when awaited below; until then a failure must not count as unhandled.
        write.catch(() => {});
        writing.push(write);
      }
      while (writing.length > 0) await writing.shift();
    } finally {
      // Writes still pending here mean something else failed: that error wins.
      await Promise.allSettled(writing);
    }
  }

  async #recordBatch(current: RunningIndexJob, items: number, outcome: BatchOutcome) {
    const { job } = current;
    job.indexed += outcome.indexed;
    job.deleted += outcome.deleted;
    for (const failure of outcome.failures) {
      job.failed++;
      this.#recordError(job, failure.uri, failure.message);
    }
    job.processed += items;
    job.total = Math.max(job.total, job.processed);
    await this.#save(current);
  }

  /** Removes documents of items that no longer exist in the collection. */
  async #removeStale(
    current: RunningIndexJob,
    collection: IndexedCollection,
    seen: Set<string>,
  ) {
    const { job } = current;
    let candidates: string[] = [];
    const flush = async () => {
      const stale: string[] = [];
      // An item created while the job ran is not in `seen` but must stay.
      for (const uri of candidates) {
        if (!await this.#store.getItem(collection.uri, uri)) stale.push(uri);
      }
      candidates = [];
      if (stale.length === 0) return;
      const outcome = await this.#engine.remove(collection.ref, stale);
      job.deleted += outcome.succeeded;
      for (const failure of outcome.failed) this.#recordError(job, failure.uri, failure.message);
      await this.#save(current);
    };
    for await (const uri of this.#engine.listDocumentUris(collection.ref)) {
      if (seen.has(uri)) continue;
      candidates.push(uri);
      if (candidates.length >= this.#batchSize) await flush();
    }
    await flush();
  }

  #recordError(job: IndexJob, item: string | null, message: string): void {
    if (job.errors.length < MAX_JOB_ERRORS) job.errors.push({ item, message });
  }

  /**
   * Saves the job's progress (with `end` applied, for its last save) and renews its
   * heartbeat, after every earlier save; a refused save stops the job at its next batch.
   */
  #save(current: RunningIndexJob, end?: Partial<IndexJob>): Promise<boolean> {
    return this.#lifecycle.save(current, end);
  }
}

/** Lets timers and I/O (requests) run before going on. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Groups `source` into arrays of `size`, calling `each` on every element as it passes. */
async function* inBatches<T>(
  source: AsyncIterable<T> | Iterable<T>,
  size: number,
  each?: (element: T) => void,
): AsyncIterable<T[]> {
  let batch: T[] = [];
  for await (const element of source) {
    each?.(element);
    batch.push(element);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** conflict while a job runs; `runningJob` names it. */
export function runningProblem(runningJob: string): DomainError {
  return new DomainError("indexing-running", {
    detail: `Indexing job ${runningJob} is running; only one job runs at a time.`,
    extensions: { runningJob },
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
