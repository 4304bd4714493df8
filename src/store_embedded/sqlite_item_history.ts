/**
 * The embedded store's item history: the `item_versions` table of the service's SQLite file.
 *
 * {@link SqliteItemHistory.record} is called by the store inside a write's own savepoint
 * (`embedded_triple_store.ts`), so a refused write leaves no version and a committed one
 * always has one. A version keeps its graph compact (`store/version_content.ts`); a delete
 * keeps none. Items written before the table existed get their first version on their next
 * write: their earlier past is not known.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inUnsyncedTransaction, type Migration } from "../sqlite/local_db.ts";
import type {
  ItemCount,
  ItemHistory,
  ItemOperation,
  ItemPage,
  ItemVersion,
  PruneRule,
  PruneStep,
  StatePage,
  VersionContent,
  VersionPageRequest,
  VersionWrite,
} from "../store/item_history.ts";
import { decodeVersionContent, encodeVersionContent } from "../store/version_content.ts";

/**
 * Migration 13: every version of every item. Keyed by (collection, IRI, version) rather than
 * by the item's row, which a delete removes while its history stays.
 */
export const ITEM_VERSIONS_MIGRATION: Migration = {
  version: 13,
  description: "item versions: every write of an item kept (history, restore)",
  sql: `CREATE TABLE item_versions (
     collection TEXT NOT NULL,
     uri TEXT NOT NULL,
     version INTEGER NOT NULL,
     hash TEXT,
     triple_count INTEGER NOT NULL,
     time TEXT NOT NULL,
     principal TEXT NOT NULL,
     operation TEXT NOT NULL,
     content BLOB,
     PRIMARY KEY (collection, uri, version)
   );`,
};

interface VersionRow {
  collection: string;
  uri: string;
  version: number;
  hash: string | null;
  triple_count: number;
  time: string;
  principal: string;
  operation: ItemOperation;
  content?: Uint8Array | null;
}

const COLUMNS = "collection, uri, version, hash, triple_count, time, principal, operation";
const OF_ITEM = "FROM item_versions WHERE collection = ? AND uri = ?";

function toVersion(row: VersionRow): ItemVersion {
  return {
    collection: row.collection,
    uri: row.uri,
    version: row.version,
    hash: row.hash,
    tripleCount: row.triple_count,
    time: row.time,
    principal: row.principal,
    operation: row.operation,
  };
}

/** The SQLite history; reads answer from committed data, writes join the caller's transaction. */
export class SqliteItemHistory implements ItemHistory {
  readonly #statements: Record<string, StatementSync>;
  readonly #db: DatabaseSync;
  /** Versions of committed writes: a write's version is recorded before its commit. */
  #written = 0;
  #pruned = 0;

  /** `db` must have been opened with `openLocalDatabase` (it holds the table). */
  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#statements = {
      // The key's order: (collection, uri, version), so these walk the primary key.
      countItems: db.prepare(
        `SELECT COUNT(*) AS n, MAX(uri) AS last FROM (SELECT DISTINCT uri FROM item_versions
         WHERE collection = ? AND uri > ? ORDER BY uri LIMIT ?)`,
      ),
      itemPage: db.prepare(
        `SELECT DISTINCT uri FROM item_versions WHERE collection = ? AND uri > ?
         ORDER BY uri LIMIT ?`,
      ),
      pruneBeyondLast: db.prepare(
        `DELETE FROM item_versions WHERE collection = ?1 AND uri = ?2 AND version <
           (SELECT MIN(version) FROM (SELECT version FROM item_versions
              WHERE collection = ?1 AND uri = ?2 ORDER BY version DESC LIMIT ?3))`,
      ),
      pruneBefore: db.prepare(
        `DELETE FROM item_versions WHERE collection = ?1 AND uri = ?2 AND time < ?3 AND version <
           (SELECT MAX(version) FROM item_versions WHERE collection = ?1 AND uri = ?2)`,
      ),
      atWithContent: db.prepare(
        `SELECT ${COLUMNS}, content ${OF_ITEM} AND time <= ? ORDER BY version DESC LIMIT 1`,
      ),
      latest: db.prepare(`SELECT ${COLUMNS} ${OF_ITEM} ORDER BY version DESC LIMIT 1`),
      insert: db.prepare(
        `INSERT INTO item_versions (${COLUMNS}, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      list: db.prepare(
        `SELECT ${COLUMNS} ${OF_ITEM} AND version < ? ORDER BY version DESC LIMIT ?`,
      ),
      read: db.prepare(`SELECT ${COLUMNS}, content ${OF_ITEM} AND version = ?`),
      at: db.prepare(`SELECT ${COLUMNS} ${OF_ITEM} AND time <= ? ORDER BY version DESC LIMIT 1`),
    };
  }

  /** Counts `count` versions whose writes the caller has committed. */
  committed(count: number): void {
    this.#written += count;
  }

  versionsWritten(): number {
    return this.#written;
  }

  versionsPruned(): number {
    return this.#pruned;
  }

  countItems(collection: string, page: ItemPage): Promise<ItemCount> {
    const row = this.#statements.countItems.get(collection, page.after ?? "", page.limit) as {
      n: number;
      last: string | null;
    };
    return Promise.resolve({ items: row.n, last: row.last ?? undefined });
  }

  /** One transaction for the page: short, and item writes go between two pages. */
  prune(collection: string, rule: PruneRule, page: ItemPage): Promise<PruneStep> {
    const uris = this.#itemPage(collection, page);
    const { pruneBeyondLast, pruneBefore } = this.#statements;
    const removeOld = "keepLast" in rule
      ? (uri: string) => pruneBeyondLast.run(collection, uri, rule.keepLast)
      : (uri: string) => pruneBefore.run(collection, uri, rule.keepSince.toISOString());
    // Not synced at commit: a prune a power cut takes back is harmless (the next one redoes it).
    const removed = inUnsyncedTransaction(this.#db, () => {
      let count = 0;
      for (const uri of uris) count += Number(removeOld(uri).changes);
      return count;
    });
    this.#pruned += removed;
    return Promise.resolve({ items: uris.length, removed, last: uris.at(-1) });
  }

  stateAt(collection: string, instant: Date, page: ItemPage): Promise<StatePage> {
    const uris = this.#itemPage(collection, page);
    const time = instant.toISOString();
    const versions: VersionContent[] = [];
    for (const uri of uris) {
      const row = this.#statements.atWithContent.get(collection, uri, time) as
        | VersionRow
        | undefined;
      if (!row || row.operation === "delete") continue;
      const quads = row.content ? decodeVersionContent(row.content) : [];
      versions.push({ version: toVersion(row), quads });
    }
    return Promise.resolve({ versions, last: uris.at(-1) });
  }

  #itemPage(collection: string, page: ItemPage): string[] {
    const rows = this.#statements.itemPage.all(collection, page.after ?? "", page.limit) as {
      uri: string;
    }[];
    return rows.map((row) => row.uri);
  }

  /**
   * Adds the write's version; call it inside the write's transaction. Its time is never
   * earlier than the version before it (a clock set back), so "the version current at an
   * instant" is always the newest one written at or before it. Returns the version.
   */
  record(write: VersionWrite): ItemVersion {
    const last = this.#statements.latest.get(write.collection, write.uri) as
      | VersionRow
      | undefined;
    const version = (last?.version ?? 0) + 1;
    const time = last && last.time > write.time ? last.time : write.time;
    const tripleCount = write.graph?.quads.length ?? 0;
    this.#statements.insert.run(
      write.collection,
      write.uri,
      version,
      write.graph?.hash ?? null,
      tripleCount,
      time,
      write.principal,
      write.operation,
      write.graph ? encodeVersionContent(write.graph.quads) : null,
    );
    return {
      collection: write.collection,
      uri: write.uri,
      version,
      hash: write.graph?.hash ?? null,
      tripleCount,
      time,
      principal: write.principal,
      operation: write.operation,
    };
  }

  list(collection: string, uri: string, page: VersionPageRequest): Promise<ItemVersion[]> {
    const before = page.before ?? Number.MAX_SAFE_INTEGER;
    const rows = this.#statements.list.all(
      collection,
      uri,
      before,
      page.limit,
    ) as unknown as VersionRow[];
    return Promise.resolve(rows.map(toVersion));
  }

  read(collection: string, uri: string, version: number): Promise<VersionContent | undefined> {
    const row = this.#statements.read.get(collection, uri, version) as VersionRow | undefined;
    if (!row) return Promise.resolve(undefined);
    const quads = row.content ? decodeVersionContent(row.content) : [];
    return Promise.resolve({ version: toVersion(row), quads });
  }

  at(collection: string, uri: string, instant: Date): Promise<ItemVersion | undefined> {
    const row = this.#statements.at.get(collection, uri, instant.toISOString()) as
      | VersionRow
      | undefined;
    return Promise.resolve(row ? toVersion(row) : undefined);
  }

  latest(collection: string, uri: string): Promise<ItemVersion | undefined> {
    const row = this.#statements.latest.get(collection, uri) as VersionRow | undefined;
    return Promise.resolve(row ? toVersion(row) : undefined);
  }
}
