/**
 * The catalog's collections as one caller may see them, through the one decision of
 * `src/catalog/access_policy.ts`; set on every request by the app (`collection_access.ts`
 * reads it).
 */
import type { Catalog } from "../catalog/catalog.ts";
import {
  type CollectionRight,
  mayAccess,
  type Principal,
  readableCollections,
} from "../catalog/access_policy.ts";

/** The catalog as one caller may see it. */
export class CollectionGate {
  readonly #catalog: Catalog;

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  /** The catalog seen through this gate. */
  get catalog(): Catalog {
    return this.#catalog;
  }

  /** Whether `principal` may `right` the collection (false for an unknown one). */
  may(principal: Principal, uri: string, right: CollectionRight): boolean {
    if (!this.#catalog.knows(uri)) return false;
    return mayAccess(principal, this.#catalog.collection(uri).collection, right);
  }

  /** The collections `principal` may read, or undefined for all of them. */
  readable(principal: Principal): string[] | undefined {
    return readableCollections(
      principal,
      this.#catalog.collections().map((entry) => entry.collection),
    );
  }
}
