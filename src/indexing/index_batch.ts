/**
 * One batch of an indexing job: the items' current state read from the store, their
 * documents built and written to the job's index, the documents of items that are gone
 * removed. The job runner (`job_runner.ts`) runs batches one after the other, two at a time;
 * each runs here on the runner's thread, or in a worker thread with SQLite connections of its
 * own (`index_batch_pool.ts`).
 */
import type { SearchEngine } from "../search/search_engine.ts";
import { type IndexTarget, isRebuildTarget } from "../search/search_engine.ts";
import type { TripleStore } from "../store/triple_store.ts";
import { type IndexedCollection, readItemDocuments } from "./index_item.ts";

/** What one batch did. */
export interface BatchOutcome {
  /** Documents written. */
  indexed: number;
  /** Documents removed because their items are gone. */
  deleted: number;
  /** Items whose document could not be built or that the engine refused, with why. */
  failures: { uri: string; message: string }[];
}

/**
 * Indexes the items `uris` of `collection` into `target`. Throws when the store or the
 * engine itself fails (the job fails); one item's trouble is one of its `failures`.
 */
export type IndexBatch = (
  collection: IndexedCollection,
  target: IndexTarget,
  uris: string[],
) => Promise<BatchOutcome>;

/** Batches read from `store` and written to `engine`, on the calling thread. */
export function indexBatchWith(store: TripleStore, engine: SearchEngine): IndexBatch {
  return async (collection, target, uris) => {
    const results = await readItemDocuments(store, collection, uris);
    const outcome: BatchOutcome = { indexed: 0, deleted: 0, failures: [] };
    const documents = [];
    const gone: string[] = [];
    for (const result of results) {
      if (result.outcome === "document") documents.push(result.document);
      else if (result.outcome === "gone") gone.push(result.uri);
      else outcome.failures.push({ uri: result.uri, message: result.message });
    }
    if (documents.length > 0) {
      const written = await engine.upsert(target, documents);
      outcome.indexed = written.succeeded;
      for (const { uri, message } of written.failed) outcome.failures.push({ uri, message });
    }
    // A rebuilt index never held them; the collection's index may.
    if (gone.length > 0 && !isRebuildTarget(target)) {
      outcome.deleted = (await engine.remove(target, gone)).succeeded;
    }
    return outcome;
  };
}
