/**
 * Keeping linked labels current: when an item's content changes, the documents of the items
 * whose search fields read it (their `linkedItems` name it) are re-indexed through the
 * outbox. The dependency is looked up in the search indexes, where each document records
 * the resources its fields read; nothing is scanned.
 *
 * Only a change of content cascades: the outbox worker compares a new document's `hash`
 * (the item's content hash) with the one the index held. A document rebuilt because one of
 * its links changed keeps its hash, so the cascade stops there, and two items that link to
 * each other do not re-index each other forever. A deleted item cascades too (the label is
 * gone).
 */
import type { CollectionIndexRef, SearchDocument, SearchEngine } from "../search/search_engine.ts";
import { LINKED_ITEMS_FIELD } from "../fields/field_names.ts";
import type { IndexedCollection } from "./index_item.ts";

/** URIs per search request: well under OpenSearch's 1,024 clauses and any result limit. */
const CHUNK = 500;

/**
 * The URIs among `documents` whose content differs from what `ref` holds (no document, or
 * another hash): ask before the documents are written.
 */
export async function changedContent(
  engine: SearchEngine,
  ref: CollectionIndexRef,
  documents: readonly SearchDocument[],
): Promise<string[]> {
  const previous = new Map<string, unknown>();
  for (let start = 0; start < documents.length; start += CHUNK) {
    const uris = documents.slice(start, start + CHUNK).map((document) => document.uri);
    const found = await engine.search(ref, {
      anyOf: [{ field: "uri", values: uris }],
      size: uris.length,
    });
    for (const hit of found.hits) previous.set(hit.uri, hit.document.hash);
  }
  return documents
    .filter((document) => previous.get(document.uri) !== document.hash)
    .map((document) => document.uri);
}

/**
 * The items of `collections` whose documents read one of `changed`, by collection. Pages
 * through the hits in URI order with a lower bound, so that any number of dependents is
 * found within the engine's result limits.
 */
export async function linkedDependents(
  engine: SearchEngine,
  collections: readonly IndexedCollection[],
  changed: readonly string[],
): Promise<Map<string, string[]>> {
  const dependents = new Map<string, string[]>();
  for (const collection of collections) {
    const found = new Set<string>();
    for (let start = 0; start < changed.length; start += CHUNK) {
      const values = changed.slice(start, start + CHUNK);
      let after: string | undefined;
      for (;;) {
        const page = await engine.search(collection.ref, {
          anyOf: [{ field: LINKED_ITEMS_FIELD, values }],
          ranges: after === undefined ? [] : [{ field: "uri", gte: after }],
          sort: [{ field: "uri", order: "asc" }],
          size: CHUNK,
        });
        const fresh = page.hits.map((hit) => hit.uri).filter((uri) => uri !== after);
        for (const uri of fresh) found.add(uri);
        // A short page is the last one (the bound repeats the previous page's last URI).
        if (fresh.length === 0 || page.hits.length < page.size || page.size === 0) break;
        after = fresh.at(-1);
      }
    }
    if (found.size > 0) dependents.set(collection.uri, [...found]);
  }
  return dependents;
}
