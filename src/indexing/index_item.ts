/**
 * Store item → search document, shared by indexing jobs and the outbox worker.
 *
 * Both read the item's current state from the store, so replaying an update, or indexing
 * an item twice, always converges on what the store holds.
 */
import type { Quad } from "n3";
import type { Catalog } from "../catalog/catalog.ts";
import type { ServiceConfig } from "../config/schema.ts";
import { ProblemError } from "../http/problem.ts";
import { collectionIndexRef } from "../search/build_engine.ts";
import { buildSearchDocument } from "../search/documents.ts";
import type { CollectionIndexRef, SearchDocument } from "../search/search_engine.ts";
import type { ItemRecord, TripleStore } from "../store/triple_store.ts";

/** A collection as indexing sees it: where its documents go and how they are shaped. */
export interface IndexedCollection {
  uri: string;
  workspace: string;
  ref: CollectionIndexRef;
  context?: Record<string, unknown>;
}

/** Looks a configured collection up by URI; throws 404 `collection-not-found` otherwise. */
export type CollectionResolver = (collection: string) => IndexedCollection;

/** The resolver over the configured catalog. */
export function collectionResolver(config: ServiceConfig, catalog: Catalog): CollectionResolver {
  const cache = new Map<string, IndexedCollection>();
  return (uri) => {
    let indexed = cache.get(uri);
    if (!indexed) {
      const { collection, workspace } = catalog.collection(uri);
      indexed = {
        uri,
        workspace: workspace.uri,
        ref: collectionIndexRef(config, collection),
        context: collection.context,
      };
      cache.set(uri, indexed);
    }
    return indexed;
  };
}

/** What reading one item gave: its document, the news that it is gone, or why it failed. */
export type ItemDocument =
  | { uri: string; outcome: "document"; document: SearchDocument }
  | { uri: string; outcome: "gone" }
  | { uri: string; outcome: "failed"; message: string };

/**
 * Reads an item's current state and builds its document. `record` saves a look-up when
 * the caller already listed the item.
 *
 * Throws only when the store itself fails (a 5xx problem): callers retry those later
 * rather than blaming the item. Anything else wrong with one item is `failed`.
 */
export async function readItemDocument(
  store: TripleStore,
  collection: IndexedCollection,
  uri: string,
  record?: ItemRecord,
): Promise<ItemDocument> {
  try {
    const current = record ?? await store.getItem(collection.uri, uri);
    if (!current) return { uri, outcome: "gone" };
    const quads: Quad[] = [];
    for await (const quad of store.readItemQuads(collection.uri, uri)) quads.push(quad);
    const document = buildSearchDocument({
      uri,
      collection: collection.uri,
      workspace: collection.workspace,
      hash: current.hash,
      modified: current.modified,
      quads,
    }, { context: collection.context });
    return { uri, outcome: "document", document };
  } catch (error) {
    if (error instanceof ProblemError) {
      if (error.status === 404) return { uri, outcome: "gone" };
      if (error.status >= 500) throw error;
    }
    return {
      uri,
      outcome: "failed",
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

/** Reads several items with at most `concurrency` reads in flight; results keep input order. */
export async function readItemDocuments(
  store: TripleStore,
  collection: IndexedCollection,
  items: (string | ItemRecord)[],
  concurrency = 4,
): Promise<ItemDocument[]> {
  const results = new Array<ItemDocument>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index];
      results[index] = typeof item === "string"
        ? await readItemDocument(store, collection, item)
        : await readItemDocument(store, collection, item.uri, item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
