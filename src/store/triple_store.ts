/**
 * The triple store contract: where item graphs live.
 *
 * Two engines, each in a folder beside this one: `src/store_embedded/` (SQLite file +
 * in-process SPARQL engine) and `src/store_sparql/` (any SPARQL 1.1 endpoint). Routes and
 * domain code only see this interface.
 */
import type { Quad } from "n3";
import type { IndexOutbox } from "./index_outbox.ts";
import type { ItemRecord } from "./item_record.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../sparql_protocol/query_types.ts";
import type { BackendHealth } from "../backend/backend_health.ts";
import type { ItemHistory, ItemOperation } from "./item_history.ts";
import type { ChangeFeed } from "./change_feed.ts";

export type { ItemRecord } from "./item_record.ts";

/**
 * One version of an item, as {@link TripleStore.readItem} returns it: a record and the
 * triples of that same version, so the record's hash (the ETag) is the hash of the quads.
 */
export interface ItemRead {
  record: ItemRecord;
  /** All triples of one subject next to each other (serialisers rely on it). */
  quads: AsyncIterable<Quad>;
}

/** An item's record with its whole graph, as {@link TripleStore.readItemGraphs} returns it. */
export interface ItemGraph {
  record: ItemRecord;
  quads: Quad[];
}

/** A whole-graph write of one item. `quads` are in the default graph. */
export interface ItemWrite {
  collection: string;
  uri: string;
  quads: Quad[];
  hash: string;
  /** Part of a bulk load: stored as any write, but not kept among the graphs readers use. */
  bulk?: boolean;
  /**
   * Who writes (`item_history.ts`: `token:NAME`, `user:SUBJECT`, `local`), recorded in the
   * item's history by a store that keeps one; `local` when unset.
   */
  principal?: string;
  /** What the write is for the history; `create` / `update` by the call when unset. */
  operation?: ItemOperation;
}

/** Who deletes, for the history of a store that keeps one (`local` when unset). */
export interface DeleteOrigin {
  principal?: string;
}

/** Optimistic concurrency: the write succeeds only if the stored hash equals this. */
export interface WriteCondition {
  ifMatch?: string;
}

/**
 * Item graphs keyed by (collection, item URI). The same URI may be an item of several
 * collections, each its own named graph: named by the URI for the first collection to hold
 * it, by a key derived from both for the others (`item_keys.ts`).
 *
 * Errors are DomainErrors (`src/errors/`): not-found `item-not-found`, conflict `item-exists`,
 * precondition-failed `precondition-failed`, unavailable `store-unavailable`, backend-failed
 * `store-error`.
 */
export interface TripleStore {
  readonly kind: "embedded" | "sparql";
  /**
   * Whether other service instances may use this store at the same time (a SPARQL endpoint
   * several instances name), rather than this process alone (the embedded SQLite file). On a
   * shared store another instance may change the catalog, hold jobs and die, and run on a
   * clock of its own: the wiring polls the catalog, sweeps jobs whose lease ran out and allows
   * for clocks that differ only then.
   */
  readonly sharedAcrossInstances: boolean;
  /**
   * The index outbox of this store. Every applied create, replace and delete adds an entry
   * for its item in the same atomic write (see `index_outbox.ts`).
   */
  readonly outbox: IndexOutbox;
  /**
   * The versions of every item, written in each write's own atomic write
   * (`item_history.ts`): the SQLite table of the embedded store, the metadata graph of the
   * SPARQL store.
   */
  readonly history: ItemHistory;
  /**
   * Every committed item write, per collection in commit order, written in each write's own
   * atomic write (`change_feed.ts`); absent on a store that keeps none.
   */
  readonly changes?: ChangeFeed;
  /** Metadata of an item, or undefined when the collection holds no such item. */
  getItem(collection: string, uri: string): Promise<ItemRecord | undefined>;
  /**
   * One version of the item: its record and its triples, read together so that no write can
   * come between them (a record read first and the graph after could be a version apart);
   * not-found `item-not-found` if the collection holds no such item. The quads stream: a large
   * item is never held whole in memory by the embedded store, which keeps the item's
   * snapshot open until the caller has iterated `quads` to its end or stopped.
   *
   * `known` is the item's record when the caller has just read it (for a conditional
   * request): a cache that holds that version answers with it and its graph. The stores read
   * their own record, which may be newer than `known`.
   */
  readItem(collection: string, uri: string, known?: ItemRecord): Promise<ItemRead>;
  /**
   * Several items' records and whole graphs at once, for batch readers such as indexing;
   * items the collection does not hold are left out. Each graph is in no particular order.
   *
   * `current` holds records the caller knows to be the items' current versions (the outbox
   * read them with its claim): a cache that holds a graph under such a record's hash
   * answers with that record and graph instead of reading the item back.
   */
  readItemGraphs(
    collection: string,
    uris: string[],
    current?: ReadonlyMap<string, ItemRecord>,
  ): Promise<ItemGraph[]>;
  /** Creates an item; conflict if the collection holds the URI already. Atomic. */
  createItem(write: ItemWrite): Promise<ItemRecord>;
  /** Replaces an item's whole graph; not-found if missing, precondition-failed if `ifMatch` differs. Atomic. */
  replaceItem(write: ItemWrite, condition?: WriteCondition): Promise<ItemRecord>;
  /** Deletes an item; not-found if missing, precondition-failed if `ifMatch` differs. Atomic. */
  deleteItem(
    collection: string,
    uri: string,
    condition?: WriteCondition,
    origin?: DeleteOrigin,
  ): Promise<void>;
  /** Every item of a collection, in URI order. */
  listItems(collection: string): AsyncIterable<ItemRecord>;
  /** All triples of every item of a collection (for initialise rules with `from: store`). */
  collectionQuads(collection: string): AsyncIterable<Quad>;
  /** A read-only SPARQL query over all item graphs (union default graph). */
  query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult>;
  health(): Promise<BackendHealth>;
  close(): Promise<void>;
}
