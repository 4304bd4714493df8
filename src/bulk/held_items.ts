/**
 * Where the IRI of an item an import could not create lives, and whether the item there
 * holds the very graph the import brings: an import then reports an item of its collection
 * with the same content as unchanged, one with other content as skipped, and an item of
 * another collection as a refusal naming that collection (an IRI names one item in the
 * whole store, so the import cannot put it in its own collection).
 */
import type { Quad } from "n3";
import type { Catalog } from "../catalog/catalog.ts";
import type { GraphHasher, ItemService } from "../items/item_service.ts";
import type { ItemRecord } from "../store/triple_store.ts";
import { chooseItemUri } from "../items/item_uri.ts";
import { distinctQuads } from "../rdf/dedupe.ts";
import { isProblem } from "../errors/domain_error.ts";

/** Where an item's IRI is held. */
export type Holding =
  /** In the import's collection; `same` when with the same graph (same hash). */
  | { where: "here"; same: boolean }
  /** In another collection. */
  | { where: "elsewhere"; collection: string }
  /** Nowhere the catalogue lists (deleted since, or a collection no longer configured). */
  | { where: "unknown" };

/** What finding a holder needs. */
export interface HolderLookup {
  items: ItemService;
  catalog: Catalog;
  hash: GraphHasher;
}

/**
 * Where `uri` is held, the import's `collection` first. `quads` is the graph the import
 * brings (compared only when its collection holds the IRI). `refusal` is the store's
 * `item-exists` or `item-not-found`: when it carries the holding collection
 * (`extensions.collection`), that is believed; otherwise every collection of the catalogue
 * is asked, which costs one item read each (the conflict is the rare case).
 */
export async function holdingOf(
  lookup: HolderLookup,
  collection: string,
  uri: string,
  quads: Quad[],
  refusal?: unknown,
): Promise<Holding> {
  const here = await recordIn(lookup.items, collection, uri);
  if (here) return { where: "here", same: here.hash === await sameHash(lookup.hash, uri, quads) };
  const told = (refusal as { extensions?: Record<string, unknown> })?.extensions?.collection;
  if (typeof told === "string" && told !== collection) {
    return { where: "elsewhere", collection: told };
  }
  for (const entry of lookup.catalog.collections()) {
    const other = entry.collection.uri;
    if (other === collection) continue;
    if (await recordIn(lookup.items, other, uri)) return { where: "elsewhere", collection: other };
  }
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
    if (isProblem(error, "item-not-found", "collection-not-found")) return undefined;
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
