/**
 * The embedded store's index outbox: the `index_outbox` table of the service's SQLite file.
 *
 * The embedded store is one process by nature, so a lease here only keeps this process's
 * worker from being handed an entry it already holds; `attempts` counts the failed tries
 * of an entry (shown by tests and useful when inspecting the file).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inTransaction, inUnsyncedTransaction } from "../sqlite/local_db.ts";
import type { IndexOutbox, OutboxClaim, OutboxEntry } from "../store/index_outbox.ts";

interface OutboxRow {
  id: number;
  collection: string;
  uri: string;
}

/** The SQLite outbox; {@link record} adds an entry inside the caller's write transaction. */
export class SqliteIndexOutbox implements IndexOutbox {
  readonly #db: DatabaseSync;
  readonly #statements: Record<string, StatementSync>;
  /** Entry id → end of its lease. */
  readonly #leased = new Map<number, number>();
  /** First entry ids of committed groups whose fsync is in flight: not claimed yet. */
  readonly #heldBack = new Set<number>();

  /** `db` must have been opened with `openLocalDatabase` (it holds the table). */
  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#statements = {
      insert: db.prepare("INSERT INTO index_outbox (collection, uri, enqueued) VALUES (?, ?, ?)"),
      oldest: db.prepare(
        "SELECT id, collection, uri FROM index_outbox WHERE id < ? ORDER BY id LIMIT ?",
      ),
      count: db.prepare("SELECT count(*) AS n FROM index_outbox"),
      remove: db.prepare("DELETE FROM index_outbox WHERE id = ?"),
      attempted: db.prepare("UPDATE index_outbox SET attempts = attempts + 1 WHERE id = ?"),
    };
  }

  /**
   * Adds an entry; call it inside the transaction of the item write it belongs to, so the
   * two commit together.
   */
  record(collection: string, uri: string): number {
    const { lastInsertRowid } = this.#statements.insert.run(
      collection,
      uri,
      new Date().toISOString(),
    );
    return Number(lastInsertRowid);
  }

  /**
   * Keeps entries from `firstId` on from being claimed until {@link endHold}: their
   * transaction is committed but not yet durable, and an item indexed now could still be
   * lost to a power cut.
   */
  holdBack(firstId: number): void {
    this.#heldBack.add(firstId);
  }

  /** Ends a {@link holdBack}. */
  endHold(firstId: number): void {
    this.#heldBack.delete(firstId);
  }

  claim(limit: number, leaseMs: number): Promise<OutboxClaim> {
    const now = Date.now();
    for (const [id, until] of this.#leased) if (until <= now) this.#leased.delete(id);
    const below = this.#heldBack.size > 0 ? Math.min(...this.#heldBack) : Number.MAX_SAFE_INTEGER;
    const rows = this.#statements.oldest.all(
      below,
      limit + this.#leased.size,
    ) as unknown as OutboxRow[];
    const entries: OutboxEntry[] = [];
    const leaseUntil = now + leaseMs;
    for (const row of rows) {
      if (entries.length >= limit) break;
      if (this.#leased.has(row.id)) continue;
      this.#leased.set(row.id, leaseUntil);
      entries.push({ id: String(row.id), collection: row.collection, uri: row.uri });
    }
    return Promise.resolve({ entries, leaseUntil });
  }

  /**
   * Unsynced: a completion lost to a power cut only means its entries are applied again,
   * which converges on the same documents; the worker never waits for the disk.
   */
  complete(ids: string[]): Promise<void> {
    // The lease ends even when the delete fails (a full disk): the entries are then claimed
    // and applied again at once rather than after the lease.
    return this.#endingLeases(ids, () => {
      for (const id of ids) this.#statements.remove.run(Number(id));
    });
  }

  release(ids: string[]): Promise<void> {
    // The attempt count is bookkeeping: the entries are free again even if it cannot be kept.
    return this.#endingLeases(ids, () => {
      for (const id of ids) this.#statements.attempted.run(Number(id));
    });
  }

  /**
   * Runs `change` on the entries `ids` in one transaction, then (fail or not) ends their
   * lease; a failure is the promise's, as the contract has it.
   */
  #endingLeases(ids: string[], change: () => void): Promise<void> {
    try {
      if (ids.length > 0) inUnsyncedTransaction(this.#db, change);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    } finally {
      for (const id of ids) this.#leased.delete(Number(id));
    }
  }

  enqueue(collection: string, uris: Iterable<string>): Promise<void> {
    inTransaction(this.#db, () => {
      for (const uri of uris) this.record(collection, uri);
    });
    return Promise.resolve();
  }

  backlog(): Promise<number> {
    return Promise.resolve((this.#statements.count.get() as { n: number }).n);
  }
}
