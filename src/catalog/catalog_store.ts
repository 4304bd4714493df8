/**
 * Where workspaces and collections made at run time (the admin API) are kept: beside the
 * items, so that every instance sharing a store sees the same catalog, as they share jobs.
 * customer.yml's workspaces and collections are not stored: each instance reads them from
 * its own file (see `catalog.ts`).
 *
 * A record holds the settings as the API took them (customer.yml's shape), re-read through
 * the configuration's schema whenever the catalog is loaded. `revision` changes with every
 * write (the ETag of a collection); `version()` changes with every write of any record, so
 * that an instance can tell cheaply whether its copy is current.
 */

/** One stored workspace or collection. */
export interface CatalogRecord {
  kind: "workspace" | "collection";
  uri: string;
  /** A collection's workspace; absent for a workspace. */
  workspace?: string;
  /** The settings in customer.yml's shape (JSON). */
  settings: Record<string, unknown>;
  /** Changes with every write of this record. */
  revision: string;
}

/** What a guarded replace found. */
export type ReplaceOutcome = "replaced" | "missing" | "stale";

/** The stored part of the catalog. Errors are DomainErrors of the store. */
export interface CatalogStore {
  /** A token that changes whenever any record is written or removed: one small read. */
  version(): Promise<string>;
  /** Every record, workspaces first, each kind in the order of creation. */
  list(): Promise<CatalogRecord[]>;
  /** Adds a record unless one with its URI exists; false when it does. */
  insert(record: CatalogRecord): Promise<boolean>;
  /**
   * Replaces the record of `record.uri` when it exists and (with `expectedRevision`) its
   * revision is that one.
   */
  replace(record: CatalogRecord, expectedRevision?: string): Promise<ReplaceOutcome>;
  /** Removes a record; false when there was none. */
  remove(uri: string): Promise<boolean>;
}

/** A new revision (also a new catalog version). */
export function newRevision(): string {
  return crypto.randomUUID();
}
