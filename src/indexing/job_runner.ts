/**
 * Indexing jobs (API.md "Indexing"): one at a time, with progress, persisted history.
 *
 * A job brings collection indices in step with the store. Without `clear` it upserts every
 * item, then removes documents whose items no longer exist. With `clear` it fills a new
 * index behind the collection's alias and swaps it in only when complete, so searches keep
 * answering from the old index meanwhile and a failed rebuild leaves it serving.
 *
 * Jobs and the outbox worker both write documents. A job reads an item, then writes its
 * document; if the item changed in between and the worker applied that change first, the
 * job's write would be stale. So while a job runs it collects the items the worker handled
 * and, once its own writes are done (and a rebuild committed), enqueues them again: the
 * worker, the only writer left, then brings them in step with the store.
 */
import type { Catalog } from "../catalog/catalog.ts";
import { ProblemError } from "../http/problem.ts";
import { log } from "../log/logger.ts";
import { type IndexTarget, isRebuildTarget, type SearchEngine } from "../search/search_engine.ts";
import type { ItemRecord, TripleStore } from "../store/triple_store.ts";
import {
  type CollectionResolver,
  type IndexedCollection,
  type ItemDocument,
  readItemDocuments,
} from "./index_item.ts";
import { type IndexJob, type JobScope, type JobStore, MAX_JOB_ERRORS } from "./job_store.ts";

/** What a job needs from the outbox worker (see the module comment). */
export interface IndexChangeFeed {
  onProcessed(listener: (collection: string, uris: string[]) => void): () => void;
  requeue(collection: string, uris: Iterable<string>): void;
}

/**
 * Test seam: called before each batch of a job is written (the previous batch's write may
 * still be pending); throwing fails the job there.
 */
export interface IndexJobHooks {
  beforeBatch?: (job: IndexJob, batch: number) => void | Promise<void>;
}

/**
 * Batch writes a job keeps pending. Two let the engine index one batch while it receives
 * the next (measured: about 30% faster into a single-shard OpenSearch index than one).
 */
const WRITES_IN_FLIGHT = 2;

/**
 * Items per batch. Bigger bulk requests cost a single-shard OpenSearch index less per
 * document: 500 indexed 20k items 25% faster than 200 (bench/RESULTS.md).
 */
export const DEFAULT_BATCH_SIZE = 500;

/** Options of {@link IndexJobRunner}. */
export interface IndexJobRunnerOptions {
  jobs: JobStore;
  store: TripleStore;
  engine: SearchEngine;
  catalog: Catalog;
  resolve: CollectionResolver;
  /** The outbox worker, so writes made during a job end up in the final index. */
  changes?: IndexChangeFeed;
  /** Items read and written per batch ({@link DEFAULT_BATCH_SIZE}). */
  batchSize?: number;
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

/** Runs indexing jobs one at a time and keeps their history. */
export class IndexJobRunner {
  /** Test seam; see {@link IndexJobHooks}. */
  readonly hooks: IndexJobHooks = {};
  readonly #jobs: JobStore;
  readonly #store: TripleStore;
  readonly #engine: SearchEngine;
  readonly #catalog: Catalog;
  readonly #resolve: CollectionResolver;
  readonly #changes?: IndexChangeFeed;
  readonly #batchSize: number;
  #current?: { job: IndexJob; done: Promise<void> };
  #closing = false;

  /** Marks jobs a previous run left `queued` or `running` as failed. */
  constructor(options: IndexJobRunnerOptions) {
    this.#jobs = options.jobs;
    this.#store = options.store;
    this.#engine = options.engine;
    this.#catalog = options.catalog;
    this.#resolve = options.resolve;
    this.#changes = options.changes;
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    for (const job of this.#jobs.failInterrupted()) {
      log("warn", "indexing job was interrupted by a restart; marked failed", { job: job.id });
    }
  }

  /** True from the start of a job to its end. */
  isRunning(): boolean {
    return this.#current !== undefined;
  }

  /**
   * Starts a job and returns it as it starts. Throws 404 for an unknown workspace or
   * collection and 409 `indexing-running` (with `runningJob`) while another job runs.
   */
  start(scope: JobScope, options: StartOptions = {}): IndexJob {
    const parts = this.#parts(scope);
    if (this.#current) throw runningProblem(this.#current.job.id);
    if (this.#closing) {
      throw new ProblemError(503, "shutting-down", "Shutting down", "The service is stopping.");
    }
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
    this.#jobs.insert(job);
    const current = { job, done: Promise.resolve() };
    this.#current = current;
    current.done = this.#run(job, parts)
      .catch((error) => log("error", "indexing job crashed", { job: job.id, error: String(error) }))
      .finally(() => {
        this.#current = undefined;
      });
    return structuredClone(job);
  }

  /** The job once it has finished (at once if it already has); undefined if unknown. */
  async wait(id: string): Promise<IndexJob | undefined> {
    if (this.#current?.job.id === id) await this.#current.done;
    return this.#jobs.get(id);
  }

  /** A job by id: the live state of the running one, else the recorded one. */
  get(id: string): IndexJob | undefined {
    if (this.#current?.job.id === id) return structuredClone(this.#current.job);
    return this.#jobs.get(id);
  }

  /** The most recent jobs, newest first. */
  recent(limit = 50): IndexJob[] {
    const jobs = this.#jobs.recent(limit);
    const running = this.#current?.job;
    return jobs.map((job) => job.id === running?.id ? structuredClone(running) : job);
  }

  /** Stops the running job at its next batch (it fails, any rebuild is aborted) and waits. */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#current?.done;
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

  async #run(job: IndexJob, parts: JobPart[]): Promise<void> {
    job.state = "running";
    job.startedAt = new Date().toISOString();
    this.#save(job);
    const collections = new Set(parts.map((part) => part.collection.uri));
    const touched = new Map<string, Set<string>>();
    const unsubscribe = this.#changes?.onProcessed((collection, uris) => {
      if (!collections.has(collection)) return;
      const set = touched.get(collection) ?? new Set<string>();
      touched.set(collection, set);
      for (const uri of uris) set.add(uri);
    });
    let failed = false;
    try {
      job.total = await this.#count(parts);
      this.#save(job);
      const batches = { count: 0 };
      for (const part of parts) {
        try {
          await this.#indexPart(job, part, batches);
        } catch (error) {
          failed = true;
          const prefix = parts.length > 1 ? `${part.collection.uri}: ` : "";
          this.#recordError(job, null, `${prefix}${messageOf(error)}`);
          if (this.#closing) break;
        }
      }
    } catch (error) {
      failed = true;
      this.#recordError(job, null, messageOf(error));
    } finally {
      unsubscribe?.();
      try {
        for (const [collection, uris] of touched) this.#changes?.requeue(collection, uris);
      } catch (error) {
        failed = true;
        this.#recordError(
          job,
          null,
          `Could not requeue items written meanwhile: ${messageOf(error)}`,
        );
      }
    }
    job.total = Math.max(job.total, job.processed);
    job.state = failed ? "failed" : "succeeded";
    job.finishedAt = new Date().toISOString();
    this.#save(job);
    log(failed ? "warn" : "info", "indexing job finished", {
      job: job.id,
      state: job.state,
      processed: job.processed,
      indexed: job.indexed,
      deleted: job.deleted,
      failed: job.failed,
    });
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

  async #indexPart(job: IndexJob, part: JobPart, batches: { count: number }): Promise<void> {
    const ref = part.collection.ref;
    if (part.items) {
      await this.#engine.ensureIndex(ref);
      const source = inBatches(part.items, this.#batchSize);
      await this.#indexBatches(job, part.collection, ref, source, batches);
      await this.#engine.refresh(ref);
      return;
    }
    const seen = new Set<string>();
    const source = inBatches(
      this.#store.listItems(part.collection.uri),
      this.#batchSize,
      (record) => seen.add(record.uri),
    );
    if (!job.clear) {
      await this.#engine.ensureIndex(ref);
      await this.#indexBatches(job, part.collection, ref, source, batches);
      await this.#removeStale(job, part.collection, seen);
      await this.#engine.refresh(ref);
      return;
    }
    const rebuild = await this.#engine.beginRebuild(ref);
    try {
      await this.#indexBatches(job, part.collection, rebuild, source, batches);
      await this.#engine.commitRebuild(rebuild);
    } catch (error) {
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
   * Reads the next batch while earlier ones are being written, so the store and the engine
   * work at the same time, with at most {@link WRITES_IN_FLIGHT} writes pending. The hook
   * runs before each write is sent.
   */
  async #indexBatches(
    job: IndexJob,
    collection: IndexedCollection,
    target: IndexTarget,
    source: AsyncIterable<(string | ItemRecord)[]>,
    batches: { count: number },
  ): Promise<void> {
    const writing: Promise<void>[] = [];
    try {
      for await (const items of source) {
        if (this.#closing) throw new Error("The service is shutting down.");
        // On the embedded backends a batch never waits for I/O: without this turn of the
        // event loop a job would hold it, and every request would wait, until the job ends.
        await yieldToEventLoop();
        const uris = items.map((item) => typeof item === "string" ? item : item.uri);
        const results = await readItemDocuments(this.#store, collection, uris);
        while (writing.length >= WRITES_IN_FLIGHT) await writing.shift();
        await this.hooks.beforeBatch?.(structuredClone(job), batches.count++);
        const write = this.#writeBatch(job, target, results);
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

  async #writeBatch(job: IndexJob, target: IndexTarget, results: ItemDocument[]): Promise<void> {
    const documents = results.flatMap((result) =>
      result.outcome === "document" ? [result.document] : []
    );
    const gone = results.filter((result) => result.outcome === "gone").map(({ uri }) => uri);
    for (const result of results) {
      if (result.outcome === "failed") this.#recordItemFailure(job, result);
    }
    if (documents.length > 0) {
      const outcome = await this.#engine.upsert(target, documents);
      job.indexed += outcome.succeeded;
      for (const failure of outcome.failed) {
        this.#recordError(job, failure.uri, failure.message);
        job.failed++;
      }
    }
    // A rebuilt index never held them; the collection's index may.
    if (gone.length > 0 && !isRebuildTarget(target)) {
      const outcome = await this.#engine.remove(target, gone);
      job.deleted += outcome.succeeded;
    }
    job.processed += results.length;
    job.total = Math.max(job.total, job.processed);
    this.#save(job);
  }

  /** Removes documents of items that no longer exist in the collection. */
  async #removeStale(job: IndexJob, collection: IndexedCollection, seen: Set<string>) {
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
      this.#save(job);
    };
    for await (const uri of this.#engine.listDocumentUris(collection.ref)) {
      if (seen.has(uri)) continue;
      candidates.push(uri);
      if (candidates.length >= this.#batchSize) await flush();
    }
    await flush();
  }

  #recordItemFailure(job: IndexJob, result: Extract<ItemDocument, { outcome: "failed" }>) {
    job.failed++;
    this.#recordError(job, result.uri, result.message);
  }

  #recordError(job: IndexJob, item: string | null, message: string): void {
    if (job.errors.length < MAX_JOB_ERRORS) job.errors.push({ item, message });
  }

  #save(job: IndexJob): void {
    try {
      this.#jobs.update(job);
    } catch (error) {
      // Progress is also kept in memory; a failed save must not fail the job.
      log("error", "could not save indexing job progress", { job: job.id, error: String(error) });
    }
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

/** 409 while a job runs; `runningJob` names it. */
export function runningProblem(runningJob: string): ProblemError {
  return new ProblemError(
    409,
    "indexing-running",
    "Indexing is running",
    `Indexing job ${runningJob} is running; only one job runs at a time.`,
    undefined,
    { runningJob },
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
