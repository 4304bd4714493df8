/**
 * An item's record in the SPARQL store's metadata graph (collection, item, graph, hash,
 * triple count, created and modified times) as its reads and writes see it.
 *
 * A record's subject is the item's key (`store/item_keys.ts`): the item's IRI for the first
 * collection that held it (every record written before items were keyed by collection is
 * such a record), or `collectionItemKey(collection, iri)` for an item created while another
 * collection's record had the IRI. `rcs:item` names the item's IRI on every record
 * (`record_upgrade.ts` adds it to older ones), so a listing reads `?key rcs:item ?item`;
 * a read of one item names both keys it may have ({@link recordKeys}), which only one of
 * the collection's records can.
 */
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import { iriToSparql } from "../sparql_protocol/terms.ts";
import { collectionItemKey } from "../store/item_keys.ts";
import type { ItemRecord } from "../store/triple_store.ts";

/**
 * The subjects the record of `collection`'s item `uri` may have, as SPARQL: the IRI first,
 * then the key derived from both. Only a record of `collection` at either is the item's.
 */
export function recordKeys(collection: string, uri: string): [string, string] {
  return [iriToSparql(uri), iriToSparql(collectionItemKey(collection, uri))];
}

/** The record from a row (or answer) that binds `hash`, `count`, `created` and `modified`. */
export function recordFromRow(collection: string, uri: string, row: SparqlRow): ItemRecord {
  return {
    collection,
    uri,
    hash: row.get("hash")?.value ?? "",
    tripleCount: Number(row.get("count")?.value ?? 0),
    created: row.get("created")?.value ?? "",
    modified: row.get("modified")?.value ?? "",
  };
}

/** The fields of a record as a read binds them: an answer that lacks one was cut. */
export const RECORD_FIELDS = ["hash", "count", "created", "modified"] as const;

/** Whether two reads of a record found the same version. */
export function sameVersion(a: ItemRecord | undefined, b: ItemRecord): boolean {
  return a !== undefined && a.hash === b.hash && a.modified === b.modified &&
    a.tripleCount === b.tripleCount;
}
