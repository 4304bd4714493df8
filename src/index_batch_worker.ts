/**
 * The worker thread of indexing jobs' batches (`src/indexing/index_batch_pool.ts`) on the
 * embedded backends: opens the service's SQLite file with its own connection, reads items
 * through an embedded store and writes documents through an embedded search engine on it,
 * one batch per task; and applies the index outbox's batches the same way, on behalf of the
 * request thread's engine (its rebuilds written to, its held facet values' changes answered).
 * Wiring, like `services.ts`: it picks the engines.
 */
/// <reference lib="deno.worker" />
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { errorToWire } from "./errors/error_wire.ts";
import type { FromWorker, ToWorker } from "./items/worker_pool.ts";
import { type BatchOutcome, type IndexBatch, indexBatchWith } from "./indexing/index_batch.ts";
import type { IndexWorkerTask } from "./indexing/index_batch_pool.ts";
import { openLocalDatabase } from "./local_database.ts";
import { LOCAL_DB_FILE } from "./sqlite/local_db.ts";
import { EmbeddedTripleStore } from "./store_embedded/embedded_triple_store.ts";
import {
  EmbeddedSearchEngine,
  type EngineWriteRequest,
} from "./search_embedded/embedded_search_engine.ts";
import type { FacetChanges, WriteContext } from "./search_embedded/held_facets.ts";
import {
  type DocumentWrites,
  type OutboxBatchOutcome,
  type OutboxBatchTask,
  outboxBatchWith,
} from "./indexing/outbox_batch.ts";
import type { BulkResult } from "./search/search_engine.ts";
import type { GroupCommitOptions } from "./store/group_commit.ts";
import type { SearchLimits } from "./search/clamp.ts";

/** What the wiring posts to each worker first. */
export interface IndexBatchWorkerSetup {
  /** The data directory (`service.data.dir`) of an existing file. */
  dataDir: string;
  groupCommit: GroupCommitOptions;
  limits: SearchLimits;
}

/** An outbox batch, with the request thread's engine's context for its writes. */
export interface OutboxWork {
  task: OutboxBatchTask;
  context: WriteContext;
}

/** What an outbox batch did, and the changes of the facet values the request thread holds. */
export type OutboxApplied = OutboxBatchOutcome & { facets: FacetChanges[] };

/** The engines on the worker's connection, or why the file could not be opened (every task answers that). */
let engines:
  | { store: EmbeddedTripleStore; engine: EmbeddedSearchEngine; indexBatch: IndexBatch }
  | undefined;
let openFailure: unknown;

/** The worker's connection: closed on the pool's shutdown, so that the service's is the last. */
let db: DatabaseSync | undefined;

function open(setup: IndexBatchWorkerSetup): NonNullable<typeof engines> {
  db = openLocalDatabase(setup.dataDir);
  const store = new EmbeddedTripleStore(db, join(setup.dataDir, LOCAL_DB_FILE), setup.groupCommit);
  // Clamp warnings are the request thread's to log: a job's writes search nothing.
  const engine = new EmbeddedSearchEngine(db, { limits: setup.limits, warn: () => {} });
  return { store, engine, indexBatch: indexBatchWith(store, engine) };
}

/** Applies an outbox batch here, its writes made on the request thread's engine's behalf. */
async function applyOutbox({ task, context }: OutboxWork): Promise<OutboxApplied> {
  const { store, engine } = engines!;
  const facets: FacetChanges[] = [];
  const write = async (request: EngineWriteRequest): Promise<BulkResult> => {
    const written = await engine.writeHere({ ...request, ...context });
    facets.push(...written.facets);
    return written.result;
  };
  const writes: DocumentWrites = {
    upsert: (target, documents) => write({ kind: "upsert", target, documents }),
    remove: (target, uris) => write({ kind: "remove", target, uris }),
  };
  return { ...await outboxBatchWith(store, engine, writes)(task), facets };
}

type Answer = BatchOutcome | OutboxApplied;

self.onmessage = async (event: MessageEvent<ToWorker<IndexWorkerTask<OutboxWork>>>) => {
  const message = event.data;
  if ("close" in message) {
    // The last connection to close copies the WAL back into the file and truncates both;
    // a worker's left open would keep the service's from being the last.
    db?.close();
    db = undefined;
    engines = undefined;
    openFailure = new Error("The indexing worker is closed.");
    self.postMessage({ closed: true } satisfies FromWorker<Answer>);
    return;
  }
  if ("init" in message) {
    try {
      engines = open(message.init as IndexBatchWorkerSetup);
    } catch (error) {
      openFailure = error;
    }
    return;
  }
  let answer: FromWorker<Answer>;
  try {
    if (engines === undefined) throw openFailure;
    const { task } = message;
    const value = "outbox" in task
      ? await applyOutbox(task.outbox)
      : await engines.indexBatch(task.batch.collection, task.batch.target, task.batch.uris);
    answer = { id: message.id, ok: true, value };
  } catch (error) {
    answer = { id: message.id, ok: false, error: errorToWire(error) };
  }
  self.postMessage(answer);
};
