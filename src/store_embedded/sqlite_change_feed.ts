/**
 * The embedded store's change feed (`store/change_feed.ts`): the `item_changes` table of the
 * service's SQLite file.
 *
 * {@link SqliteChangeFeed.record} is called by the store inside a write's own savepoint
 * (`embedded_triple_store.ts`), beside the write's version, so a refused write leaves no
 * change and a committed one always has one. The cursor is the row's `seq` (AUTOINCREMENT:
 * never reused, even after pruning), increasing in commit order since one connection writes.
 * Reads stop at the last change made durable ({@link SqliteChangeFeed.durable}): a reader never
 * sees a change a power cut could still take back. What pruning removed is remembered per
 * collection (`change_horizons`), so a cursor before it is told expired, not given a gap.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Migration } from "../sqlite/local_db.ts";
import {
  type ChangeFeed,
  type ChangeOperation,
  type ChangePage,
  type ChangeWrite,
  cursorExpired,
  cursorNumber,
  invalidCursor,
  type ItemChange,
} from "../store/change_feed.ts";

/** Migration 14: the change feed, and what pruning removed of it per collection. */
export const ITEM_CHANGES_MIGRATION: Migration = {
  version: 14,
  description: "change feed: every committed item write, per collection in commit order",
  sql: `CREATE TABLE item_changes (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     collection TEXT NOT NULL,
     uri TEXT NOT NULL,
     operation TEXT NOT NULL,
     etag TEXT,
     principal TEXT NOT NULL,
     time TEXT NOT NULL
   );
   CREATE INDEX item_changes_by_collection ON item_changes (collection, seq);
   CREATE INDEX item_changes_by_time ON item_changes (time);
   CREATE TABLE change_horizons (
     collection TEXT PRIMARY KEY,
     pruned_through INTEGER NOT NULL
   );`,
};

interface ChangeRow {
  seq: number;
  collection: string;
  uri: string;
  operation: ChangeOperation;
  etag: string | null;
  principal: string;
  time: string;
}

/** Rows removed per statement when pruning: writers wait at most one chunk. */
const PRUNE_CHUNK = 5_000;

function toChange(row: ChangeRow): ItemChange {
  return {
    cursor: String(row.seq),
    time: row.time,
    collection: row.collection,
    item: row.uri,
    operation: row.operation,
    etag: row.etag,
    principal: row.principal,
  };
}

/** The SQLite change feed; writes join the caller's transaction. */
export class SqliteChangeFeed implements ChangeFeed {
  readonly #db: DatabaseSync;
  readonly #statements: Record<string, StatementSync>;
  readonly #listeners = new Set<() => void>();
  /** The last change made durable: reads never go past it. */
  #durable: number;

  /** `db` must have been opened with `openLocalDatabase` (it holds the tables). */
  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#statements = {
      insert: db.prepare(
        `INSERT INTO item_changes (collection, uri, operation, etag, principal, time)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING seq`,
      ),
      read: db.prepare(
        `SELECT * FROM item_changes WHERE collection = ? AND seq > ? AND seq <= ?
         ORDER BY seq LIMIT ?`,
      ),
      horizon: db.prepare("SELECT pruned_through FROM change_horizons WHERE collection = ?"),
      last: db.prepare("SELECT MAX(seq) AS seq FROM item_changes"),
      lastOf: db.prepare(
        "SELECT MAX(seq) AS seq FROM item_changes WHERE collection = ? AND seq <= ?",
      ),
      // The (count + 1)th newest visible change: the cursor before the `count` newest.
      beforeNewest: db.prepare(
        `SELECT seq FROM item_changes WHERE collection = ? AND seq <= ?
         ORDER BY seq DESC LIMIT 1 OFFSET ?`,
      ),
      oldChunk: db.prepare(
        `SELECT collection, MAX(seq) AS through FROM (
           SELECT seq, collection FROM item_changes WHERE time < ? ORDER BY seq LIMIT ?
         ) GROUP BY collection`,
      ),
      deleteThrough: db.prepare("DELETE FROM item_changes WHERE collection = ? AND seq <= ?"),
      raiseHorizon: db.prepare(
        `INSERT INTO change_horizons (collection, pruned_through) VALUES (?, ?)
         ON CONFLICT (collection) DO UPDATE SET
           pruned_through = MAX(pruned_through, excluded.pruned_through)`,
      ),
    };
    this.#durable = (this.#statements.last.get() as { seq: number | null }).seq ?? 0;
  }

  /** Adds the write's change; call it inside the write's transaction. Returns its seq. */
  record(change: ChangeWrite): number {
    const row = this.#statements.insert.get(
      change.collection,
      change.uri,
      change.operation,
      change.etag,
      change.principal,
      change.time,
    ) as { seq: number };
    return row.seq;
  }

  /** The changes up to `seq` are durable now: readers may see them; listeners are told. */
  durable(seq: number): void {
    if (seq <= this.#durable) return;
    this.#durable = seq;
    for (const listener of this.#listeners) listener();
  }

  read(collection: string, after: string | undefined, limit: number): Promise<ChangePage> {
    const from = after === undefined ? undefined : cursorNumber(after);
    if (after !== undefined && from === undefined) throw invalidCursor("after", after);
    const horizon = (this.#statements.horizon.get(collection) as
      | { pruned_through: number }
      | undefined)?.pruned_through ?? 0;
    if (from !== undefined && from < horizon) {
      throw cursorExpired(collection, after!, String(horizon));
    }
    const rows = this.#statements.read.all(
      collection,
      from ?? horizon,
      this.#durable,
      limit,
    ) as unknown as ChangeRow[];
    const changes = rows.map(toChange);
    return Promise.resolve({
      changes,
      next: changes.at(-1)?.cursor ?? after ?? String(horizon),
    });
  }

  end(collection: string): Promise<string> {
    const last = (this.#statements.lastOf.get(collection, this.#durable) as {
      seq: number | null;
    }).seq;
    const horizon = (this.#statements.horizon.get(collection) as
      | { pruned_through: number }
      | undefined)?.pruned_through ?? 0;
    return Promise.resolve(String(Math.max(last ?? 0, horizon)));
  }

  beforeNewest(collection: string, count: number): Promise<string> {
    const before = (this.#statements.beforeNewest.get(collection, this.#durable, count) as
      | { seq: number }
      | undefined)?.seq ?? 0;
    const horizon = (this.#statements.horizon.get(collection) as
      | { pruned_through: number }
      | undefined)?.pruned_through ?? 0;
    return Promise.resolve(String(Math.max(before, horizon)));
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Removes changes older than `before`, oldest first, a chunk per transaction (writes go on
   * between chunks), raising each collection's horizon to the last change removed. A change
   * stamped later than one after it (a clock set back) goes with the older ones: a horizon
   * never passes a change that is kept.
   */
  async prune(before: Date): Promise<number> {
    const cutoff = before.toISOString();
    let removed = 0;
    for (;;) {
      const chunks = this.#statements.oldChunk.all(cutoff, PRUNE_CHUNK) as unknown as {
        collection: string;
        through: number;
      }[];
      if (chunks.length === 0) return removed;
      this.#db.exec("BEGIN IMMEDIATE");
      try {
        for (const { collection, through } of chunks) {
          removed += Number(this.#statements.deleteThrough.run(collection, through).changes);
          this.#statements.raiseHorizon.run(collection, through);
        }
        this.#db.exec("COMMIT");
      } catch (error) {
        this.#db.exec("ROLLBACK");
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
}
