/**
 * Store item → search document, shared by indexing jobs and the outbox worker.
 *
 * Both read the item's current state from the store, so replaying an update, or indexing
 * an item twice, always converges on what the store holds.
 */
import type { Catalog } from "../catalog/catalog.ts";
import type { CollectionConfig, ServiceConfig } from "../config/schema.ts";
import { isErrorKind, isSystemFailure } from "../errors/domain_error.ts";
import { buildSearchDocument } from "../search/documents.ts";
import type { CollectionIndexRef, SearchDocument } from "../search/search_engine.ts";
import type { ItemGraph, ItemRecord, TripleStore } from "../store/triple_store.ts";
import { compileIndexFields, fieldMappings, type IndexField } from "../search/mapped_fields.ts";
import { LinkedGraphLoader, type MappedFields, mappedFieldsOf } from "./linked_graphs.ts";

/** A collection as indexing sees it: where its documents go and how they are shaped. */
export interface IndexedCollection {
  uri: string;
  workspace: string;
  ref: CollectionIndexRef;
  context?: Record<string, unknown>;
  /** The search language of its untagged literals (customer.yml `language`), if any. */
  language?: string;
  /** The collection's own search fields (`index.fields`), paths parsed. */
  fields: IndexField[];
  /** Every configured collection: where the resources its fields link to may be stored. */
  linkableCollections: readonly string[];
  /** Where linked resources were found so far, by collection: asked first next time. */
  linkHits: Map<string, number>;
}

/** Looks a configured collection up by URI; throws not-found `collection-not-found` otherwise. */
export type CollectionResolver = (collection: string) => IndexedCollection;

/** The resolver over the configured catalog. */
export function collectionResolver(config: ServiceConfig, catalog: Catalog): CollectionResolver {
  const cache = new Map<string, IndexedCollection>();
  // A collection made, changed or removed at run time: every entry may be stale (their
  // settings, the list of collections links may point into).
  catalog.onChange(() => cache.clear());
  return (uri) => {
    let indexed = cache.get(uri);
    if (!indexed) {
      const { collection, workspace } = catalog.collection(uri);
      indexed = {
        uri,
        workspace: workspace.uri,
        ref: collectionIndexRef(config, collection),
        context: collection.context,
        language: collection.language,
        fields: compileIndexFields(collection.fields, collection.context),
        linkableCollections: catalog.collections().map((entry) => entry.collection.uri),
        linkHits: new Map(),
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
 * Reads items' current state in one batch read of the store and builds their documents;
 * results keep the input order. `current`: records known current (see
 * {@link TripleStore.readItemGraphs}).
 *
 * Throws only when the store itself fails (a system failure, not the input's): callers retry those later
 * rather than blaming an item. Anything else wrong with one item is `failed` for that item.
 */
export async function readItemDocuments(
  store: TripleStore,
  collection: IndexedCollection,
  uris: string[],
  current?: ReadonlyMap<string, ItemRecord>,
): Promise<ItemDocument[]> {
  let graphs: ItemGraph[];
  try {
    graphs = await store.readItemGraphs(collection.uri, uris, current);
  } catch (error) {
    if (isSystemFailure(error) || uris.length === 1) return [failedOrThrow(uris[0], error)];
    // Find the item that spoils the batch, so that only it fails.
    return (await Promise.all(
      uris.map((uri) => readItemDocuments(store, collection, [uri])),
    )).flat();
  }
  const byUri = new Map(graphs.map((graph) => [graph.record.uri, graph]));
  // One loader for the batch: the linked resources of every item are read together.
  const loader = collection.fields.length > 0
    ? new LinkedGraphLoader(
      store,
      collection.linkableCollections,
      collection.linkHits,
      collection.uri,
    )
    : undefined;
  return await Promise.all(uris.map(async (uri): Promise<ItemDocument> => {
    const graph = byUri.get(uri);
    if (!graph) return { uri, outcome: "gone" };
    try {
      const mapped = loader
        ? await mappedFieldsOf(collection.fields, uri, graph.quads, loader)
        : undefined;
      return { uri, outcome: "document", document: documentOf(collection, graph, mapped) };
    } catch (error) {
      return failedOrThrow(uri, error);
    }
  }));
}

/** Reads one item and builds its document; see {@link readItemDocuments}. */
export async function readItemDocument(
  store: TripleStore,
  collection: IndexedCollection,
  uri: string,
): Promise<ItemDocument> {
  return (await readItemDocuments(store, collection, [uri]))[0];
}

function documentOf(
  collection: IndexedCollection,
  { record, quads }: ItemGraph,
  mapped?: MappedFields,
): SearchDocument {
  return buildSearchDocument({
    uri: record.uri,
    collection: collection.uri,
    workspace: collection.workspace,
    hash: record.hash,
    modified: record.modified,
    quads,
  }, { context: collection.context, mapped, defaultLanguage: collection.language });
}

function failedOrThrow(uri: string, error: unknown): ItemDocument {
  if (isSystemFailure(error)) throw error;
  if (isErrorKind(error, "not-found")) return { uri, outcome: "gone" };
  return {
    uri,
    outcome: "failed",
    message: error instanceof Error ? error.message : String(error),
  };
}

/**
 * The index of a collection: `<indexPrefix><collection.index>` on either engine, so that
 * several services (or test runs) can share one OpenSearch cluster.
 */
export function collectionIndexRef(
  config: ServiceConfig,
  collection: CollectionConfig,
): CollectionIndexRef {
  const fields = fieldMappings(collection.fields);
  return {
    collection: collection.uri,
    indexName: `${indexPrefixOf(config)}${collection.index}`,
    // The collection's explicit mappings override what its fields imply.
    mappings: Object.keys(fields).length === 0 ? collection.mappings : {
      ...collection.mappings,
      properties: {
        ...fields,
        ...(collection.mappings?.properties as Record<string, unknown> | undefined),
      },
    },
  };
}

/** `service.search.indexPrefix`, or its older name `service.search.opensearch.indexPrefix`. */
export function indexPrefixOf(config: ServiceConfig): string {
  const search = config.service.search;
  return search.indexPrefix !== "" ? search.indexPrefix : search.opensearch.indexPrefix;
}
