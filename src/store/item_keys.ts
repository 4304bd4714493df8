/**
 * How a store names an item's graph when several collections hold items of one IRI.
 *
 * An item is keyed by (collection, IRI): the same IRI may be an item of several collections,
 * each its own graph. The first collection to hold an IRI names the item's graph by the IRI
 * itself, as every item was named before items were keyed by collection, so that existing
 * data keeps its graph names and `GRAPH ?g` answers the item's IRI in the common case. An
 * item created while another collection's item already has that graph name gets the name
 * {@link collectionItemKey} derives from both; the name is chosen once, when the item is
 * created, and kept for the item's life. The `/sparql` collections graph says which item and
 * collection each graph is (`sparql_protocol/collections_graph.ts`).
 */

import { METADATA_NAMESPACE } from "../sparql_protocol/service_vocabulary.ts";

const KEY_PREFIX = `${METADATA_NAMESPACE}item:`;

/**
 * The key (and, filled into a store's graph template, the graph name) of the item `uri` of
 * `collection` when the IRI's own name is another collection's. Both parts are
 * percent-encoded, so no two pairs share a key and the key is a valid IRI.
 */
export function collectionItemKey(collection: string, uri: string): string {
  return `${KEY_PREFIX}${encodeURIComponent(collection)}:${encodeURIComponent(uri)}`;
}

/** Whether `iri` is in the service's own namespace, which no item may be named in. */
export function isServiceIri(iri: string): boolean {
  return iri.startsWith(METADATA_NAMESPACE);
}

/** Whether `iri` is a key {@link collectionItemKey} made: an item graph's name, not a record's. */
export function isCollectionItemKey(iri: string): boolean {
  return iri.startsWith(KEY_PREFIX);
}
