/**
 * One collection's share of an index outbox claim, applied: the items' current state read and
 * their documents built, the items whose search fields read them queued again when their
 * content changed or they are gone, then the documents written and the gone ones removed.
 *
 * The outbox worker (`outbox_worker.ts`) keeps the claim's books (leases, dead letters,
 * backoff); this is the work itself, run on the worker's thread, or on an indexing worker
 * thread with SQLite connections of its own when both engines live in the SQLite file
 * (`index_batch_pool.ts`), so that the request thread only claims and completes.
 */
import type { ErrorKind } from "../errors/domain_error.ts";
import type { SearchDocument, SearchEngine } from "../search/search_engine.ts";
import type { ItemRecord, TripleStore } from "../store/triple_store.ts";
import { type IndexedCollection, readItemDocuments } from "./index_item.ts";
import { changedContent, linkedDependents } from "./linked_updates.ts";

/** What to apply. */
export interface OutboxBatchTask {
  collection: IndexedCollection;
  uris: string[];
  /** The collections with search fields, which may read these items (resolved by the caller). */
  linking: IndexedCollection[];
  /** Epoch milliseconds after which nothing may be written: the claim's lease, less a margin. */
  deadline: number;
}

/** What applying a batch did, for the outbox worker's books. */
export interface OutboxBatchOutcome {
  /** Items whose documents the engine refused for now: their entries stay. */
  retry: string[];
  /** Items whose documents the engine refuses for good: dead letters. */
  refused: { uri: string; kind: ErrorKind; message: string }[];
  /** Items whose documents could not be built, with why. */
  unbuilt: { uri: string; message: string }[];
  /** Nothing was written: too little of the lease was left once the documents were built. */
  leaseRanShort: boolean;
}

/** Applies one batch; `current`: records the claim found current (see `readItemDocuments`). */
export type OutboxBatch = (
  task: OutboxBatchTask,
  current?: ReadonlyMap<string, ItemRecord>,
) => Promise<OutboxBatchOutcome>;

/** Where a batch's documents are written: the engine itself, or a stand-in for it. */
export type DocumentWrites = Pick<SearchEngine, "upsert" | "remove">;

/**
 * Batches read from `store`, checked against `engine`'s index (linked dependents) and written
 * through `writes` (the engine unless given), on the calling thread.
 */
export function outboxBatchWith(
  store: TripleStore,
  engine: SearchEngine,
  writes: DocumentWrites = engine,
): OutboxBatch {
  return async ({ collection, uris, linking, deadline }, current) => {
    const outcome: OutboxBatchOutcome = {
      retry: [],
      refused: [],
      unbuilt: [],
      leaseRanShort: false,
    };
    const documents: SearchDocument[] = [];
    const gone: string[] = [];
    for (const result of await readItemDocuments(store, collection, uris, current)) {
      if (result.outcome === "document") documents.push(result.document);
      else if (result.outcome === "gone") gone.push(result.uri);
      else outcome.unbuilt.push({ uri: result.uri, message: result.message });
    }
    // Before the write: afterwards the index could no longer tell what changed, and a retry
    // of this batch would not cascade. The dependents read the store, not the index.
    if (linking.length > 0) {
      const changed = [...await changedContent(engine, collection.ref, documents), ...gone];
      if (changed.length > 0) {
        for (const [dependent, items] of await linkedDependents(engine, linking, changed)) {
          await store.outbox.enqueue(dependent, items);
        }
      }
    }
    if (Date.now() >= deadline) return { ...outcome, leaseRanShort: true };
    const options = { deadline, findRebuilds: true };
    const results = [];
    if (documents.length > 0) results.push(await writes.upsert(collection.ref, documents, options));
    if (gone.length > 0) results.push(await writes.remove(collection.ref, gone, options));
    for (const failure of results.flatMap((result) => result.failed)) {
      if (failure.retryable) outcome.retry.push(failure.uri);
      else outcome.refused.push({ uri: failure.uri, kind: failure.kind, message: failure.message });
    }
    return outcome;
  };
}
