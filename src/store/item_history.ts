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
}
