/**
 * Whether the import's collection holds the item an import could not create, and whether
 * with the very graph the import brings: an import then reports it as unchanged (same
 * content) or skipped (other content). Items are keyed by (collection, IRI), so another
 * collection's item of the same IRI never stands in the way (`store/item_keys.ts`).
 */
import type { Quad } from "n3";
import type { GraphHasher, ItemService } from "../items/item_service.ts";
import type { ItemRecord } from "../store/triple_store.ts";
import { chooseItemUri } from "../items/item_uri.ts";
import { distinctQuads } from "../rdf/dedupe.ts";
import { isProblem } from "../errors/domain_error.ts";

/** Whether the import's collection holds an item's IRI. */
export type Holding =
  /** It does; `same` when with the same graph (same hash). */
  | { where: "here"; same: boolean }
  /** It does not (deleted since the write was refused). */
  | { where: "unknown" };

/** What finding a holder needs. */
export interface HolderLookup {
  items: ItemService;
  hash: GraphHasher;
}

/**
 * Whether `collection` holds `uri`, and with `quads` (the graph the import brings, compared
 * only when it does).
 */
export async function holdingOf(
  lookup: HolderLookup,
  collection: string,
  uri: string,
  quads: Quad[],
): Promise<Holding> {
  const here = await recordIn(lookup.items, collection, uri);
  if (here) return { where: "here", same: here.hash === await sameHash(lookup.hash, uri, quads) };
  return { where: "unknown" };
}

/** The item's record in `collection`, or undefined. */
async function recordIn(
  items: ItemService,
  collection: string,
  uri: string,
): Promise<ItemRecord | undefined> {
  try {
    return await items.record(collection, uri);
  } catch (error) {
    // A deleted item (410 on a store with history) is held nowhere, as a missing one.
    if (isProblem(error, "item-not-found", "item-deleted", "collection-not-found")) {
      return undefined;
    }
    throw error;
  }
}

/** The hash the item service would store for `quads` as item `uri` (its steps, in order). */
function sameHash(hash: GraphHasher, uri: string, quads: Quad[]): Promise<string> {
  const distinct = distinctQuads(quads);
  // The same array when nothing was removed: a hash computed ahead for it still applies.
  const graph = distinct.length === quads.length ? quads : distinct;
  return hash(chooseItemUri(graph, uri, undefined).quads);
}
