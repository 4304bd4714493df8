/**
 * The change feed (docs/api.md, Change feed; issue 42): every committed write of an item, per
 * collection, in commit order, for downstream systems that must not poll every item.
 *
 * A store that keeps a feed writes the change in the same atomic write as the item, so a
 * change exists if and only if its write committed, and names it by a cursor: an opaque
 * token, strictly increasing within a collection in commit order. Changes are kept for a
 * retention (`service.changes.retentionMs`); a cursor older than what is kept is expired
 * (`410 cursor-expired` with the oldest valid one), never a silent gap.
 *
 * Its own contract beside {@link TripleStore} (the optional `changes`), so a store without a
 * feed says so (`changes-unsupported`) instead of an empty one.
 */
import { DomainError } from "../errors/domain_error.ts";

/** What a change did to its item, as the feed names it. */
export type ChangeOperation = "created" | "updated" | "deleted" | "restored";

/** Every operation, for schemas. */
export const CHANGE_OPERATIONS: readonly ChangeOperation[] = [
  "created",
  "updated",
  "deleted",
  "restored",
];

/** One committed write of an item. */
export interface ItemChange {
  /** Where this change is in its collection's feed: `after=` it to read what follows. */
  cursor: string;
  /** When the write committed (ISO 8601). */
  time: string;
  collection: string;
  item: string;
  operation: ChangeOperation;
  /** The item's ETag value after the write; null for a delete. */
  etag: string | null;
  /** `token:NAME`, `user:SUBJECT` or `local` (`item_history.ts`). */
  principal: string;
}

/** What a write adds to its collection's feed (the store gives it its cursor). */
export interface ChangeWrite {
  collection: string;
  uri: string;
  operation: ChangeOperation;
  /** The item's hash after the write; null for a delete. */
  etag: string | null;
  principal: string;
  time: string;
}

/**
 * The number a cursor of a store whose cursors are decimal numbers stands for (both stores'
 * are), or undefined when it is not one.
 */
export function cursorNumber(cursor: string): number | undefined {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(cursor)) return undefined;
  const n = Number(cursor);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A page of a collection's feed, oldest first. */
export interface ChangePage {
  changes: ItemChange[];
  /** The cursor to continue from: the last change's, or the one asked from when none. */
  next: string;
}

/** A store's change feed. */
export interface ChangeFeed {
  /**
   * The collection's changes after `after` (from its oldest kept change when undefined),
   * oldest first, at most `limit`. Throws `cursor-expired` when changes after `after` are no
   * longer kept, and `invalid-parameter` for a cursor this feed never gave.
   */
  read(collection: string, after: string | undefined, limit: number): Promise<ChangePage>;
  /**
   * Calls `listener` whenever changes may have been committed (on this instance at once;
   * a shared store's other instances by polling). Returns the unsubscribe function.
   */
  subscribe(listener: () => void): () => void;
  /**
   * The cursor of the collection's newest change readers may see (the oldest kept position
   * when it has none): `read` after it answers only changes committed later.
   */
  end(collection: string): Promise<string>;
  /**
   * The cursor just before the collection's `count` newest changes readers may see (the
   * oldest kept position when it has fewer): `read` after it answers those changes. What
   * `GET /api/changes?tail=` starts from; a store computes it because cursors are opaque
   * (global sequence numbers on one store, per-collection numbers on another).
   */
  beforeNewest(collection: string, count: number): Promise<string>;
  /** Removes the changes committed before `before`; returns how many. */
  prune(before: Date): Promise<number>;
}

/** The feed's operation for a write the history names `operation` (`import`: by `existed`). */
export function changeOperation(
  operation: "create" | "update" | "delete" | "restore" | "import",
  existed: boolean,
): ChangeOperation {
  switch (operation) {
    case "create":
      return "created";
    case "update":
      return "updated";
    case "delete":
      return "deleted";
    case "restore":
      return "restored";
    case "import":
      return existed ? "updated" : "created";
  }
}

/** `410 cursor-expired`: changes after `cursor` were pruned; `oldest` is where to resume. */
export function cursorExpired(collection: string, cursor: string, oldest: string): DomainError {
  return new DomainError("cursor-expired", {
    detail: `Changes of <${collection}> after cursor ${cursor} are no longer kept ` +
      `(service.changes.retentionMs); read again from ${oldest}, and reconcile what was missed ` +
      "(the items themselves are current).",
    extensions: { oldest },
  });
}

/** `400 invalid-parameter` for a cursor this feed never gave. */
export function invalidCursor(path: string, cursor: string): DomainError {
  return new DomainError("invalid-parameter", {
    detail: `${cursor.slice(0, 100)} is not a cursor of this change feed.`,
    errors: [{ path, message: "not a cursor this feed gave" }],
  });
}
