/**
 * The embedded triple store: item graphs in the service's SQLite file, the system of record,
 * as integer quads over a term dictionary (`quad_tables.ts`), with an in-process SPARQL engine
 * that evaluates queries over those tables (`embedded_sparql_engine.ts`).
 *
 * Every write is applied in a SQLite transaction together with the item's index outbox
 * entry, so it is never half-applied, and is acknowledged only once the WAL holding it has
 * been fsynced (durable across SIGKILL and power loss). Writes are committed in groups
 * (`group_commit.ts`): those that arrive while a group's fsync is in flight share the next
 * transaction and fsync, each checked on its own inside a savepoint. A committed group is
 * visible to readers a moment before its fsync ends (readers see committed data). A read
 * takes an item's row and its triples from one version: no write of this process can run
 * between the statements of a small item, and a large one is paged from a snapshot.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { DatabaseSync as Database } from "node:sqlite";
import { open } from "node:fs/promises";
import { DataFactory } from "n3";
import type { Quad } from "n3";
import { itemExists, itemNotFound, preconditionFailed } from "../store/store_problems.ts";
import { collectionItemKey } from "../store/item_keys.ts";
import { invalidTerm } from "../sparql_protocol/terms.ts";
import { inUnsyncedTransaction, type Migration } from "../sqlite/local_db.ts";
import { SqliteIndexOutbox } from "./sqlite_index_outbox.ts";
import { ITEM_VERSIONS_MIGRATION, SqliteItemHistory } from "./sqlite_item_history.ts";
import { ITEM_CHANGES_MIGRATION, SqliteChangeFeed } from "./sqlite_change_feed.ts";
import { changeOperation } from "../store/change_feed.ts";
import { LOCAL_PRINCIPAL } from "../store/item_history.ts";
import { decodeObject, decodePredicate, decodeSubject, encodeTerm } from "./term_ids.ts";
import { termColumn, TermDictionary, termText } from "./term_dictionary.ts";
import {
  QUAD_TABLES_MIGRATION,
  SHARED_TRIPLES_MIGRATION,
  SHARED_TRIPLES_OF_GRAPH,
} from "./quad_tables.ts";
import { EmbeddedSparqlEngine } from "./embedded_sparql_engine.ts";
import {
  type GroupCommitOptions,
  GroupCommitter,
  outcomeOf,
  type WriteOutcome,
} from "../store/group_commit.ts";
import type {
  DeleteOrigin,
  ItemGraph,
  ItemRead,
  ItemRecord,
  ItemWrite,
  TripleStore,
  WriteCondition,
} from "../store/triple_store.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../sparql_protocol/query_types.ts";
import type { BackendHealth } from "../backend/backend_health.ts";

/** Migration 1: the items, their text triples (until migration 8) and the index outbox. */
const ITEMS_MIGRATION: Migration = {
  version: 1,
  description: "items, triples, index outbox",
  sql: `CREATE TABLE items (
     id INTEGER PRIMARY KEY,
     collection TEXT NOT NULL,
     uri TEXT NOT NULL UNIQUE,
     hash TEXT NOT NULL,
     triple_count INTEGER NOT NULL,
     created TEXT NOT NULL,
     modified TEXT NOT NULL
   );
   CREATE INDEX items_by_collection ON items(collection, uri);
   -- Replaced by the quads of migration 8, which converts and drops it.
   CREATE TABLE triples (
     item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
     s TEXT NOT NULL,
     p TEXT NOT NULL,
     o TEXT NOT NULL
   );
   CREATE INDEX triples_by_item ON triples(item_id, s);
   CREATE TABLE index_outbox (
     id INTEGER PRIMARY KEY,
     collection TEXT NOT NULL,
     uri TEXT NOT NULL,
     enqueued TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0
   );`,
};

/**
 * Migration 9: the items by collection and graph, and by graph, that keep a SPARQL query
 * inside its scope of collections (`sparql_to_sql.ts`). A scoped query reads the scope's graphs
 * by collection (covered) when it matches every quad of them, and probes a row's graph
 * otherwise. An item's graph is the term id of its name (its IRI, or the key `store/item_keys.ts` derives), unique: one item per graph.
 * The probe's index is unique so that the query planner knows it finds at most one row (it
 * prefers it then to probing items(collection, graph) once per collection of the scope).
 */
const SCOPE_INDEXES_MIGRATION: Migration = {
  version: 9,
  description: "items by collection and graph, and by graph (a SPARQL query's collection scope)",
  sql: `CREATE INDEX items_by_collection_graph ON items(collection, graph);
   CREATE UNIQUE INDEX items_by_graph ON items(graph, collection);`,
};

/**
 * Migration 12: items keyed by (collection, IRI), not by IRI alone: the same IRI may be an
 * item of several collections, each its own graph (`store/item_keys.ts`). The table is built
 * again without migration 1's `uri UNIQUE` (SQLite cannot drop a column's constraint), rows and
 * ids kept (blank nodes are stored scoped by item id). An item's graph stays its own: the
 * write path gives a new item a graph no item has (`#graphOfNew`).
 */
const KEYED_ITEMS_MIGRATION: Migration = {
  version: 12,
  description: "items keyed by (collection, IRI): an IRI may be an item of several collections",
  sql: `CREATE TABLE items_keyed (
     id INTEGER PRIMARY KEY,
     collection TEXT NOT NULL,
     uri TEXT NOT NULL,
     hash TEXT NOT NULL,
     triple_count INTEGER NOT NULL,
     created TEXT NOT NULL,
     modified TEXT NOT NULL,
     graph INTEGER NOT NULL
   );
   INSERT INTO items_keyed (id, collection, uri, hash, triple_count, created, modified, graph)
     SELECT id, collection, uri, hash, triple_count, created, modified, graph FROM items;
   DROP TABLE items;
   ALTER TABLE items_keyed RENAME TO items;
   CREATE UNIQUE INDEX items_by_collection ON items(collection, uri);
   CREATE INDEX items_by_collection_graph ON items(collection, graph);
   CREATE UNIQUE INDEX items_by_graph ON items(graph, collection);`,
};

/**
 * The store's tables: items, the index outbox, whose entries commit with the item writes
 * (sqlite_index_outbox.ts), (migration 8, `quad_tables.ts`) the term dictionary and the
 * integer quads that replaced migration 1's text triples, (migration 9) the items' indexes
 * by graph that keep a query inside its scope of collections, (migration 10) the triples
 * several items state, (migration 12) items keyed by (collection, IRI), (migration 13)
 * every version of every item (`sqlite_item_history.ts`), and (migration 14) the change feed
 * (`sqlite_change_feed.ts`).
 */
export const EMBEDDED_STORE_MIGRATIONS: Migration[] = [
  ITEMS_MIGRATION,
  QUAD_TABLES_MIGRATION,
  SCOPE_INDEXES_MIGRATION,
  SHARED_TRIPLES_MIGRATION,
  KEYED_ITEMS_MIGRATION,
  ITEM_VERSIONS_MIGRATION,
  ITEM_CHANGES_MIGRATION,
];

/** Items up to this many triples are read in one statement; larger ones are paged. */
const SINGLE_READ_LIMIT = 20_000;
const PAGE_SIZE = 2_000;
/** Batch reads fetch at most about this many triples per statement. */
const BATCH_TRIPLES = 20_000;
/** Triples per insert statement (4 variables each: far below SQLite's variable limit). */
const INSERT_ROWS = 64;
/** Item URIs per look-up statement of a batch read (far below SQLite's variable limit). */
const BATCH_LOOKUP = 500;

interface ItemRow {
  id: number;
  collection: string;
  uri: string;
  hash: string;
  triple_count: number;
  created: string;
  modified: string;
  /**
   * The term id of the item's graph name: the quads' graph column. The IRI's own, or
   * `collectionItemKey` when another collection's item had that name (`store/item_keys.ts`).
   */
  graph: number;
}

interface TripleRow {
  sid: number;
  pid: number;
  oid: number;
  s: string;
  p: string;
  o: string | Uint8Array;
}

/** An item's triples as text, with their ids (the order, and the page position). */
const TRIPLE_COLUMNS = `q.s AS sid, q.p AS pid, q.o AS oid, ts.term AS s, tp.term AS p,
  ${termColumn("t_o.term")} AS o`;
const TRIPLE_JOINS = `JOIN terms ts ON ts.id = q.s JOIN terms tp ON tp.id = q.p
  JOIN terms t_o ON t_o.id = q.o`;

/** A write waiting for its group's commit. */
type PendingWrite =
  | { kind: "create"; write: ItemWrite }
  | { kind: "replace"; write: ItemWrite; condition: WriteCondition }
  | {
    kind: "delete";
    collection: string;
    uri: string;
    condition: WriteCondition;
    origin: DeleteOrigin;
  };

/** About what a write costs to commit: its triples' text (for the group's byte bound). */
function writeBytes(write: ItemWrite): number {
  let bytes = write.uri.length;
  for (const quad of write.quads) {
    bytes += quad.subject.value.length + quad.predicate.value.length + quad.object.value.length;
  }
  return bytes;
}

/** A term's storage form; variables and quoted triples are refused, as by the SPARQL store. */
function storable(
  term: Quad["subject"] | Quad["predicate"] | Quad["object"],
  itemId: number,
): string {
  const { termType } = term;
  if (termType !== "NamedNode" && termType !== "BlankNode" && termType !== "Literal") {
    throw invalidTerm(termType);
  }
  return encodeTerm(term, itemId);
}

function placeholders(count: number): string {
  return new Array(count).fill("?").join(", ");
}

function toRecord(row: ItemRow): ItemRecord {
  return {
    collection: row.collection,
    uri: row.uri,
    hash: row.hash,
    tripleCount: row.triple_count,
    created: row.created,
    modified: row.modified,
  };
}

/** The SQLite-backed store. */
export class EmbeddedTripleStore implements TripleStore {
  readonly kind = "embedded" as const;
  /** The SQLite file is this process's alone. */
  readonly sharedAcrossInstances = false;
  /** The index outbox, in the same file: entries commit in each write's transaction. */
  readonly outbox: SqliteIndexOutbox;
  /** Every version of every item, in the same file: written in each write's savepoint. */
  readonly history: SqliteItemHistory;
  /** Every committed write, per collection in commit order: written beside its version. */
  readonly changes: SqliteChangeFeed;
  readonly #db: DatabaseSync;
  /** File path for snapshot readers; undefined for an in-memory database. */
  readonly #path?: string;
  readonly #sparql: EmbeddedSparqlEngine;
  readonly #terms: TermDictionary;
  readonly #statements: Record<string, StatementSync>;
  /** Multi-row triple inserts by row count (at most {@link INSERT_ROWS} of them). */
  readonly #multiInserts = new Map<number, StatementSync>();
  /** Item writes, committed in groups (see `group_commit.ts`). */
  readonly #writes: GroupCommitter<PendingWrite, ItemRow>;

  constructor(db: DatabaseSync, path: string | undefined, groupCommit: GroupCommitOptions) {
    this.#db = db;
    this.#path = path;
    this.#writes = new GroupCommitter((writes) => this.#commitGroup(writes), groupCommit);
    this.outbox = new SqliteIndexOutbox(db);
    this.history = new SqliteItemHistory(db);
    this.changes = new SqliteChangeFeed(db);
    this.#sparql = new EmbeddedSparqlEngine(db, path);
    this.#terms = new TermDictionary(db);
    this.#statements = {
      getItem: db.prepare("SELECT * FROM items WHERE uri = ? AND collection = ?"),
      graphTaken: db.prepare("SELECT 1 FROM items WHERE graph = ?"),
      insertItem: db.prepare(
        `INSERT INTO items (collection, uri, hash, triple_count, created, modified, graph)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      ),
      updateItem: db.prepare(
        "UPDATE items SET hash = ?, triple_count = ?, modified = ? WHERE id = ? RETURNING *",
      ),
      deleteItem: db.prepare("DELETE FROM items WHERE id = ?"),
      deleteTriples: db.prepare("DELETE FROM quads WHERE g = ?"),
      recordSharedTriples: db.prepare(SHARED_TRIPLES_OF_GRAPH),
      allTriples: db.prepare(
        `SELECT ${TRIPLE_COLUMNS} FROM quads q ${TRIPLE_JOINS} WHERE q.g = ? ORDER BY q.s, q.p, q.o`,
      ),
      listItems: db.prepare(
        "SELECT * FROM items WHERE collection = ? AND uri > ? ORDER BY uri LIMIT ?",
      ),
    };
  }

  /** Opens the store on an already opened local database file. */
  static open(
    db: DatabaseSync,
    path: string | undefined,
    groupCommit: GroupCommitOptions,
  ): EmbeddedTripleStore {
    return new EmbeddedTripleStore(db, path, groupCommit);
  }

  /** How the writes were grouped so far. */
  get groupCommitStats(): GroupCommitter<PendingWrite, ItemRow>["stats"] {
    return this.#writes.stats;
  }

  getItem(collection: string, uri: string): Promise<ItemRecord | undefined> {
    const row = this.#statements.getItem.get(uri, collection) as ItemRow | undefined;
    return Promise.resolve(row ? toRecord(row) : undefined);
  }

  readItem(collection: string, uri: string): Promise<ItemRead> {
    const read = this.#readOne(collection, uri);
    return read ? Promise.resolve(read) : Promise.reject(itemNotFound(collection, uri));
  }

  /**
   * One version of an item. A small item's row and triples are read by two statements with
   * nothing in between, so no write of this process can fall between them; the triples are
   * read before returning, not when the caller gets to them. A large one is paged from a
   * snapshot ({@link #readLarge}). Without a file path (an in-memory database) there is no
   * second connection to hold a snapshot, so every item is read in one statement.
   */
  #readOne(collection: string, uri: string): ItemRead | undefined {
    const row = this.#statements.getItem.get(uri, collection) as ItemRow | undefined;
    if (!row) return undefined;
    // This row only tells the size: a large item's record is read again in its snapshot.
    if (row.triple_count > SINGLE_READ_LIMIT && this.#path) return this.#readLarge(collection, uri);
    const triples = this.#statements.allTriples.all(row.graph) as unknown as TripleRow[];
    return { record: toRecord(row), quads: this.#decode(triples) };
  }

  /**
   * Records first, then the triples of many items per statement: a batch of small items
   * costs a few statements instead of two per item. Nothing awaits until every small item
   * is read, so no write of this process can fall between a record and its triples; large
   * items come last, each read whole from a snapshot of its own, record included.
   */
  async readItemGraphs(collection: string, uris: string[]): Promise<ItemGraph[]> {
    const graphs: ItemGraph[] = [];
    const large: string[] = [];
    const pending: { row: ItemRow; graph: ItemGraph }[] = [];
    let pendingTriples = 0;
    const flush = () => {
      this.#readTriplesOf(pending);
      pending.length = 0;
      pendingTriples = 0;
    };
    for (let start = 0; start < uris.length; start += BATCH_LOOKUP) {
      for (const row of this.#lookUp(collection, uris.slice(start, start + BATCH_LOOKUP))) {
        if (row.triple_count > SINGLE_READ_LIMIT) {
          large.push(row.uri);
          continue;
        }
        const graph: ItemGraph = { record: toRecord(row), quads: [] };
        graphs.push(graph);
        if (pendingTriples + row.triple_count > BATCH_TRIPLES) flush();
        pending.push({ row, graph });
        pendingTriples += row.triple_count;
      }
      flush();
    }
    for (const uri of large) {
      const read = this.#readOne(collection, uri);
      if (!read) continue; // deleted while the items before it were read
      const graph: ItemGraph = { record: read.record, quads: [] };
      for await (const quad of read.quads) graph.quads.push(quad);
      graphs.push(graph);
    }
    return graphs;
  }

  #lookUp(collection: string, uris: string[]): ItemRow[] {
    if (uris.length === 0) return [];
    return this.#db.prepare(
      `SELECT * FROM items WHERE collection = ? AND uri IN (${placeholders(uris.length)})`,
    ).all(collection, ...uris) as unknown as ItemRow[];
  }

  /** Fills each graph with its item's triples, in one statement. */
  #readTriplesOf(items: { row: ItemRow; graph: ItemGraph }[]): void {
    if (items.length === 0) return;
    const byId = new Map(items.map(({ row, graph }) => [row.graph, graph.quads]));
    const statement = this.#db.prepare(
      `SELECT q.g, ts.term, tp.term, ${termColumn("t_o.term")} FROM quads q ${TRIPLE_JOINS} ` +
        `WHERE q.g IN (${placeholders(items.length)})`,
    );
    statement.setReturnArrays(true);
    // Subjects and predicates repeat within and across items: decode each once.
    const subjects = new Map<string, Quad["subject"]>();
    const predicates = new Map<string, Quad["predicate"]>();
    const rows = statement.all(...byId.keys()) as unknown as [
      number,
      string,
      string,
      string | Uint8Array,
    ][];
    for (const [itemId, s, p, o] of rows) {
      let subject = subjects.get(s);
      if (!subject) subjects.set(s, subject = decodeSubject(s));
      let predicate = predicates.get(p);
      if (!predicate) predicates.set(p, predicate = decodePredicate(p));
      byId.get(itemId)!.push(DataFactory.quad(subject, predicate, decodeObject(termText(o))));
    }
  }

  /**
   * A large item, read page by page inside one read transaction on a connection of its own:
   * WAL gives that connection a stable snapshot while writers carry on. The item's row is
   * read in that snapshot too, so the record and every page are one version. The snapshot
   * is held until the pages are read or their reader stops.
   */
  #readLarge(collection: string, uri: string): ItemRead | undefined {
    const reader = new Database(this.#path!, { readOnly: true });
    const release = () => {
      reader.exec("COMMIT");
      reader.close();
    };
    let row: ItemRow | undefined;
    try {
      reader.exec("BEGIN");
      row = reader.prepare("SELECT * FROM items WHERE uri = ? AND collection = ?")
        .get(uri, collection) as ItemRow | undefined;
    } catch (error) {
      reader.close();
      throw error;
    }
    if (!row) {
      release();
      return undefined;
    }
    return { record: toRecord(row), quads: this.#pages(reader, row.graph, release) };
  }

  async *#pages(reader: DatabaseSync, graph: number, release: () => void): AsyncIterable<Quad> {
    try {
      const page = reader.prepare(
        `SELECT ${TRIPLE_COLUMNS} FROM quads q ${TRIPLE_JOINS}
         WHERE q.g = ? AND (q.s, q.p, q.o) > (?, ?, ?) ORDER BY q.s, q.p, q.o LIMIT ?`,
      );
      let last = [0, 0, 0];
      while (true) {
        const rows = page.all(graph, ...last, PAGE_SIZE) as unknown as TripleRow[];
        if (rows.length === 0) break;
        yield* this.#decode(rows);
        const { sid, pid, oid } = rows[rows.length - 1];
        last = [sid, pid, oid];
        // Let other requests run between pages.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      release();
    }
  }

  async *#decode(rows: TripleRow[]): AsyncIterable<Quad> {
    for (const triple of rows) {
      yield DataFactory.quad(
        decodeSubject(triple.s),
        decodePredicate(triple.p),
        decodeObject(termText(triple.o)),
      );
    }
  }

  createItem(write: ItemWrite): Promise<ItemRecord> {
    return this.#writes.submit({ kind: "create", write }, writeBytes(write)).then(toRecord);
  }

  replaceItem(write: ItemWrite, condition: WriteCondition = {}): Promise<ItemRecord> {
    return this.#writes.submit({ kind: "replace", write, condition }, writeBytes(write))
      .then(toRecord);
  }

  async deleteItem(
    collection: string,
    uri: string,
    condition: WriteCondition = {},
    origin: DeleteOrigin = {},
  ): Promise<void> {
    await this.#writes.submit({ kind: "delete", collection, uri, condition, origin }, uri.length);
  }

  /**
   * One group: one transaction in which each write is checked and applied inside a
   * savepoint of its own (a refused write is rolled back alone), committed without waiting
   * for the disk; then one fsync of the WAL makes the whole group durable before any write
   * of it is acknowledged. Until then its outbox entries are held back from the worker, so
   * nothing is indexed that a power cut could still take back.
   */
  async #commitGroup(writes: PendingWrite[]): Promise<WriteOutcome<ItemRow>[]> {
    let firstEntry: number | undefined;
    let lastChange = 0;
    // No fsync at COMMIT (checkpoints still sync): #syncWal follows.
    const outcomes = this.#forgettingOnFailure(() =>
      inUnsyncedTransaction(this.#db, () =>
        writes.map((pending) => {
          this.#db.exec("SAVEPOINT item_write");
          const outcome = outcomeOf(() => this.#apply(pending));
          if (!outcome.ok) {
            this.#db.exec("ROLLBACK TO item_write");
            this.#terms.forgetUncommitted();
          }
          this.#db.exec("RELEASE item_write");
          if (outcome.ok) {
            firstEntry ??= outcome.value.entry;
            lastChange = Math.max(lastChange, outcome.value.change);
          }
          return outcome;
        }))
    );
    // Committed: every write applied has its version (a refused one was rolled back).
    this.history.committed(outcomes.filter((outcome) => outcome.ok).length);
    if (firstEntry !== undefined) this.outbox.holdBack(firstEntry);
    try {
      await this.#syncWal();
    } finally {
      if (firstEntry !== undefined) this.outbox.endHold(firstEntry);
    }
    // Durable now: the feed's readers may see the group's changes.
    this.changes.durable(lastChange);
    return outcomes.map((outcome) => outcome.ok ? { ok: true, value: outcome.value.row } : outcome);
  }

  /** Runs `work`; if it throws, its transaction was rolled back, and so were new term ids. */
  #forgettingOnFailure<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      this.#terms.forgetUncommitted();
      throw error;
    }
  }

  /** Makes every transaction committed so far durable: one fdatasync of the WAL, off-thread. */
  async #syncWal(): Promise<void> {
    if (!this.#path) return;
    const wal = await open(`${this.#path}-wal`, "r+");
    try {
      await wal.datasync();
    } finally {
      await wal.close();
    }
  }

  /**
   * Checks and applies one write with its version (`sqlite_item_history.ts`), inside the
   * caller's savepoint; throws its conflict/not-found/precondition-failed. Returns the row,
   * outbox entry and change (`sqlite_change_feed.ts`).
   */
  #apply(pending: PendingWrite): { row: ItemRow; entry: number; change: number } {
    if (pending.kind === "create") {
      const { write } = pending;
      if (this.#statements.getItem.get(write.uri, write.collection)) {
        throw itemExists(write.uri, write.collection);
      }
      const now = new Date().toISOString();
      const row = this.#statements.insertItem.get(
        write.collection,
        write.uri,
        write.hash,
        write.quads.length,
        now,
        now,
        this.#graphOfNew(write.collection, write.uri),
      ) as unknown as ItemRow;
      this.#insertTriples(row, write.quads);
      this.#recordVersion(write, now, "create");
      return {
        row,
        entry: this.outbox.record(write.collection, write.uri),
        change: this.#recordChange(write, now, "create", false),
      };
    }
    const [collection, uri] = pending.kind === "delete"
      ? [pending.collection, pending.uri]
      : [pending.write.collection, pending.write.uri];
    const current = this.#statements.getItem.get(uri, collection) as ItemRow | undefined;
    if (!current) throw itemNotFound(collection, uri);
    const { ifMatch } = pending.condition;
    if (ifMatch !== undefined && ifMatch !== current.hash) {
      throw preconditionFailed(uri, current.hash);
    }
    this.#statements.deleteTriples.run(current.graph);
    if (pending.kind === "delete") {
      this.#statements.deleteItem.run(current.id);
      const time = new Date().toISOString();
      const principal = pending.origin.principal ?? LOCAL_PRINCIPAL;
      this.history.record({ collection, uri, time, principal, operation: "delete" });
      return {
        row: current,
        entry: this.outbox.record(collection, uri),
        change: this.changes.record({
          collection,
          uri,
          operation: "deleted",
          etag: null,
          principal,
          time,
        }),
      };
    }
    const { write } = pending;
    this.#insertTriples(current, write.quads);
    const now = new Date().toISOString();
    const row = this.#statements.updateItem.get(
      write.hash,
      write.quads.length,
      now,
      current.id,
    ) as unknown as ItemRow;
    this.#recordVersion(write, now, "update");
    return {
      row,
      entry: this.outbox.record(collection, uri),
      change: this.#recordChange(write, now, "update", true),
    };
  }

  /** The change a create or replace adds to its collection's feed; returns its seq. */
  #recordChange(
    write: ItemWrite,
    time: string,
    operation: "create" | "update",
    existed: boolean,
  ): number {
    return this.changes.record({
      collection: write.collection,
      uri: write.uri,
      operation: changeOperation(write.operation ?? operation, existed),
      etag: write.hash,
      principal: write.principal ?? LOCAL_PRINCIPAL,
      time,
    });
  }

  /** The version a create or replace adds to its item's history. */
  #recordVersion(write: ItemWrite, time: string, operation: "create" | "update"): void {
    this.history.record({
      collection: write.collection,
      uri: write.uri,
      graph: write,
      time,
      principal: write.principal ?? LOCAL_PRINCIPAL,
      operation: write.operation ?? operation,
    });
  }

  /**
   * The graph (term id) of a new item: named by its IRI, unless another collection's item
   * has that name already; then by the key derived from both (`store/item_keys.ts`).
   */
  #graphOfNew(collection: string, uri: string): number {
    const own = this.#terms.idOf(uri);
    if (this.#statements.graphTaken.get(own) === undefined) return own;
    return this.#terms.idOf(collectionItemKey(collection, uri));
  }

  async *listItems(collection: string): AsyncIterable<ItemRecord> {
    let after = "";
    while (true) {
      const rows = this.#statements.listItems.all(collection, after, 500) as unknown as ItemRow[];
      if (rows.length === 0) return;
      for (const row of rows) yield toRecord(row);
      after = rows[rows.length - 1].uri;
    }
  }

  async *collectionQuads(collection: string): AsyncIterable<Quad> {
    for await (const item of this.listItems(collection)) {
      yield* (await this.readItem(collection, item.uri)).quads;
    }
  }

  query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    return this.#sparql.query(sparql, options);
  }

  health(): Promise<BackendHealth> {
    try {
      const row = this.#db.prepare("SELECT count(*) AS n FROM items").get() as { n: number };
      return Promise.resolve({ ok: true, detail: `${row.n} items` });
    } catch (error) {
      return Promise.resolve({ ok: false, detail: (error as Error).message });
    }
  }

  async close(): Promise<void> {
    await this.#writes.idle();
    this.#sparql.close();
  }

  /**
   * Inserts an item's quads {@link INSERT_ROWS} at a time: one call into SQLite instead of one
   * per triple. A repeated triple is one quad (an RDF graph is a set).
   */
  #insertTriples(item: ItemRow, quads: Quad[]): void {
    const texts: string[] = [];
    for (const quad of quads) {
      texts.push(
        storable(quad.subject, item.id),
        storable(quad.predicate, item.id),
        storable(quad.object, item.id),
      );
    }
    const ids = this.#terms.idsOf(texts);
    for (let start = 0; start < quads.length; start += INSERT_ROWS) {
      const rows = Math.min(INSERT_ROWS, quads.length - start);
      const values: number[] = [];
      for (let i = start; i < start + rows; i++) {
        values.push(item.graph, ids[3 * i], ids[3 * i + 1], ids[3 * i + 2]);
      }
      this.#insertRows(rows).run(...values);
    }
    this.#statements.recordSharedTriples.run(item.graph);
  }

  /** The prepared multi-row insert for `rows` triples. */
  #insertRows(rows: number): StatementSync {
    let statement = this.#multiInserts.get(rows);
    if (!statement) {
      statement = this.#db.prepare(
        `INSERT OR IGNORE INTO quads (g, s, p, o) VALUES ${
          new Array(rows).fill("(?, ?, ?, ?)").join(", ")
        }`,
      );
      this.#multiInserts.set(rows, statement);
    }
    return statement;
  }
}
