/**
 * The embedded triple store: item graphs in the service's SQLite file, the system of record,
 * with an in-process SPARQL engine over a mirror of them.
 *
 * Every write is one SQLite transaction that also records the item's index outbox entry, so
 * an acknowledged write is durable (WAL, synchronous=FULL) and never half-applied.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { DatabaseSync as Database } from "node:sqlite";
import { DataFactory, Writer } from "n3";
import type { Quad } from "n3";
import { itemExists, itemNotFound, preconditionFailed } from "./store_problems.ts";
import { inTransaction } from "./local_db.ts";
import { SqliteIndexOutbox } from "./sqlite_index_outbox.ts";
import { decodeObject, decodePredicate, decodeSubject, encodeTerm } from "./term_ids.ts";
import { EmbeddedSparqlEngine } from "./embedded_sparql.ts";
import type {
  BackendHealth,
  ItemGraph,
  ItemRecord,
  ItemWrite,
  SparqlQueryOptions,
  SparqlQueryResult,
  TripleStore,
  WriteCondition,
} from "./triple_store.ts";

/** Items up to this many triples are read in one statement; larger ones are paged. */
const SINGLE_READ_LIMIT = 20_000;
const PAGE_SIZE = 2_000;
/** Batch reads fetch at most about this many triples per statement. */
const BATCH_TRIPLES = 20_000;
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
}

interface TripleRow {
  rowid: number;
  s: string;
  p: string;
  o: string;
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
  /** The index outbox, in the same file: entries commit in each write's transaction. */
  readonly outbox: SqliteIndexOutbox;
  readonly #db: DatabaseSync;
  /** File path for snapshot readers; undefined for an in-memory database. */
  readonly #path?: string;
  readonly #sparql: EmbeddedSparqlEngine;
  readonly #statements: Record<string, StatementSync>;

  constructor(db: DatabaseSync, path?: string) {
    this.#db = db;
    this.#path = path;
    this.outbox = new SqliteIndexOutbox(db);
    this.#sparql = new EmbeddedSparqlEngine(() => this.#mirrorChunks());
    this.#statements = {
      getItem: db.prepare("SELECT * FROM items WHERE uri = ? AND collection = ?"),
      getAnyItem: db.prepare("SELECT * FROM items WHERE uri = ?"),
      insertItem: db.prepare(
        `INSERT INTO items (collection, uri, hash, triple_count, created, modified)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
      ),
      updateItem: db.prepare(
        "UPDATE items SET hash = ?, triple_count = ?, modified = ? WHERE id = ? RETURNING *",
      ),
      deleteItem: db.prepare("DELETE FROM items WHERE id = ?"),
      deleteTriples: db.prepare("DELETE FROM triples WHERE item_id = ?"),
      insertTriple: db.prepare("INSERT INTO triples (item_id, s, p, o) VALUES (?, ?, ?, ?)"),
      allTriples: db.prepare(
        "SELECT rowid, s, p, o FROM triples WHERE item_id = ? ORDER BY s, rowid",
      ),
      listItems: db.prepare(
        "SELECT * FROM items WHERE collection = ? AND uri > ? ORDER BY uri LIMIT ?",
      ),
    };
  }

  /** Opens the store on an already opened local database file. */
  static open(db: DatabaseSync, path?: string): EmbeddedTripleStore {
    return new EmbeddedTripleStore(db, path);
  }

  getItem(collection: string, uri: string): Promise<ItemRecord | undefined> {
    const row = this.#statements.getItem.get(uri, collection) as ItemRow | undefined;
    return Promise.resolve(row ? toRecord(row) : undefined);
  }

  async *readItemQuads(collection: string, uri: string): AsyncIterable<Quad> {
    const row = this.#statements.getItem.get(uri, collection) as ItemRow | undefined;
    if (!row) throw itemNotFound(collection, uri);
    if (row.triple_count <= SINGLE_READ_LIMIT) {
      // One statement: a consistent snapshot without holding a transaction open.
      yield* this.#decode(this.#statements.allTriples.all(row.id) as unknown as TripleRow[]);
      return;
    }
    yield* this.#readLarge(row);
  }

  /**
   * Records first, then the triples of many items per statement: a batch of small items
   * costs a few statements instead of two per item. Nothing awaits between the statements,
   * so no write of this process can fall between a record and its triples.
   */
  async readItemGraphs(collection: string, uris: string[]): Promise<ItemGraph[]> {
    const graphs: ItemGraph[] = [];
    const pending: { row: ItemRow; graph: ItemGraph }[] = [];
    let pendingTriples = 0;
    const flush = () => {
      this.#readTriplesOf(pending);
      pending.length = 0;
      pendingTriples = 0;
    };
    for (let start = 0; start < uris.length; start += BATCH_LOOKUP) {
      for (const row of this.#lookUp(collection, uris.slice(start, start + BATCH_LOOKUP))) {
        const graph: ItemGraph = { record: toRecord(row), quads: [] };
        graphs.push(graph);
        if (row.triple_count > SINGLE_READ_LIMIT) {
          for await (const quad of this.#readLarge(row)) graph.quads.push(quad);
          continue;
        }
        if (pendingTriples + row.triple_count > BATCH_TRIPLES) flush();
        pending.push({ row, graph });
        pendingTriples += row.triple_count;
      }
      flush();
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
    const byId = new Map(items.map(({ row, graph }) => [row.id, graph.quads]));
    const statement = this.#db.prepare(
      `SELECT item_id, s, p, o FROM triples WHERE item_id IN (${placeholders(items.length)})`,
    );
    statement.setReturnArrays(true);
    // Subjects and predicates repeat within and across items: decode each once.
    const subjects = new Map<string, Quad["subject"]>();
    const predicates = new Map<string, Quad["predicate"]>();
    const rows = statement.all(...byId.keys()) as unknown as [number, string, string, string][];
    for (const [itemId, s, p, o] of rows) {
      let subject = subjects.get(s);
      if (!subject) subjects.set(s, subject = decodeSubject(s));
      let predicate = predicates.get(p);
      if (!predicate) predicates.set(p, predicate = decodePredicate(p));
      byId.get(itemId)!.push(DataFactory.quad(subject, predicate, decodeObject(o)));
    }
  }

  /**
   * Large items are read page by page inside one read transaction on a connection of their
   * own: WAL gives that connection a stable snapshot while writers carry on.
   */
  async *#readLarge(row: ItemRow): AsyncIterable<Quad> {
    const reader = this.#path ? new Database(this.#path, { readOnly: true }) : this.#db;
    const ownConnection = reader !== this.#db;
    if (ownConnection) reader.exec("BEGIN");
    try {
      const page = reader.prepare(
        `SELECT rowid, s, p, o FROM triples WHERE item_id = ? AND (s, rowid) > (?, ?)
         ORDER BY s, rowid LIMIT ?`,
      );
      let lastSubject = "";
      let lastRowId = -1;
      while (true) {
        const rows = page.all(row.id, lastSubject, lastRowId, PAGE_SIZE) as unknown as TripleRow[];
        if (rows.length === 0) break;
        yield* this.#decode(rows);
        const last = rows[rows.length - 1];
        lastSubject = last.s;
        lastRowId = last.rowid;
        // Let other requests run between pages.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      if (ownConnection) {
        reader.exec("COMMIT");
        reader.close();
      }
    }
  }

  *#decode(rows: TripleRow[]): Iterable<Quad> {
    for (const triple of rows) {
      yield DataFactory.quad(
        decodeSubject(triple.s),
        decodePredicate(triple.p),
        decodeObject(triple.o),
      );
    }
  }

  createItem(write: ItemWrite): Promise<ItemRecord> {
    const now = new Date().toISOString();
    const record = inTransaction(this.#db, () => {
      const existing = this.#statements.getAnyItem.get(write.uri) as ItemRow | undefined;
      if (existing) throw itemExists(write.uri, existing.collection);
      const row = this.#statements.insertItem.get(
        write.collection,
        write.uri,
        write.hash,
        write.quads.length,
        now,
        now,
      ) as unknown as ItemRow;
      this.#insertTriples(row.id, write.quads);
      this.outbox.record(write.collection, write.uri);
      return row;
    });
    this.#sparql.graphChanged(write.uri, this.#mirrorNQuads(record.id, write.uri, write.quads));
    return Promise.resolve(toRecord(record));
  }

  replaceItem(write: ItemWrite, condition: WriteCondition = {}): Promise<ItemRecord> {
    const record = inTransaction(this.#db, () => {
      const current = this.#statements.getItem.get(write.uri, write.collection) as
        | ItemRow
        | undefined;
      if (!current) throw itemNotFound(write.collection, write.uri);
      if (condition.ifMatch !== undefined && condition.ifMatch !== current.hash) {
        throw preconditionFailed(write.uri, current.hash);
      }
      this.#statements.deleteTriples.run(current.id);
      this.#insertTriples(current.id, write.quads);
      const row = this.#statements.updateItem.get(
        write.hash,
        write.quads.length,
        new Date().toISOString(),
        current.id,
      ) as unknown as ItemRow;
      this.outbox.record(write.collection, write.uri);
      return row;
    });
    this.#sparql.graphChanged(write.uri, this.#mirrorNQuads(record.id, write.uri, write.quads));
    return Promise.resolve(toRecord(record));
  }

  deleteItem(collection: string, uri: string, condition: WriteCondition = {}): Promise<void> {
    inTransaction(this.#db, () => {
      const current = this.#statements.getItem.get(uri, collection) as ItemRow | undefined;
      if (!current) throw itemNotFound(collection, uri);
      if (condition.ifMatch !== undefined && condition.ifMatch !== current.hash) {
        throw preconditionFailed(uri, current.hash);
      }
      this.#statements.deleteTriples.run(current.id);
      this.#statements.deleteItem.run(current.id);
      this.outbox.record(collection, uri);
    });
    this.#sparql.graphChanged(uri, undefined);
    return Promise.resolve();
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
      yield* this.readItemQuads(collection, item.uri);
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

  close(): Promise<void> {
    this.#sparql.close();
    return Promise.resolve();
  }

  #insertTriples(itemId: number, quads: Quad[]): void {
    const insert = this.#statements.insertTriple;
    for (const quad of quads) {
      insert.run(
        itemId,
        encodeTerm(quad.subject),
        encodeTerm(quad.predicate),
        encodeTerm(quad.object),
      );
    }
  }

  /** An item's triples as N-Quads in its named graph, blank nodes made unique per item. */
  #mirrorNQuads(itemId: number, uri: string, quads: Iterable<Quad>): string {
    const graph = DataFactory.namedNode(uri);
    const writer = new Writer({ format: "N-Quads" });
    const scoped = (term: Quad["subject"] | Quad["object"]) =>
      term.termType === "BlankNode" ? DataFactory.blankNode(`i${itemId}_${term.value}`) : term;
    const lines: Quad[] = [];
    for (const quad of quads) {
      lines.push(
        DataFactory.quad(
          scoped(quad.subject) as Quad["subject"],
          quad.predicate,
          scoped(quad.object) as Quad["object"],
          graph,
        ),
      );
    }
    return writer.quadsToString(lines);
  }

  async *#mirrorChunks(): AsyncIterable<string> {
    const items = this.#db.prepare("SELECT id, uri, collection FROM items ORDER BY id").all() as {
      id: number;
      uri: string;
      collection: string;
    }[];
    for (const item of items) {
      const quads: Quad[] = [];
      for await (const quad of this.readItemQuads(item.collection, item.uri)) quads.push(quad);
      yield this.#mirrorNQuads(item.id, item.uri, quads);
    }
  }
}
