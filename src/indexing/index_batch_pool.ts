/**
 * An indexing job's batches in worker threads. On the embedded backends a batch is CPU work
 * from end to end (reading the item graphs, building the documents, writing them through
 * FTS5), and on the job's thread it shares one core with every request. Each worker opens the
 * service's SQLite file with a connection of its own (WAL: reads beside the one writer at a
 * time) and runs whole batches (`index_batch.ts`): while one worker writes, the other reads
 * and builds, on another core, and the request thread only keeps the job's books.
 *
 * The workers start with the first job and stay; the worker module (which picks the engines)
 * is the wiring's, passed in by URL.
 */
import type { IndexTarget } from "../search/search_engine.ts";
import { WorkerPool } from "../items/worker_pool.ts";
import type { BatchOutcome, IndexBatch } from "./index_batch.ts";
import type { IndexedCollection } from "./index_item.ts";

/** One batch, as posted to a worker. */
export interface IndexBatchTask {
  collection: IndexedCollection;
  target: IndexTarget;
  uris: string[];
}

/** How the pool is built. */
export interface IndexBatchPoolOptions {
  /** The worker module: it answers {@link IndexBatchTask}s with {@link BatchOutcome}s. */
  url: URL;
  /** Worker threads, at least 1. */
  workers: number;
  /** Posted to each worker before its first batch (where the file is, the engines' options). */
  init: unknown;
}

/** Runs batches on worker threads; see the module comment. */
export class IndexBatchPool {
  readonly #options: IndexBatchPoolOptions;
  #pool?: WorkerPool<IndexBatchTask, BatchOutcome>;

  constructor(options: IndexBatchPoolOptions) {
    this.#options = options;
  }

  /** Runs one batch on a worker; a job keeps few pending, so it waits for room. */
  readonly run: IndexBatch = (collection, target, uris) => {
    this.#pool ??= new WorkerPool({
      url: this.#options.url,
      size: this.#options.workers,
      // The job bounds its batches in flight: nothing piles up here.
      maxQueue: this.#options.workers,
      init: this.#options.init,
      name: "indexing",
    });
    return this.#pool.run({ collection, target, uris }, { wait: true });
  };

  /**
   * Closes the workers' connections, then stops the workers; batches still running fail with
   * 503 `shutting-down`. Before the service closes its own connection: the last one to close
   * copies the WAL back into the file.
   */
  async close(): Promise<void> {
    await this.#pool?.shutdown();
  }
}
