/**
 * What the store records about an item beside its triples. Its own file because both the
 * TripleStore contract and the index outbox name it (triple_store.ts re-exports it).
 */

/** What the store knows about one item besides its triples. */
export interface ItemRecord {
  collection: string;
  uri: string;
  /** SHA-256 of the RDFC-1.0 canonical form: the item's ETag. */
  hash: string;
  tripleCount: number;
  /** ISO 8601 timestamps. */
  created: string;
  modified: string;
}
