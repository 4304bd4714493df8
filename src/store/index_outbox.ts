/**
 * The index outbox: which items' search documents must be brought in step with the store.
 *
 * It belongs to the system of record. Every item write adds an entry in the same atomic
 * write as the item (the SQLite transaction; the one SPARQL Update request), so an entry
 * exists exactly when a write may have changed the item, whichever instance made it and
 * whatever happens to that instance afterwards. An entry names only the item: whoever
 * applies it reads the item's current state, so applying an entry twice, or late, or in
 * any order, converges on what the store holds.
 *
 * Any number of workers (one per service instance) drain one outbox. A worker claims
 * entries with a lease; no entry of an item whose entries another worker holds under a
 * live lease is handed out, so two workers never write the same item's document from two
 * different reads at once (the slower one could land last with the older state). Entries
 * of a worker that died come free again when its lease ends.
 *
 * Implementations: `sqlite_index_outbox.ts` (the embedded store's table, one process) and
 * `sparql_index_outbox.ts` (entries in the SPARQL store's metadata graph, shared).
 */

import type { ItemRecord } from "./item_record.ts";

/** One entry: the item whose document must be brought in step. */
export interface OutboxEntry {
  /** Opaque, unique per entry. */
  id: string;
  collection: string;
  uri: string;
  /**
   * The item's record as the claim found it, when the outbox can tell at no extra cost (the
   * SPARQL outbox reads it in the claim's own query). A graph known under this record's
   * hash is the item's current content as of the claim, so the worker may index it without
   * reading the item back; later writes add entries of their own.
   */
  current?: ItemRecord;
}

/** Entries handed to one worker until `leaseUntil` (epoch milliseconds). */
export interface OutboxClaim {
  entries: OutboxEntry[];
  leaseUntil: number;
}

/** The outbox of one store; see the module comment. */
export interface IndexOutbox {
  /**
   * Leases up to `limit` of the oldest entries that no live lease covers, together with
   * every other free entry of the same items, for `leaseMs`.
   */
  claim(limit: number, leaseMs: number): Promise<OutboxClaim>;
  /** Removes applied entries (entries already gone are ignored). */
  complete(ids: string[]): Promise<void>;
  /** Ends the lease of entries that could not be applied, so they are tried again. */
  release(ids: string[]): Promise<void>;
  /** Adds entries that no write made (an indexing job re-queues items it may have missed). */
  enqueue(collection: string, uris: Iterable<string>): Promise<void>;
  /** Entries waiting, leased or not, of every instance. */
  backlog(): Promise<number>;
}
