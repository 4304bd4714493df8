/**
 * An indexing job's batches in worker threads. On the embedded backends a batch is CPU work
 * from end to end (reading the item graphs, building the documents, writing them through
 * FTS5), and on the job's thread it shares one core with every request. Each worker opens the
 * service's SQLite file with a connection of its own (WAL: reads beside the one writer at a
 * time) and runs whole batches (`index_batch.ts`): while one worker writes, the other reads
 * and builds, on another core, and the request thread only keeps the job's books.
 *
 * The same workers apply the index outbox's batches (`outbox_batch.ts`) when the wiring hands
 * them over (`Outbox`, answered by `Applied`: the wiring adds what the request thread's engine
 * must pass along and take back): the same CPU work on the same file.
 *
 * The workers start with the first task and stay; the worker module (which picks the engines)
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

/** What a worker is given: a job's batch, or an outbox batch. */
export type IndexWorkerTask<Outbox> = { batch: IndexBatchTask } | { outbox: Outbox };

/** How the pool is built. */
export interface IndexBatchPoolOptions {
  /**
   * The worker module: it answers a job's batch with a {@link BatchOutcome}, an outbox batch
   * with what the wiring expects.
   */
  url: URL;
  /** Worker threads, at least 1. */
  workers: number;
  /** Posted to each worker before its first batch (where the file is, the engines' options). */
  init: unknown;
}

/** Runs batches on worker threads; see the module comment. */
export class IndexBatchPool<Outbox = never, Applied = never> {
  readonly #options: IndexBatchPoolOptions;
  #pool?: WorkerPool<IndexWorkerTask<Outbox>, BatchOutcome | Applied>;

  constructor(options: IndexBatchPoolOptions) {
    this.#options = options;
  }

  /** Runs one batch on a worker; a job keeps few pending, so it waits for room. */
  readonly run: IndexBatch = (collection, target, uris) =>
    this.#workers().run({ batch: { collection, target, uris } }, { wait: true }) as Promise<
      BatchOutcome
    >;

  /** Applies one outbox batch on a worker; the outbox waits for each, so it waits for room. */
  readonly applyOutbox = (outbox: Outbox): Promise<Applied> =>
    this.#workers().run({ outbox }, { wait: true }) as Promise<Applied>;

  #workers(): WorkerPool<IndexWorkerTask<Outbox>, BatchOutcome | Applied> {
    return this.#pool ??= new WorkerPool({
      url: this.#options.url,
      size: this.#options.workers,
      // Jobs and the outbox each bound their tasks in flight: nothing piles up here.
      maxQueue: this.#options.workers,
      init: this.#options.init,
      name: "indexing",
    });
  }

  /**
   * Closes the workers' connections, then stops the workers; batches still running fail with
   * 503 `shutting-down`. Before the service closes its own connection: the last one to close
   * copies the WAL back into the file.
   */
  async close(): Promise<void> {
    await this.#pool?.shutdown();
  }
}
