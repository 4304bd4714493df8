/**
 * An indexing job's batches in worker threads. On the embedded backends a batch is CPU work
 * from end to end (reading the item graphs, building the documents, writing them through
 * FTS5), and on the job's thread it shares one core with every request. Each worker opens the
 * service's SQLite file with a connection of its own (WAL: reads beside the one writer at a
 * time) and runs whole batches (`index_batch.ts`): while one worker writes, the other reads
 * and builds, on another core, and the request thread only keeps the job's books.
 *
 * The same workers take the search engine's own document writes when the wiring hands them
 * over (the outbox's, on the embedded engine: `Write`, answered by `Written`): those are CPU
 * work on the SQLite file as well.
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

/** What a worker is given: a job's batch, or an engine's document write. */
export type IndexWorkerTask<Write> = { batch: IndexBatchTask } | { write: Write };

/** How the pool is built. */
export interface IndexBatchPoolOptions {
  /**
   * The worker module: it answers a batch with a {@link BatchOutcome}, a write with what the
   * engine's write answers.
   */
  url: URL;
  /** Worker threads, at least 1. */
  workers: number;
  /** Posted to each worker before its first batch (where the file is, the engines' options). */
  init: unknown;
}

/** Runs batches on worker threads; see the module comment. */
export class IndexBatchPool<Write = never, Written = never> {
  readonly #options: IndexBatchPoolOptions;
  #pool?: WorkerPool<IndexWorkerTask<Write>, BatchOutcome | Written>;

  constructor(options: IndexBatchPoolOptions) {
    this.#options = options;
  }

  /** Runs one batch on a worker; a job keeps few pending, so it waits for room. */
  readonly run: IndexBatch = (collection, target, uris) =>
    this.#workers().run({ batch: { collection, target, uris } }, { wait: true }) as Promise<
      BatchOutcome
    >;

  /** Runs one engine write on a worker; its writers wait for each, so it waits for room. */
  readonly write = (write: Write): Promise<Written> =>
    this.#workers().run({ write }, { wait: true }) as Promise<Written>;

  #workers(): WorkerPool<IndexWorkerTask<Write>, BatchOutcome | Written> {
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
