/**
 * The worker thread of indexing jobs' batches (`src/indexing/index_batch_pool.ts`) on the
 * embedded backends: opens the service's SQLite file with its own connection, reads items
 * through an embedded store and writes documents through an embedded search engine on it,
 * one batch per task. Wiring, like `services.ts`: it picks the engines.
 */
/// <reference lib="deno.worker" />
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { errorToWire } from "./errors/error_wire.ts";
import type { FromWorker, ToWorker } from "./items/worker_pool.ts";
import { type BatchOutcome, type IndexBatch, indexBatchWith } from "./indexing/index_batch.ts";
import type { IndexBatchTask } from "./indexing/index_batch_pool.ts";
import { openLocalDatabase } from "./local_database.ts";
import { LOCAL_DB_FILE } from "./sqlite/local_db.ts";
import { EmbeddedTripleStore } from "./store_embedded/embedded_triple_store.ts";
import { EmbeddedSearchEngine } from "./search_embedded/embedded_search_engine.ts";
import type { GroupCommitOptions } from "./store/group_commit.ts";
import type { SearchLimits } from "./search/clamp.ts";

/** What the wiring posts to each worker first. */
export interface IndexBatchWorkerSetup {
  /** The data directory (`service.data.dir`) of an existing file. */
  dataDir: string;
  groupCommit: GroupCommitOptions;
  limits: SearchLimits;
}

/** The batches' runner, or why the file could not be opened (every task answers that). */
let indexBatch: IndexBatch | undefined;
let openFailure: unknown;

/** The worker's connection: closed on the pool's shutdown, so that the service's is the last. */
let db: DatabaseSync | undefined;

function open(setup: IndexBatchWorkerSetup): IndexBatch {
  db = openLocalDatabase(setup.dataDir);
  const store = new EmbeddedTripleStore(db, join(setup.dataDir, LOCAL_DB_FILE), setup.groupCommit);
  // Clamp warnings are the request thread's to log: a job's writes search nothing.
  const engine = new EmbeddedSearchEngine(db, { limits: setup.limits, warn: () => {} });
  return indexBatchWith(store, engine);
}

self.onmessage = async (event: MessageEvent<ToWorker<IndexBatchTask>>) => {
  const message = event.data;
  if ("close" in message) {
    // The last connection to close copies the WAL back into the file and truncates both;
    // a worker's left open would keep the service's from being the last.
    db?.close();
    db = undefined;
    indexBatch = undefined;
    openFailure = new Error("The indexing worker is closed.");
    self.postMessage({ closed: true } satisfies FromWorker<BatchOutcome>);
    return;
  }
  if ("init" in message) {
    try {
      indexBatch = open(message.init as IndexBatchWorkerSetup);
    } catch (error) {
      openFailure = error;
    }
    return;
  }
  let answer: FromWorker<BatchOutcome>;
  try {
    if (indexBatch === undefined) throw openFailure;
    const { collection, target, uris } = message.task;
    answer = { id: message.id, ok: true, value: await indexBatch(collection, target, uris) };
  } catch (error) {
    answer = { id: message.id, ok: false, error: errorToWire(error) };
  }
  self.postMessage(answer);
};
