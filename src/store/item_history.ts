/**
 * Item history: every version of an item, kept by the store that holds the item.
 *
 * An item is keyed by (collection, IRI) (`item_keys.ts`), and so is its history: versions are
 * numbered 1, 2, … per item, never reused (a deleted item created again goes on counting).
 * A store that keeps history writes the version in the same atomic write as the item, so a
 * refused or failed write leaves no version and an acknowledged one always has one. A delete
 * is a version too, without content: it is what tells a deleted item from one that never was.
 *
 * Its own contract beside {@link TripleStore}, which names it as `history`: every store keeps
 * one (`store_embedded/sqlite_item_history.ts`, `store_sparql/sparql_item_history.ts`).
 */
import type { Quad } from "n3";

/** What a write did to its item. */
export type ItemOperation = "create" | "update" | "delete" | "restore" | "import";

/** Every operation, for schemas and checks. */
export const ITEM_OPERATIONS: readonly ItemOperation[] = [
  "create",
  "update",
  "delete",
  "restore",
  "import",
];

/**
 * Who made a write and what it was. The principal is `token:NAME`, `user:SUBJECT` (a JWT's
 * subject) or `local` (no security configured, or the service itself).
 */
export interface WriteOrigin {
  principal: string;
  operation: ItemOperation;
}

/** Principal recorded when a write names none (the service's own callers, tests). */
export const LOCAL_PRINCIPAL = "local";

/** What a write adds to its item's history (each store writes it in the write's own way). */
export interface VersionWrite {
  collection: string;
  uri: string;
  /**
   * The graph as reads will serve it, with its hash (and its triple count, when the store
   * counted it otherwise than `quads.length`); undefined for a delete.
   */
  graph?: { hash: string; quads: readonly Quad[]; count?: number };
  /** When the write was made (ISO 8601): the version's time unless the last one is later. */
  time: string;
  principal: string;
  operation: ItemOperation;
}

/** One version of an item, as the history lists it. */
export interface ItemVersion {
  collection: string;
  uri: string;
  /** 1, 2, … per item, never reused. */
  version: number;
  /** The version's hash (its ETag, RDFC-1.0 SHA-256); null for a delete, which has no graph. */
  hash: string | null;
  tripleCount: number;
  /** When it was written (ISO 8601); never earlier than the item's version before it. */
  time: string;
  principal: string;
  operation: ItemOperation;
}

/** A version with its triples (none for a delete). */
export interface VersionContent {
  version: ItemVersion;
  quads: Quad[];
}

/** Which versions a listing gives: newest first, at most `limit`, below `before` when set. */
export interface VersionPageRequest {
  limit: number;
  before?: number;
}

/**
 * Which versions a pruning pass keeps of each item: its `count` newest, or those written at
 * or after `since`. Whatever the rule, an item's newest version is kept (for a deleted item,
 * its delete: what tells a deleted item from one that never was).
 */
export type PruneRule = { keepLast: number } | { keepSince: Date };

/** Items of a collection, a page at a time, in URI order (code point order). */
export interface ItemPage {
  /** Start after this URI; from the first when unset. */
  after?: string;
  /** Most items the page covers. */
  limit: number;
}

/** Items counted on one page. */
export interface ItemCount {
  items: number;
  /** The last URI counted: the next page's `after`; undefined when none were left. */
  last?: string;
}

/** What one pruning step did. */
export interface PruneStep {
  /** Items (with versions) the step went through. */
  items: number;
  /** Versions it removed. */
  removed: number;
  /** The last URI it went through: the next step's `after`; undefined when none were left. */
  last?: string;
}

/** The versions current at one instant, a page of items at a time. */
export interface StatePage {
  /** Each item's version then, with its triples; items deleted then or not yet written left out. */
  versions: VersionContent[];
  /** The last URI the page went through: the next page's `after`; undefined at the end. */
  last?: string;
}

/** The history a store keeps of its items. */
export interface ItemHistory {
  /** Versions of the item, newest first (empty when it never had one). */
  list(collection: string, uri: string, page: VersionPageRequest): Promise<ItemVersion[]>;
  /** One version with its triples, or undefined when the item has no such version. */
  read(collection: string, uri: string, version: number): Promise<VersionContent | undefined>;
  /**
   * The version current at `instant`: the newest written at or before it, or undefined when
   * the item had none yet. It may be a delete (the item did not exist then).
   */
  at(collection: string, uri: string, instant: Date): Promise<ItemVersion | undefined>;
  /**
   * The item's newest version, or undefined when it never had one: a `delete` one means the
   * item had versions and is deleted now.
   */
  latest(collection: string, uri: string): Promise<ItemVersion | undefined>;
  /** Versions this process has written since it started (committed writes only): a metric. */
  versionsWritten(): number;

  // Whole-collection operations (retention and export as of a time). Optional: a store that
  // has history but not these yet leaves them out, and the routes answer
  // `history-unsupported` for them.

  /**
   * Counts the items of `page` (the collection's items with at least one version, in URI
   * order after `page.after`): a prune's progress total, counted a page at a time so that no
   * one call holds the store for a whole collection.
   */
  countItems?(collection: string, page: ItemPage): Promise<ItemCount>;
  /**
   * Removes the versions `rule` does not keep from the items of `page` (the items of the
   * collection with versions, in URI order after `page.after`), never an item's newest one.
   * One step is one short atomic write: a store must not block item writes for the length
   * of a whole collection's pass (the caller pages through it).
   */
  prune?(collection: string, rule: PruneRule, page: ItemPage): Promise<PruneStep>;
  /**
   * The collection as it stood at `instant`, over the items of `page` (those with versions,
   * in URI order after `page.after`): for each, the newest version written at or before
   * `instant` with its triples, unless that version is a delete or there was none yet.
   */
  stateAt?(collection: string, instant: Date, page: ItemPage): Promise<StatePage>;
  /** Versions this process has pruned since it started: a metric. */
  versionsPruned?(): number;
}
